//! Every code block of README.md and docs/*.md, checked against the code, so that no page can
//! claim what awf does not do. Each block's fence names what it is, and so how it is checked:
//!
//! - `ts`: type-checked by the real TypeScript compiler through awf's typings. A block may be a
//!   fragment: names it uses but does not declare (`wf`, `input`, `Finding`, an agent...) are
//!   declared for it from `PRELUDE`, as a page's prose does.
//! - `sh`: each `awf` (or `npx awf`) command's subcommand exists and each `--flag` is one its
//!   `--help` lists; each `bench/`, `scripts/` or `examples/` path exists. `sh harness=NAME` is
//!   an agent CLI's command line as awf runs it: each of its flags is in that harness's source.
//! - `text` (what a command prints): each `$ awf ...` line is checked like `sh`.
//! - `json` is parsed; `python` is parsed by python3.
//!
//! A block with no fence tag, or one this file does not know, fails: nothing goes unchecked by
//! accident.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::typings::tsc_with;
use crate::util::{awf_bin, npm_tool, workspace, AwfCommand, TempProject};

/// The @types/node the TypeScript blocks that import `node:*` modules are checked with.
const NODE_TYPES_VERSION: &str = "22.20.7";

/// One fenced block of a page.
struct Block {
    page: String,
    /// The line of the opening fence, from 1.
    line: usize,
    tag: String,
    /// What follows the tag in the fence's info string.
    options: String,
    body: String,
}

