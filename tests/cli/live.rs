//! What the live tests of the agent CLIs share: the real CLIs from npm, installed once into a
//! cache outside the checkout at the versions awf pins (`awf doctor --json` says which), the
//! project's fake model server (tests/fake-model) on 127.0.0.1 with a script, and for each CLI
//! the environment that points it at that server with its state in a folder of the test's own
//! (`HOME` included, so nothing of the user's own setup takes part).

#![allow(dead_code)] // each test file uses its own part of this module

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::{awf_bin, bin_dir, AwfCommand, FileLock, TempProject};

/// How long installing one CLI from npm may take (claude and codex are ~300 MB each).
const INSTALL_BOUND: Duration = Duration::from_secs(900);
/// How long one live run may take: two turns of the slowest CLI (opencode, gemini: ~10 s each
/// to start here) with room to spare.
pub const LIVE_BOUND: Duration = Duration::from_secs(240);

/// An agent CLI as the tests drive it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cli {
    Codex,
    Claude,
    Gemini,
    Pi,
    Opencode,
}

impl Cli {
    pub fn name(self) -> &'static str {
        match self {
            Cli::Codex => "codex",
            Cli::Claude => "claude",
            Cli::Gemini => "gemini",
            Cli::Pi => "pi",
            Cli::Opencode => "opencode",
        }
    }

    /// The API the fake speaks to this CLI (`fake-model --api`).
    pub fn api(self) -> &'static str {
        match self {
            Cli::Codex => "responses",
            Cli::Claude => "anthropic",
            Cli::Gemini => "gemini",
            Cli::Pi | Cli::Opencode => "chat",
        }
    }

    /// The agent spec's `runtime` for this CLI on the fake.
    pub fn runtime(self) -> Value {
        let model = match self {
            Cli::Codex => "fake-model",
            Cli::Claude => "fake-claude",
            Cli::Gemini => "gemini-2.5-flash",
            Cli::Pi | Cli::Opencode => "fake/fake-model",
        };
        json!({ "harness": self.name(), "model": model })
    }
}

/// The folder holding the installed CLI's executables (`node_modules/.bin`), installing the
/// pinned version into the cache first if it is not there.
pub fn installed(cli: Cli) -> PathBuf {
    let pinned = pinned(cli);
    let package = pinned["package"].as_str().expect("a package");
    let version = pinned["testedVersion"].as_str().expect("a version");
    let root = cache_root();
    fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let dir = root.join(format!("{}@{version}", package.replace('/', "+")));
    let marker = dir.join(".installed");
    let _lock = FileLock::take(&root.join(format!("{}.lock", package.replace('/', "+"))));
    if !marker.is_file() {
        install(package, version, &dir);
        fs::write(&marker, "").unwrap();
    }
    let bin = dir.join("node_modules/.bin");
    assert!(
        bin.join(cli.name()).exists(),
        "{}: no {} after installing {package}@{version}\n\nhint: remove {} and run the tests again",
        bin.display(),
        cli.name(),
        dir.display()
    );
    bin
}

/// Where the CLIs are kept: `$AWF_AGENT_CLI_CACHE`, else `~/.cache/awf/agent-clis`; outside the
/// checkout, so a fresh clone on the same machine (CI) reuses them.
fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("AWF_AGENT_CLI_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").expect("HOME is set");
    PathBuf::from(home).join(".cache/awf/agent-clis")
}

/// The package and version awf pins for `cli`, read from `awf doctor --json` (the runtime's
/// table is the one place they are written).
fn pinned(cli: Cli) -> Value {
    static REPORT: OnceLock<Value> = OnceLock::new();
    let report = REPORT.get_or_init(|| {
        let ran = AwfCommand::new(awf_bin())
            .args(&["doctor", "--json"])
            .env("PATH", "/usr/bin:/bin")
            .bound(Duration::from_secs(60))
            .run();
        serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|e| panic!("awf doctor --json is not JSON ({e}):\n{}", ran.stdout))
    });
    report["clis"]
        .as_array()
        .and_then(|clis| clis.iter().find(|c| c["name"] == cli.name()))
        .cloned()
        .unwrap_or_else(|| panic!("awf doctor --json does not list {}", cli.name()))
}

