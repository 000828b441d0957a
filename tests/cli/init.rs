//! `awf init`, `awf typings`, `awf completions` and `awf man`: a starter project that runs and
//! is tested at once and type-checks with the real TypeScript compiler against the typings awf
//! writes; nothing overwritten; completions and the man page generated from the command line.

use crate::util::{assert_has, node_bin, npm_tool, workspace, AwfCommand, TempProject};

const TYPESCRIPT_VERSION: &str = "5.9.3";

#[test]
fn a_starter_project_runs_is_tested_and_type_checks() {
    let project = TempProject::new();
    let ran = project.awf(&["init", "notes"]).run();
    ran.assert_success();
    assert_has(&ran.stdout, "workflow.ts");
    assert_has(&ran.stdout, "typings/agentswf.d.ts");
    assert_has(&ran.stdout, "next: cd notes && awf run workflow.ts");
    let dir = project.path().join("notes");

    let tested = AwfCommand::new(crate::util::awf_bin())
        .args(&["test"])
        .current_dir(&dir)
        .run();
    tested.assert_success();
    assert_has(&tested.stdout, "2 passed, 0 failed");

    let run = AwfCommand::new(crate::util::awf_bin())
        .args(&["run", "workflow.ts", "--", "editors"])
        .current_dir(&dir)
        .run();
    assert_eq!(
        run.assert_success().json(),
        serde_json::json!({
            "topic": "editors",
            "notes": ["awf runs workflows written in TypeScript", "agents call the workflow's tools with wfa"],
            "summary": {"title": "Two notes", "notes": 2},
        })
    );
    let workflow = std::fs::read_to_string(dir.join("workflow.ts")).unwrap();
    assert_has(&workflow, "name: \"notes\",");

    let typescript = npm_tool("typescript", TYPESCRIPT_VERSION);
    let checked = AwfCommand::new(node_bin())
        .arg(typescript.join("node_modules/typescript/bin/tsc"))
        .args(&["-p", "tsconfig.json", "--pretty", "false"])
        .current_dir(&dir)
        .run();
    assert_eq!(
        (checked.code, checked.stdout.as_str()),
        (Some(0), ""),
        "tsc found errors in the starter"
    );
}

#[test]
fn init_overwrites_nothing() {
    let project = TempProject::new();
    project.file("here/workflow.ts", "// mine\n");
    let ran = project.awf(&["init", "here"]).run();
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert_has(
        &ran.stderr,
        "here: already has workflow.ts; awf init overwrites nothing",
    );
    assert_has(&ran.stderr, "\n\nhint: init another folder");
    assert_eq!(project.read("here/workflow.ts"), "// mine\n");
    assert!(!project.path().join("here/workflow.test.ts").exists());
}

#[test]
fn typings_are_the_checkouts() {
    let project = TempProject::new();
    project.awf(&["typings", "types"]).run().assert_success();
    for name in [
        "globals.d.ts",
        "agentswf.d.ts",
        "agentswf-testing.d.ts",
        "typebox.d.ts",
        "bun-test.d.ts",
    ] {
        let expected = std::fs::read_to_string(workspace().join("typings").join(name)).unwrap();
        assert_eq!(project.read(&format!("types/{name}")), expected, "{name}");
    }
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line() {
    let project = TempProject::new();
    for shell in ["bash", "zsh", "fish"] {
        let ran = project.awf(&["completions", shell]).run();
        ran.assert_success();
        assert_has(&ran.stdout, "doctor");
        assert_has(&ran.stdout, "timeout");
    }
    let bad = project.awf(&["completions", "tcsh"]).run();
    assert_eq!(bad.code, Some(2));
    let man = project.awf(&["man"]).run();
    man.assert_success();
    assert_has(&man.stdout, ".TH awf");
    assert_has(&man.stdout, "wfa");
}

/// The `cd` awf init suggests works pasted into a shell, whatever the folder is called.
#[test]
fn the_folder_to_cd_into_is_quoted_for_the_shell() {
    let project = TempProject::new();
    let ran = project.awf(&["init", "my notes"]).run();
    ran.assert_success();
    assert_has(&ran.stdout, "next: cd 'my notes' && awf run workflow.ts");
    let next = ran
        .stdout
        .lines()
        .find_map(|line| line.strip_prefix("next: "))
        .expect("a next line");
    let cd = next.split(" && ").next().unwrap_or_default();
    let went = AwfCommand::new("sh")
        .args(&["-c", &format!("{cd} && test -f workflow.ts")])
        .current_dir(&project.path())
        .run();
    assert_eq!(
        went.code,
        Some(0),
        "`{cd}` did not reach the project: {}",
        went.stderr
    );
}
