//! codex, claude, pi, gemini and opencode live inside an awf sandbox (issue 26): each real CLI
//! from npm, against the fake model on 127.0.0.1, edits a file in its cwd and fails to write
//! beside it, with its own gate open inside the box (codex without its own sandbox, claude
//! bypassing permissions, gemini in yolo mode, opencode with every permission allowed, pi has
//! none), reading its login from and writing its session (and opencode its cache) to its own CLI home
//! (`<run>/agents/<key>/home`, harness/home.rs), never the CLI folder the user's environment
//! names. The boxes have the default network (none but the CLI's model API, through awf's
//! proxy): the fake on 127.0.0.1 is that API. Everything is checked on the host: the files, the
//! home's contents, the fake's log.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::live::{run_fixture, state_dir, Cli, FakeModel};
use crate::util::TempProject;

/// One agent `a` in a sandbox of the default network, in the cwd the input names; one turn, its
/// outcome returned.
const WORKFLOW: &str = r#"interface Input {
  runtime: object;
  cwd: string;
}

export default defineWorkflow({
  meta: { name: "boxed", description: "A real agent CLI in a sandbox edits its cwd." },
  prepare: ({ argv }) => JSON.parse(argv[0]) as Input,
  async run(wf, input: Input) {
    const agent = await wf.agents.open({
      key: "a",
      runtime: input.runtime as never,
      cwd: input.cwd,
      sandbox: {},
    });
    const turn = await agent.run({
      prompt: "Write notes.txt in your folder, try to write beside it, then answer.",
      schema: typed(Type.Object({ ok: Type.Boolean() })),
      timeout: "2m",
    });
    return turn.outcome;
  },
});
"#;

/// The model's steps: the edit, the escape (its exit status kept in the cwd), the answer.
fn script(beside: &Path) -> Value {
    let escape = format!(
        "printf escaped > {}/escaped.txt; echo \"exit $?\" > attempt.txt",
        beside.display()
    );
    json!({"prompts": [{"steps": [
        {"shell": "printf 'edited in the box' > notes.txt"},
        {"shell": escape},
        {"shell": "{wfa} result {turn} --ok 'true'"},
        {"text": "Done."},
    ]}]})
}

/// What a run of `cli` in a sandbox left on the host.
struct Boxed {
    project: TempProject,
    work: PathBuf,
    beside: PathBuf,
    fake: FakeModel,
    outcome: Value,
    /// The agent's CLI home, as agent-opened records it.
    home: PathBuf,
}

/// Runs `cli` in a sandbox whose cwd (`work`) and neighbour (`beside`) are outside /tmp, so
/// that what the box makes read-only is the host's own folder, not the box's private /tmp.
fn run_boxed(cli: Cli) -> Boxed {
    let project = TempProject::new();
    let outside = project.outside_temp();
    let work = outside.join("work");
    let beside = outside.join("beside");
    fs::create_dir_all(&work).unwrap();
    fs::create_dir_all(&beside).unwrap();
    project.file("boxed.ts", WORKFLOW);
    let fake = FakeModel::start(&project, cli.api(), &script(&beside), false);
    let input = json!({
        "runtime": cli.runtime(),
        "cwd": work.display().to_string(),
    });
    let ran = run_fixture(&project, "boxed.ts", cli, &fake, &input);
    let outcome = ran.assert_success().json();
    let opened = project.events_of("boxed", "agent-opened");
    assert_eq!(
        opened[0]["sandbox"]["network"],
        json!(false),
        "the box was to have the default network: {}",
        opened[0]
    );
    let home = PathBuf::from(
        opened[0]["home"]
            .as_str()
            .unwrap_or_else(|| panic!("agent-opened records no home: {}", opened[0])),
    );
    Boxed {
        project,
        work,
        beside,
        fake,
        outcome,
        home,
    }
}