fn install(package: &str, version: &str, dir: &Path) {
    let npm = crate::util::which("npm").unwrap_or_else(|| {
        panic!(
            "npm is not on PATH, and this test needs {package}@{version} from npm\n\nhint: install \
             Node.js 20 or later with npm (Debian: apt-get install -y nodejs npm), then run the \
             tests again, or install it yourself: npm install --prefix {} {package}@{version}",
            dir.display()
        )
    });
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).unwrap();
    let ran = AwfCommand::new(npm)
        .args(&["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .arg("--prefix")
        .arg(dir)
        .arg(format!("{package}@{version}"))
        .bound(INSTALL_BOUND)
        .run();
    assert_eq!(
        ran.code,
        Some(0),
        "npm install {package}@{version} into {} failed:\n{}{}\n\nhint: check that the npm \
         registry is reachable, then run the tests again",
        dir.display(),
        ran.stdout,
        ran.stderr
    );
}

/// The project's fake model server, stopped when dropped.
pub struct FakeModel {
    child: Child,
    pub port: u16,
    pub log: PathBuf,
}

impl FakeModel {
    /// Starts `fake-model --api <api>` with `script`, logging under `project`'s `fake-log/`.
    pub fn start(project: &TempProject, api: &str, script: &Value, fail_auth: bool) -> FakeModel {
        let script_path = project.path().join("fake-script.json");
        fs::write(&script_path, script.to_string()).unwrap();
        let log = project.path().join("fake-log");
        let mut command = Command::new(bin_dir().join("fake-model"));
        command
            .args(["--api", api, "--exit-on-stdin-eof", "--script"])
            .arg(&script_path)
            .arg("--log")
            .arg(&log)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if fail_auth {
            command.arg("--fail-auth");
        }
        let mut child = command.spawn().unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e}\n\nhint: build it with cargo build --release --workspace",
                bin_dir().join("fake-model").display()
            )
        });
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let port = first
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("fake-model said {first:?}, not where it listens"));
        FakeModel { child, port, log }
    }

    /// Every request the fake was sent, in order (its log files).
    pub fn requests(&self) -> Vec<Value> {
        let mut files: Vec<PathBuf> = fs::read_dir(&self.log)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.sort();
        files
            .iter()
            .filter_map(|f| serde_json::from_str(&fs::read_to_string(f).ok()?).ok())
            .collect()
    }

    /// The requests that asked for a step of prompt `index` (requests without tools left out).
    pub fn requests_for_prompt(&self, index: u64) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r["decision"]["prompt_index"].as_u64() == Some(index))
            .collect()
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where `project`'s agent CLIs keep their state (`CODEX_HOME`, claude's config folder, ...):
/// outside the temp dir, because codex will not make its `codex-linux-sandbox` helper under it
/// ("Refusing to create helper binaries under temporary dir"), and with a system bubblewrap
/// older than 0.9 (Debian 12's 0.8.0, no `--argv0`) its sandbox then runs no command at all:
/// every command fails with "bwrap: execvp codex-linux-sandbox: No such file or directory".
/// Nobody's real CODEX_HOME is under /tmp either.
pub fn state_dir(project: &TempProject) -> PathBuf {
    let state = project.outside_temp().join("state");
    let temp = fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| std::env::temp_dir());
    assert!(
        !state.starts_with(&temp),
        "{} is under the temp dir {}, where codex's sandbox cannot work\n\nhint: set \
         CARGO_TARGET_DIR to a folder outside it",
        state.display(),
        temp.display()
    );
    fs::create_dir_all(&state).unwrap();
    state
}

/// `awf run` of the live fixture with `cli` as the agent, against `fake`, in `project` (whose
/// `state_dir` holds the CLI's state, and `home/` its HOME).
pub fn run_live(
    project: &TempProject,
    cli: Cli,
    fake: &FakeModel,
    input: &Value,
) -> crate::util::Ran {
    run_fixture(project, "live.ts", cli, fake, input)
}

/// `run_live` of another workflow of the fixture folder.
pub fn run_fixture(
    project: &TempProject,
    file: &str,
    cli: Cli,
    fake: &FakeModel,
    input: &Value,
) -> crate::util::Ran {
    run_with_path(project, file, cli, fake, input, None)
}

/// `run_fixture` with `first` on PATH before everything else.
pub fn run_with_path(
    project: &TempProject,
    file: &str,
    cli: Cli,
    fake: &FakeModel,
    input: &Value,
    first: Option<&Path>,
) -> crate::util::Ran {
    let bin = installed(cli);
    let state = state_dir(project);
    let home = project.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let mut awf = project.awf(&["run", file, "--timeout", "4m", "--"]);
    awf.arg(input.to_string()).bound(LIVE_BOUND);
    let mut path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    if let Some(first) = first {
        path = format!("{}:{path}", first.display());
    }
    awf.env("PATH", path).env("HOME", &home);
    for (name, value) in environment(cli, fake.port, &state) {
        awf.env(&name, value);
    }
    awf.run()
}

