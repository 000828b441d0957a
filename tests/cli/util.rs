//! What every CLI test file shares: where the built binaries and fixtures are, `TempProject` (a
//! temp folder of files to run awf in), `AwfCommand` (runs a binary with a time bound and
//! captures its exit code, stdout and stderr), the filters that make output comparable (run ids,
//! temp paths, times), and `npm_tool`, which installs an npm package once into
//! `target/test-tools/` for tests that compare with or check by real node tools.

#![allow(dead_code)] // each test file uses its own part of this module

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How long one awf run may take before the test fails (and the process group is killed).
pub const RUN_BOUND: Duration = Duration::from_secs(30);
/// How long an npm install may take.
const INSTALL_BOUND: Duration = Duration::from_secs(300);

/// The workspace root (the folder holding Cargo.toml, examples/, typings/).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// A path under tests/fixtures/.
pub fn fixture(path: &str) -> PathBuf {
    workspace().join("tests/fixtures").join(path)
}

/// Cargo's target folder: `$CARGO_TARGET_DIR`, else `<workspace>/target`.
fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => workspace().join(dir),
        None => workspace().join("target"),
    }
}

/// The folder holding `awf` and `wfa`: `$AWF_BIN_DIR`, else the folder this test binary was
/// built into beside them (`target/<host tuple>/release/deps/` is in `target/<host tuple>/release/`).
pub fn bin_dir() -> PathBuf {
    std::env::var_os("AWF_BIN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(built_beside)
}

fn built_beside() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's own path");
    let deps = exe.parent().expect("the test binary is in a folder");
    deps.parent()
        .expect("deps/ is in the profile's folder")
        .to_path_buf()
}

fn binary(name: &str) -> PathBuf {
    let path = bin_dir().join(name);
    assert!(
        path.is_file(),
        "{}: no {name} binary; build it (cargo build --release --workspace) or set AWF_BIN_DIR",
        path.display()
    );
    path
}

pub fn awf_bin() -> PathBuf {
    binary("awf")
}

pub fn wfa_bin() -> PathBuf {
    binary("wfa")
}

/// A temp folder with files in it, removed when dropped; awf runs in it by default.
pub struct TempProject {
    dir: tempfile::TempDir,
    /// A folder of the project's that is not under the temp dir, made when first asked for.
    outside_temp: std::sync::OnceLock<tempfile::TempDir>,
}

impl TempProject {
    pub fn new() -> TempProject {
        let dir = tempfile::Builder::new()
            .prefix("awf-test-")
            .tempdir()
            .expect("a temp folder");
        TempProject {
            dir,
            outside_temp: std::sync::OnceLock::new(),
        }
    }