impl Boxed {
    /// The agent answered, edited its cwd, could not write beside it, and the model was asked
    /// (through the box's proxy: the box has no other route).
    fn assert_confined_edit(&self) {
        let mut outcome = self.outcome.clone();
        if let Some(fields) = outcome.as_object_mut() {
            fields.remove("usage");
        }
        assert_eq!(
            outcome,
            json!({"kind": "answered", "answered": true, "value": {"ok": true}})
        );
        assert_eq!(
            fs::read_to_string(self.work.join("notes.txt")).unwrap(),
            "edited in the box"
        );
        assert!(
            !self.beside.join("escaped.txt").exists(),
            "the agent wrote beside its cwd"
        );
        let attempt = fs::read_to_string(self.work.join("attempt.txt"))
            .expect("the escape ran and kept its exit status");
        assert_ne!(
            attempt.trim(),
            "exit 0",
            "the write beside the cwd succeeded"
        );
        assert!(
            self.fake.requests().len() >= 4,
            "the model was asked once per step: {:?}",
            self.fake.requests().len()
        );
    }

    /// The home is the run's `agents/a/home`, seeded and written by the CLI, and the CLI folder
    /// the environment named (`state/<name>`) got nothing of the turn.
    fn assert_own_home(&self, state_name: &str, written: &str) {
        let runs = self.project.path().join(".awf/runs");
        assert!(
            self.home.starts_with(&runs) && self.home.ends_with("agents/a/home"),
            "{}",
            self.home.display()
        );
        assert!(
            self.home.join(written).exists(),
            "the CLI wrote no {written} in its home {}: {:?}",
            self.home.display(),
            listing(&self.home)
        );
        let users = state_dir(&self.project).join(state_name);
        assert!(
            !users.join(written).exists(),
            "the CLI wrote {written} into the folder its environment named ({})",
            users.display()
        );
    }
}

/// The names in `dir`, for a failure's message.
fn listing(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Every file under `dir` whose text holds `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if fs::read_to_string(&path).is_ok_and(|text| text.contains(needle)) {
            found.push(path);
        }
    }
    found
}

#[test]
fn codex_in_a_sandbox_edits_its_cwd_without_its_own_sandbox() {
    let boxed = run_boxed(Cli::Codex);
    boxed.assert_confined_edit();
    boxed.assert_own_home("codex-home", "sessions");
    // Seeded with the config that points it at the fake, copied, private.
    let config = boxed.home.join("config.toml");
    assert!(fs::read_to_string(&config).unwrap().contains("127.0.0.1"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        fs::metadata(&config).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // Its session says it ran with its own sandbox off: awf's box is the gate.
    let sessions = boxed.home.join("sessions");
    assert!(
        !files_holding(&sessions, "danger-full-access").is_empty(),
        "codex's session does not say danger-full-access"
    );
}

#[test]
fn claude_in_a_sandbox_edits_its_cwd_bypassing_permissions() {
    let boxed = run_boxed(Cli::Claude);
    boxed.assert_confined_edit();
    boxed.assert_own_home("claude", "projects");
}

#[test]
fn pi_in_a_sandbox_edits_its_cwd() {
    let boxed = run_boxed(Cli::Pi);
    boxed.assert_confined_edit();
    boxed.assert_own_home("pi", "sessions");
    assert!(
        fs::read_to_string(boxed.home.join("models.json"))
            .unwrap()
            .contains("127.0.0.1"),
        "pi's models.json was not copied into its home"
    );
}

#[test]
fn gemini_in_a_sandbox_edits_its_cwd_in_yolo_mode() {
    let boxed = run_boxed(Cli::Gemini);
    boxed.assert_confined_edit();
    boxed.assert_own_home("gemini", ".gemini/tmp");
    assert!(
        fs::read_to_string(boxed.home.join(".gemini/settings.json"))
            .unwrap()
            .contains("gemini-api-key"),
        "gemini's settings.json was not copied into its home"
    );
}

#[test]
fn opencode_in_a_sandbox_edits_its_cwd_with_a_cache_of_its_own() {
    let boxed = run_boxed(Cli::Opencode);
    boxed.assert_confined_edit();
    // Its data (sessions) and its cache in its own home, nothing in the folders its
    // environment named (awf's own cache is there too).
    for (own, users) in [("data/opencode", "oc/data"), ("cache/opencode", "oc/cache")] {
        let written = listing(&boxed.home.join(own));
        assert!(
            !written.is_empty(),
            "opencode wrote nothing in {own} of its home: {:?}",
            listing(&boxed.home)
        );
        let named = state_dir(&boxed.project).join(users).join("opencode");
        assert!(
            !named.exists(),
            "opencode wrote into {}: {:?}",
            named.display(),
            listing(&named)
        );
    }
}