/// A bubblewrap that cannot make namespaces, as in a container without user namespaces, in a
/// folder to put first on PATH, where codex looks for it (outside the project: codex passes
/// over a bwrap under its cwd). It answers `--help` with lines of bubblewrap 0.8's help (codex
/// reads them for the options it needs, and uses no bwrap that lacks them) and refuses every
/// sandbox with bubblewrap's own words.
pub fn broken_bubblewrap(project: &TempProject) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = project.outside_temp().join("broken-bwrap");
    fs::create_dir_all(&dir).unwrap();
    let script = r#"#!/bin/sh
if [ "$1" = "--help" ]; then
  cat <<'HELP'
usage: bwrap [OPTIONS...] [--] COMMAND [ARGS...]
    --as-pid-1                   Do not install a reaper process with PID=1
    --cap-add CAP                Add cap CAP when running as privileged user
    --cap-drop CAP               Drop cap CAP when running as privileged user
    --perms OCTAL                Set permissions of next argument (--bind-data, --file, etc.)
    --size BYTES                 Set size of next argument (only for --tmpfs)
    --chmod OCTAL PATH           Change permissions of PATH (must already exist)
HELP
  exit 0
fi
echo "bwrap: No permissions to create a new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2
exit 1
"#;
    let bwrap = dir.join("bwrap");
    fs::write(&bwrap, script).unwrap();
    fs::set_permissions(&bwrap, fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// What points `cli` at the fake on `port`, its state under `state`.
pub fn environment(cli: Cli, port: u16, state: &Path) -> Vec<(String, String)> {
    let url = format!("http://127.0.0.1:{port}");
    let at = |dir: &str| {
        let path = state.join(dir);
        fs::create_dir_all(&path).unwrap();
        path.display().to_string()
    };
    let vars: Vec<(&str, String)> = match cli {
        Cli::Codex => {
            let home = at("codex-home");
            fs::write(
                Path::new(&home).join("config.toml"),
                format!(
                    "model_provider = \"fake\"\ncheck_for_update_on_startup = false\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"{url}/v1\"\nwire_api = \"responses\"\nenv_key = \"FAKE_API_KEY\"\nsupports_websockets = false\nrequest_max_retries = 0\nstream_max_retries = 0\n"
                ),
            )
            .unwrap();
            vec![("CODEX_HOME", home), ("FAKE_API_KEY", "dummy".into())]
        }
        Cli::Claude => vec![
            ("CLAUDE_CONFIG_DIR", at("claude")),
            ("ANTHROPIC_BASE_URL", url),
            ("ANTHROPIC_API_KEY", "dummy".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
        ],
        Cli::Gemini => {
            let home = at("gemini");
            fs::create_dir_all(Path::new(&home).join(".gemini")).unwrap();
            fs::write(
                Path::new(&home).join(".gemini/settings.json"),
                r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
            )
            .unwrap();
            vec![
                ("GEMINI_CLI_HOME", home),
                ("GOOGLE_GEMINI_BASE_URL", url),
                ("GEMINI_API_KEY", "dummy".into()),
            ]
        }
        Cli::Pi => {
            let dir = at("pi");
            let models = json!({"providers": {"fake": {
                "baseUrl": format!("{url}/v1"), "api": "openai-completions", "apiKey": "FAKE_KEY",
                "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
                "models": [{"id": "fake-model"}, {"id": "fake-model-2"}]}}});
            fs::write(Path::new(&dir).join("models.json"), models.to_string()).unwrap();
            vec![
                ("PI_CODING_AGENT_DIR", dir),
                ("PI_OFFLINE", "1".into()),
                ("FAKE_KEY", "dummy".into()),
            ]
        }
        Cli::Opencode => {
            let config = json!({"provider": {"fake": {
                "npm": "@ai-sdk/openai-compatible", "name": "fake",
                "options": {"baseURL": format!("{url}/v1"), "apiKey": "{env:FAKE_KEY}"},
                "models": {"fake-model": {"name": "fake-model"}}}}});
            vec![
                ("XDG_DATA_HOME", at("oc/data")),
                ("XDG_CONFIG_HOME", at("oc/config")),
                ("XDG_CACHE_HOME", at("oc/cache")),
                ("XDG_STATE_HOME", at("oc/state")),
                ("OPENCODE_DISABLE_MODELS_FETCH", "1".into()),
                ("OPENCODE_DISABLE_AUTOUPDATE", "1".into()),
                ("OPENCODE_DISABLE_SHARE", "1".into()),
                ("OPENCODE_CONFIG_CONTENT", config.to_string()),
                ("FAKE_KEY", "dummy".into()),
            ]
        }
    };
    vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