fn pages() -> Vec<PathBuf> {
    let root = workspace();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn blocks() -> Vec<Block> {
    let root = workspace();
    let mut out = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.strip_prefix(&root).unwrap().display().to_string();
        let mut lines = text.lines().enumerate();
        while let Some((n, line)) = lines.next() {
            let Some(info) = line.strip_prefix("```") else {
                continue;
            };
            let (tag, options) = info.trim().split_once(' ').unwrap_or((info.trim(), ""));
            let mut body = String::new();
            for (_, line) in lines.by_ref() {
                if line.starts_with("```") {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            out.push(Block {
                page: name.clone(),
                line: n + 1,
                tag: tag.to_string(),
                options: options.trim().to_string(),
                body,
            });
        }
    }
    out
}

#[test]
fn every_block_says_what_it_is() {
    let known = ["ts", "sh", "text", "json", "python"];
    let unknown: Vec<String> = blocks()
        .iter()
        .filter(|b| !known.contains(&b.tag.as_str()))
        .map(|b| format!("{}:{}: fence tag {:?}", b.page, b.line, b.tag))
        .collect();
    assert!(
        unknown.is_empty(),
        "blocks without a known tag (one of {known:?}):\n{}",
        unknown.join("\n")
    );
}

/// Declarations a fragment gets for the names it uses and does not declare, in this order.
const PRELUDE: &[(&str, &str)] = &[
    (
        "wf",
        "declare const wf: import(\"agentswf\").WorkflowContext;",
    ),
    ("input", "declare const input: any;"),
    ("files", "declare const files: string[];"),
    (
        "reviewer",
        "declare const reviewer: import(\"agentswf\").Agent;",
    ),
    (
        "Verdict",
        "declare const Verdict: import(\"agentswf\").Typed<{ ok: boolean; notes: string }>;",
    ),
    (
        "Finding",
        "declare const Finding: import(\"agentswf\").Typed<{ file: string; line: number; problem: string }>;\ntype Finding = { file: string; line: number; problem: string };",
    ),
    (
        "add_finding",
        "declare const add_finding: import(\"agentswf\").Tool<any>;",
    ),
    (
        "add_note",
        "declare const add_note: import(\"agentswf\").Tool<any>;",
    ),
    ("note", "declare const note: import(\"agentswf\").Tool<any>;"),
    (
        "release",
        "declare const release: import(\"agentswf\").Workflow<{ version: string }, unknown>;",
    ),
    (
        "testWorkflow",
        "import { testWorkflow } from \"agentswf/testing\";",
    ),
    ("expect", "import { expect } from \"bun:test\";"),
];

/// Whether `block` declares `name` itself (or imports it).
fn declares(block: &str, name: &str) -> bool {
    let word = |s: &str| {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == name)
    };
    block.lines().any(|line| {
        let line = line.trim_start();
        [
            "const ",
            "let ",
            "function ",
            "type ",
            "interface ",
            "class ",
        ]
        .iter()
        .any(|kw| {
            line.strip_prefix("export ")
                .unwrap_or(line)
                .strip_prefix(kw)
                .is_some_and(|rest| rest.trim_start().starts_with(name))
        }) || (line.starts_with("import ") && word(line.split(" from ").next().unwrap_or("")))
    })
}

fn uses(block: &str, name: &str) -> bool {
    block
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

/// The files a block imports by relative path (`from "./triage.ts"`), as paths under its folder.
fn relative_imports(block: &str) -> Vec<String> {
    block
        .split(" from \"./")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .map(|path| path.to_string())
        .collect()
}

#[test]
fn every_typescript_block_type_checks() {
    let project = TempProject::new();
    let mut files = Vec::new();
    // Each file's name, its page and line, and how many prelude lines come before the block.
    let mut origin = Vec::new();
    for block in blocks().iter().filter(|b| b.tag == "ts") {
        let mut prelude = String::new();
        for (name, declaration) in PRELUDE {
            if uses(&block.body, name) && !declares(&block.body, name) {
                prelude.push_str(declaration);
                prelude.push('\n');
            }
        }
        let file = format!("{}-{}.ts", block.page.replace(['/', '.'], "_"), block.line);
        project.file(&file, &format!("{prelude}{}", block.body));
        // A page's example may import its own files (`./triage.ts`): they stand in as `any`.
        for imported in relative_imports(&block.body) {
            project.file(
                &imported,
                "declare const stub: import(\"agentswf\").Workflow<any, any>;\nexport default stub;\n",
            );
        }
        files.push(project.path().join(&file).display().to_string());
        origin.push((
            file,
            block.page.clone(),
            block.line,
            prelude.lines().count(),
        ));
    }
    assert!(
        files.len() >= 15,
        "found only {} TypeScript blocks",
        files.len()
    );
    // Node's own modules are typed by @types/node, as in a user's project; awf's globals
    // (process, performance) declare some of the same names a little differently, so the two
    // sets of declarations are not checked against each other (skipLibCheck), as docs/host-apis.md
    // tells users to do.
    let node_types = npm_tool("@types/node", NODE_TYPES_VERSION);
    let ran = tsc_with(
        &project,
        &files,
        serde_json::json!({
            "types": ["node"],
            "typeRoots": [node_types.join("node_modules/@types")],
            "skipLibCheck": true,
        }),
    );
    // tsc says `file(line,col): error ...`; say where in the docs that is.
    let errors: Vec<String> = ran
        .stdout
        .lines()
        .map(|line| {
            for (file, page, at, skipped) in &origin {
                if let Some(rest) = line.strip_prefix(&format!("{file}(")) {
                    let (pos, message) = rest.split_once("): ").unwrap_or((rest, ""));
                    let n: usize = pos.split(',').next().unwrap().parse().unwrap_or(0);
                    return format!("{page}:{}: {message}", at + n.saturating_sub(*skipped));
                }
            }
            line.to_string()
        })
        .collect();
    assert!(
        ran.code == Some(0) && errors.is_empty(),
        "TypeScript blocks in the docs do not type-check:\n{}\n{}",
        errors.join("\n"),
        ran.stderr
    );
}

/// The `--flags` `awf SUBCOMMAND --help` lists (the top level's for no subcommand).
fn flags_of(subcommand: Option<&str>) -> (bool, BTreeSet<String>) {
    let mut command = AwfCommand::new(awf_bin());
    if let Some(sub) = subcommand {
        command.arg(sub);
    }
    let ran = command.arg("--help").run();
    let flags = ran
        .stdout
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']' || c == '=')
        .filter(|w| w.starts_with("--"))
        .map(|w| w.trim_end_matches(['.', ':', ')']).to_string())
        .collect();
    (ran.code == Some(0), flags)
}

/// awf's subcommands, as `awf --help` lists them.
fn subcommands() -> BTreeSet<String> {
    let ran = AwfCommand::new(awf_bin()).arg("--help").run();
    ran.stdout
        .split("Commands:")
        .nth(1)
        .and_then(|rest| rest.split("Options:").next())
        .unwrap_or("")
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// What is wrong with one `awf ...` command line (its words after `awf`), if anything: its
/// subcommand is the first word that names one, and each `--flag` before `--` must be awf's or
/// that subcommand's.
fn check_awf_line(words: &[&str], subcommands: &BTreeSet<String>) -> Vec<String> {
    let sub = words.iter().find(|w| subcommands.contains(**w)).copied();
    let (_, mut flags) = flags_of(None);
    if let Some(sub) = sub {
        flags.extend(flags_of(Some(sub)).1);
    }
    let mut problems = Vec::new();
    for word in words.iter().take_while(|w| **w != "--") {
        // A synopsis writes options in brackets: `[--bail[=N]]`.
        let word = word.trim_start_matches('[');
        if !word.starts_with("--") || word == "--" {
            continue;
        }
        let flag = word.split(['=', '[', ']']).next().unwrap();
        if !flags.contains(flag) {
            problems.push(format!("`awf {}` has no flag {flag}", sub.unwrap_or("")));
        }
    }
    problems
}

/// The words of a shell line, comments and quotes dropped (enough for the docs' commands).
fn shell_words(line: &str) -> Vec<String> {
    let line = line.split(" #").next().unwrap_or(line);
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (_, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

/// What is wrong with one command line of a `sh` block or a `$ ` line of a `text` block.
fn check_command(line: &str, subcommands: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for command in line.split("&&") {
        let words = shell_words(command.trim());
        // `NAME=value awf ...`: the program comes after the variables.
        let skip = words.iter().take_while(|w| is_assignment(w)).count();
        // `npx awf ...` runs the awf an npm project installed: checked as `awf ...`.
        let npx = words.get(skip).is_some_and(|w| w == "npx")
            && words.get(skip + 1).is_some_and(|w| w == "awf");
        let skip = skip + usize::from(npx);
        let Some(program) = words.get(skip) else {
            continue;
        };
        let rest: Vec<&str> = words[skip + 1..].iter().map(String::as_str).collect();
        if program == "awf" || program.ends_with("/awf") {
            if rest.is_empty() {
                continue;
            }
            problems.extend(check_awf_line(&rest, subcommands));
        }
        for word in &words {
            for prefix in ["bench/", "scripts/", "examples/"] {
                if word.starts_with(prefix) || word.starts_with(&format!("./{prefix}")) {
                    let path = workspace().join(word.trim_start_matches("./"));
                    if !path.exists() {
                        problems.push(format!("{word} does not exist"));
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn every_command_names_what_exists() {
    let subcommands = subcommands();
    assert!(subcommands.contains("run"), "no subcommands in awf --help");
    let is_synopsis = |line: &str| {
        let mut words = line.split_whitespace();
        words.next() == Some("awf")
            && words.next().is_some_and(|w| {
                subcommands.contains(w) || w.starts_with('-') || w.starts_with('[')
            })
    };
    let mut problems = Vec::new();
    for block in blocks() {
        let lines: Vec<(usize, String)> = match block.tag.as_str() {
            "sh" if block.options.starts_with("harness=") => continue,
            "sh" => block
                .body
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim_start().starts_with('#'))
                .map(|(i, l)| (i, l.to_string()))
                .collect(),
            // What a command printed: the commands typed (`$ ...`) and synopsis lines.
            "text" => block
                .body
                .lines()
                .enumerate()
                .filter_map(|(i, l)| {
                    l.strip_prefix("$ ")
                        .or(is_synopsis(l).then_some(l))
                        .map(|c| (i, c.to_string()))
                })
                .collect(),
            _ => continue,
        };
        for (i, line) in lines {
            for problem in check_command(&line, &subcommands) {
                problems.push(format!("{}:{}: {problem}", block.page, block.line + 1 + i));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "commands in the docs that awf does not have:\n{}",
        problems.join("\n")
    );
}

/// A harness's source: its one file (`gemini.rs`) or every file of its folder (`codex/`).
fn harness_source(dir: &Path, harness: &str) -> std::io::Result<String> {
    let folder = dir.join(harness);
    if !folder.is_dir() {
        return std::fs::read_to_string(dir.join(format!("{harness}.rs")));
    }
    let mut source = String::new();
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            source.push_str(&std::fs::read_to_string(path)?);
        }
    }
    Ok(source)
}

#[test]
fn every_agent_cli_command_line_is_the_one_awf_runs() {
    let mut problems = Vec::new();
    let mut seen = 0;
    for block in blocks() {
        let Some(harness) = block.options.strip_prefix("harness=") else {
            continue;
        };
        seen += 1;
        let dir = workspace().join("runtime/src/harness");
        let source = harness_source(&dir, harness)
            .unwrap_or_else(|e| panic!("{}:{}: harness {harness}: {e}", block.page, block.line));
        let shared = std::fs::read_to_string(dir.join("cli.rs")).unwrap();
        for (i, line) in block.body.lines().enumerate() {
            for word in shell_words(line) {
                let flag = word.split('=').next().unwrap();
                let is_flag = flag.starts_with('-') && flag.len() > 1 && flag != "-";
                if is_flag
                    && !source.contains(&format!("\"{flag}"))
                    && !shared.contains(&format!("\"{flag}"))
                {
                    problems.push(format!(
                        "{}:{}: {harness} is not run with {flag}",
                        block.page,
                        block.line + 1 + i
                    ));
                }
            }
        }
    }
    assert!(seen >= 5, "only {seen} agent CLI command lines found");
    assert!(
        problems.is_empty(),
        "agent CLI command lines in the docs that awf does not run:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_json_and_python_block_parses() {
    let mut problems = Vec::new();
    let project = TempProject::new();
    for block in blocks() {
        let at = format!("{}:{}", block.page, block.line);
        match block.tag.as_str() {
            "json" => {
                if let Err(e) = serde_json::from_str::<serde_json::Value>(&block.body) {
                    problems.push(format!("{at}: not JSON: {e}"));
                }
            }
            "python" => {
                let file = project.path().join("block.py");
                std::fs::write(&file, &block.body).unwrap();
                let ran = AwfCommand::new(Path::new("python3"))
                    .args(&["-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())"])
                    .arg(&file)
                    .run();
                if ran.code != Some(0) {
                    problems.push(format!("{at}: not Python: {}", ran.stderr));
                }
            }
            _ => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The text of every source file awf's messages come from.
fn sources() -> String {
    fn walk(dir: &Path, out: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs" || e == "ts") {
                out.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = String::new();
    for dir in ["runtime/src", "cli/src", "js"] {
        walk(&workspace().join(dir), &mut out);
    }
    out
}

#[test]
fn every_troubleshooting_message_is_one_awf_gives() {
    let page = std::fs::read_to_string(workspace().join("docs/troubleshooting.md")).unwrap();
    let sources = sources();
    let mut headings = 0;
    let mut problems = Vec::new();
    for (n, line) in page.lines().enumerate() {
        let Some(message) = line.strip_prefix("### `").and_then(|m| m.strip_suffix('`')) else {
            continue;
        };
        headings += 1;
        // A quoted example (`"chalk"`) stands for what the source formats in.
        for (i, fragment) in message.split('"').enumerate() {
            if i % 2 == 0 && !fragment.trim().is_empty() && !sources.contains(fragment.trim()) {
                problems.push(format!(
                    "docs/troubleshooting.md:{}: awf never says {:?}",
                    n + 1,
                    fragment.trim()
                ));
            }
        }
    }
    assert!(headings >= 10, "only {headings} messages found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