    /// A folder of this project's that is not under the temp dir, removed with the project: for
    /// what a program will not keep under /tmp (codex's CODEX_HOME, live.rs). It is under the
    /// target folder, or under `~/.cache/awf` when that is in the temp dir too (a CI clone).
    pub fn outside_temp(&self) -> PathBuf {
        let dir = self.outside_temp.get_or_init(|| {
            let temp =
                fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| std::env::temp_dir());
            let target = target_dir();
            let target = fs::canonicalize(&target).unwrap_or(target);
            let parent = if !target.starts_with(&temp) {
                target.join("test-state")
            } else {
                let home = std::env::var_os("HOME").expect("HOME is set");
                PathBuf::from(home).join(".cache/awf/test-state")
            };
            fs::create_dir_all(&parent).unwrap();
            tempfile::Builder::new()
                .prefix("awf-test-")
                .tempdir_in(&parent)
                .expect("a folder under the target folder")
        });
        fs::canonicalize(dir.path()).expect("the folder exists")
    }

    /// The folder, canonical (awf prints canonical paths; /tmp may be a link).
    pub fn path(&self) -> PathBuf {
        fs::canonicalize(self.dir.path()).expect("the temp folder exists")
    }

    /// Writes `text` to `name` (folders made as needed).
    pub fn file(&self, name: &str, text: &str) -> &TempProject {
        let path = self.dir.path().join(name);
        fs::create_dir_all(path.parent().expect("a file has a folder")).unwrap();
        fs::write(&path, text).unwrap();
        self
    }

    /// Copies every file of `tests/fixtures/<folder>` in.
    pub fn copy_fixture(&self, folder: &str) -> &TempProject {
        copy_tree(&fixture(folder), self.dir.path());
        self
    }

    pub fn read(&self, name: &str) -> String {
        fs::read_to_string(self.dir.path().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// `awf <args>` run in this folder.
    pub fn awf(&self, args: &[&str]) -> AwfCommand {
        let mut command = AwfCommand::new(awf_bin());
        command.args(args).current_dir(&self.path());
        command
    }

    /// The one run folder of workflow `name` under `.awf/runs/`.
    pub fn only_run_dir(&self, name: &str) -> PathBuf {
        let runs = self.path().join(".awf/runs").join(name);
        let entries: Vec<PathBuf> = fs::read_dir(&runs)
            .unwrap_or_else(|e| panic!("{}: {e}", runs.display()))
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(entries.len(), 1, "one run of {name}: {entries:?}");
        entries.into_iter().next().unwrap()
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("{}: {e}", from.display())) {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A command under test: a binary, its arguments, a time bound.
pub struct AwfCommand {
    command: Command,
    bound: Duration,
    stdin: Option<Vec<u8>>,
}

impl AwfCommand {
    pub fn new(program: impl AsRef<Path>) -> AwfCommand {
        let mut command = Command::new(program.as_ref());
        // Tests see awf as a user's script would: no colours, no terminal.
        command.env("NO_COLOR", "1").env_remove("RUST_BACKTRACE");
        AwfCommand {
            command,
            bound: RUN_BOUND,
            stdin: None,
        }
    }

    pub fn args(&mut self, args: &[&str]) -> &mut AwfCommand {
        self.command.args(args);
        self
    }

    pub fn arg(&mut self, arg: impl AsRef<std::ffi::OsStr>) -> &mut AwfCommand {
        self.command.arg(arg);
        self
    }

    pub fn current_dir(&mut self, dir: &Path) -> &mut AwfCommand {
        self.command.current_dir(dir);
        self
    }

    pub fn env(&mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> &mut AwfCommand {
        self.command.env(key, value);
        self
    }

    pub fn stdin(&mut self, bytes: &[u8]) -> &mut AwfCommand {
        self.stdin = Some(bytes.to_vec());
        self
    }

    /// The longest the command may run before it is killed and the test fails.
    pub fn bound(&mut self, bound: Duration) -> &mut AwfCommand {
        self.bound = bound;
        self
    }

    /// Runs the command to its end (or kills its process group at the bound and panics).
    pub fn run(&mut self) -> Ran {
        use std::os::unix::process::CommandExt;
        self.command
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let started = Instant::now();
        let mut child = self
            .command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {:?}: {e}", self.command.get_program()));
        let group = child.id() as i32;
        if let (Some(bytes), Some(mut pipe)) = (self.stdin.take(), child.stdin.take()) {
            thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let stdout = read_in_thread(child.stdout.take().unwrap());
        let stderr = read_in_thread(child.stderr.take().unwrap());
        let (done, waited) = mpsc::channel();
        thread::spawn(move || {
            let _ = done.send(child.wait());
        });
        let status: ExitStatus = match waited.recv_timeout(self.bound) {
            Ok(status) => status.expect("wait for the child"),
            Err(_) => {
                // SAFETY: plain syscall; the group is ours (process_group(0) above).
                unsafe { libc::kill(-group, libc::SIGKILL) };
                panic!(
                    "{:?} {:?} still runs after {:?}",
                    self.command.get_program(),
                    self.command.get_args().collect::<Vec<_>>(),
                    self.bound
                );
            }
        };
        let elapsed = started.elapsed();
        Ran {
            code: status.code(),
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
            elapsed,
        }
    }
}

fn read_in_thread(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// What a command did.
#[derive(Debug)]
pub struct Ran {
    /// `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Ran {
    /// Exit code, stdout and stderr in one text, with run ids, times and `project`'s path
    /// filtered (see `filter`), for comparing whole with an expected text.
    pub fn snapshot(&self, project: &Path) -> String {
        let code = match self.code {
            Some(code) => code.to_string(),
            None => "signal".to_string(),
        };
        filter(
            &format!(
                "exit: {code}\n--- stdout\n{}--- stderr\n{}",
                self.stdout, self.stderr
            ),
            project,
        )
    }

    /// stdout read as JSON; panics with both streams when it is not.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// stdout read as a JSON array of strings (a workflow that returns the messages it caught).
    pub fn json_strings(&self) -> Vec<String> {
        let value = self.json();
        let items = value
            .as_array()
            .unwrap_or_else(|| panic!("not an array: {value}"));
        items
            .iter()
            .map(|item| {
                item.as_str()
                    .unwrap_or_else(|| panic!("not a string: {item}"))
                    .to_string()
            })
            .collect()
    }

    /// Panics with both streams unless the command exited 0.
    pub fn assert_success(&self) -> &Ran {
        assert_eq!(
            self.code,
            Some(0),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

/// Panics with `text` unless it contains `part`.
#[track_caller]
pub fn assert_has(text: &str, part: &str) {
    assert!(text.contains(part), "{text}");
}

/// Panics with `text` if it contains `part`.
#[track_caller]
pub fn assert_lacks(text: &str, part: &str) {
    assert!(!text.contains(part), "{text}");
}

/// Makes output comparable: `project`'s path becomes `[TMP]`, run ids (`20261129-192059-39p6`)
/// `[RUN_ID]`, RFC 3339 times `[TIME]`, and the numbers after `durationMs` `[MS]`.
pub fn filter(text: &str, project: &Path) -> String {
    let text = text.replace(&project.display().to_string(), "[TMP]");
    let text = replace_matches(&text, RUN_ID_SHAPE, "[RUN_ID]");
    let text = replace_matches(&text, TIME_SHAPE, "[TIME]");
    filter_duration_ms(&text)
}

/// Characters classes a shape is made of: `d` a digit, `a` a lowercase letter or digit, any other
/// char itself.
const RUN_ID_SHAPE: &str = "dddddddd-dddddd-aaaa";
const TIME_SHAPE: &str = "dddd-dd-ddTdd:dd:dd.dddZ";

fn replace_matches(text: &str, shape: &str, with: &str) -> String {
    let shape: Vec<char> = shape.chars().collect();
    let chars: Vec<char> = text.chars().collect();
    let fits = |at: usize| {
        at + shape.len() <= chars.len()
            && shape.iter().zip(&chars[at..]).all(|(s, c)| match s {
                'd' => c.is_ascii_digit(),
                'a' => c.is_ascii_lowercase() || c.is_ascii_digit(),
                other => other == c,
            })
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if fits(i) {
            out.push_str(with);
            i += shape.len();
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn filter_duration_ms(text: &str) -> String {
    let key = "\"durationMs\": ";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = &rest[at + key.len()..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        out.push_str("[MS]");
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// Compares texts and, when they differ, shows both whole (a snapshot's diff is easiest to read
/// that way).
#[track_caller]
pub fn assert_text(actual: &str, expected: &str) {
    if actual != expected {
        panic!("\n--- expected\n{expected}\n--- actual\n{actual}\n--- end");
    }
}

/// The folder where npm package `package@version` is installed (`<dir>/node_modules/...`),
/// under the target folder's `test-tools/`; installs it the first time. A lock file keeps tests
/// that ask at once from installing over each other; a marker written last tells a finished
/// install from a broken one.
pub fn npm_tool(package: &str, version: &str) -> PathBuf {
    let tools = target_dir().join("test-tools");
    fs::create_dir_all(&tools).unwrap();
    let name = format!("{}-{version}", package.replace('/', "+"));
    let dir = tools.join(&name);
    let marker = dir.join(".installed");
    let _lock = FileLock::take(&tools.join(format!("{name}.lock")));
    if marker.is_file() {
        return dir;
    }
    let npm = which("npm").unwrap_or_else(|| {
        panic!(
            "npm is not on PATH, and this test needs {package}@{version} from npm\n\nhint: install \
             Node.js 18 or later with npm (Debian: apt-get install -y nodejs npm), then run the \
             tests again"
        )
    });
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let ran = AwfCommand::new(npm)
        .args(&["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .arg("--prefix")
        .arg(&dir)
        .arg(format!("{package}@{version}"))
        .bound(INSTALL_BOUND)
        .run();
    assert_eq!(
        ran.code,
        Some(0),
        "npm install {package}@{version} into {} failed:\n{}{}",
        dir.display(),
        ran.stdout,
        ran.stderr
    );
    fs::write(&marker, "").unwrap();
    dir
}

/// `node`, or a panic saying how to get it.
pub fn node_bin() -> PathBuf {
    which("node").unwrap_or_else(|| {
        panic!(
            "node is not on PATH, and this test compares with a node tool\n\nhint: install \
             Node.js 18 or later (Debian: apt-get install -y nodejs npm)"
        )
    })
}

pub fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
    })
}

/// An exclusive `flock` on a file, released when dropped (or when the test process dies).
pub struct FileLock {
    _file: File,
}

impl FileLock {
    pub fn take(path: &Path) -> FileLock {
        use std::os::fd::AsRawFd;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        // SAFETY: plain syscall on a descriptor we own; blocks until no one else holds it.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        assert_eq!(locked, 0, "flock {}", path.display());
        FileLock { _file: file }
    }
}

impl TempProject {
    /// Writes an executable script (an agent, for the `command` runtime).
    pub fn script(&self, name: &str, text: &str) -> &TempProject {
        use std::os::unix::fs::PermissionsExt;
        self.file(name, text);
        let path = self.dir.path().join(name);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    /// The events of the one run of workflow `name`, in order.
    pub fn events(&self, name: &str) -> Vec<serde_json::Value> {
        let path = self.only_run_dir(name).join("events.jsonl");
        fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .lines()
            .map(|line| serde_json::from_str(line).expect("each event line is JSON"))
            .collect()
    }

    /// The events of one kind (`turn-settled`, `tool-called`, ...).
    pub fn events_of(&self, name: &str, kind: &str) -> Vec<serde_json::Value> {
        self.events(name)
            .into_iter()
            .filter(|e| e["event"] == kind)
            .collect()
    }
}

/// Waits until `path` exists, polling, within `bound`; panics naming it otherwise.
/// `git -C dir args`, its output trimmed; panics when git fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-C"])
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub fn wait_for_file(path: &Path, bound: Duration) {
    let start = std::time::Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < bound,
            "{} did not appear within {bound:?}",
            path.display()
        );
        thread::sleep(Duration::from_millis(10));
    }
}

/// Whether a process still runs (a zombie waiting to be reaped does not count).
pub fn process_running(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

/// `text` with turn ids' random parts taken out (`t1-k3f9q2` → `t1`, `t1-k3f9q2-c1` → `t1-c1`),
/// so that expected texts can name turns by number.
pub fn stable_ids(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        out.push(chars[i]);
        let starts = chars[i] == 't' && (i == 0 || !chars[i - 1].is_ascii_alphanumeric());
        if starts {
            let digits = chars[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let at = i + 1 + digits;
            let random = |c: &char| c.is_ascii_lowercase() || c.is_ascii_digit();
            let fits = digits > 0
                && chars.get(at) == Some(&'-')
                && chars.len() >= at + 7
                && chars[at + 1..at + 7].iter().all(random)
                && chars.get(at + 7).is_none_or(|c| !c.is_ascii_alphanumeric());
            if fits {
                out.extend(&chars[i + 1..at]);
                i = at + 7;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `awf test FOLDER` from the workspace passes, all `count` of its tests: a test removed or
/// skipped by mistake shows in the count.
pub fn assert_fixture_passes(folder: &str, count: usize) {
    let ran = AwfCommand::new(awf_bin())
        .args(&["test", folder])
        .current_dir(&workspace())
        .run();
    ran.assert_success();
    let last = ran.stdout.trim_end().lines().last().unwrap_or_default();
    assert_eq!(last, format!("{count} passed, 0 failed"), "{}", ran.stdout);
}
