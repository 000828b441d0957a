//! The bubblewrap provider: an agent's process started as `bwrap [mounts] -- program args`.
//!
//! What the agent sees (docs/agents.md "Sandboxes and worktrees" says it for users):
//! - reads: the whole filesystem read-only, or with `read`, only the system list
//!   (`SYSTEM_READS`), the agent's program and its install, `node`, the `wfa` binary, and the
//!   paths given;
//! - writes: the `write` paths, the agent's own CLI home, a private `/tmp`; nothing else; its
//!   run's folder stays read-only even under a write path, but for what it writes there (its
//!   worktree, its CLI home);
//! - masked (an empty tmpfs, or /dev/null over a file), whatever `read` says: the credential
//!   homes in `sandbox::DENIED_IN_HOME`, the other runs' folders beside this run's, and every other run's
//!   control folder (they live in the host's `/tmp`, which the box replaces);
//! - its launcher and socket (its control folder) bound in, so `wfa` works from inside; the
//!   socket's peer check still holds, since the kernel gives the host's pid of a caller in the
//!   box's pid namespace and bwrap descends from the agent's keeper;
//! - its own pid and IPC namespaces, a new session, `/proc` and `/dev` minimal, and it dies with
//!   its keeper (`--die-with-parent`); its own network namespace (nothing of the host's) unless
//!   `network: true`, reaching the sandbox's proxy through `wfa __bridge` (`network/`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::network::Inside;
use super::{AgentPlace, Network, Sandbox, SandboxError, SandboxProvider};
use crate::harness::Launch;

/// What every sandbox reads even when `read` narrows it: the system's programs, libraries and
/// configuration.
pub const SYSTEM_READS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// The bubblewrap provider: the `bwrap` found on PATH, checked able to make namespaces.
#[derive(Debug)]
pub struct Bubblewrap {
    program: PathBuf,
}

impl Bubblewrap {
    /// `bwrap` from PATH, after a trial sandbox (`true` in the namespaces an agent gets): a
    /// missing bwrap, or one the kernel will not give namespaces, refuses the sandbox `key`
    /// here rather than leave an agent unconfined later.
    pub fn find(key: &str) -> Result<Bubblewrap, SandboxError> {
        let Some(program) = on_path("bwrap") else {
            return Err(SandboxError::NoBubblewrap {
                key: key.to_string(),
            });
        };
        let trial = Command::new(&program)
            .args([
                "--die-with-parent",
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-net",
                "--new-session",
                "--ro-bind",
                "/",
                "/",
                "--proc",
                "/proc",
                "--dev",
                "/dev",
                "true",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output();
        match trial {
            Ok(out) if out.status.success() => Ok(Bubblewrap { program }),
            Ok(out) => Err(SandboxError::NoNamespaces {
                key: key.to_string(),
                why: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            }),
            Err(e) => Err(SandboxError::NoNamespaces {
                key: key.to_string(),
                why: format!("{}: {e}", program.display()),
            }),
        }
    }

    /// The provider of a sandbox only recorded (`Purpose::Record`, scripted agents): `bwrap`
    /// not looked for. Were a launch confined by it, it would run `bwrap` by name and fail
    /// where bubblewrap is missing, never run unconfined.
    pub fn unchecked() -> Bubblewrap {
        Bubblewrap {
            program: PathBuf::from("bwrap"),
        }
    }

    /// bwrap's arguments for `launch` in `sandbox`, up to and including `--`; `net` is what the
    /// box needs to reach its proxy, when it has one.
    fn mounts(
        &self,
        sandbox: &Sandbox,
        agent: &AgentPlace,
        launch: &Launch,
        net: Option<&Inside>,
    ) -> Vec<String> {
        let mut args = Args::default();
        args.flags(&[
            "--die-with-parent",
            "--unshare-pid",
            "--unshare-ipc",
            "--new-session",
        ]);
        if net.is_none() && sandbox.network != Network::All {
            args.flags(&["--unshare-net"]);
        }
        match &sandbox.read {
            None => args.ro_bind(Path::new("/")),
            Some(_) => {
                for system in SYSTEM_READS {
                    args.ro_bind(Path::new(system));
                }
            }
        }
        args.flags(&["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]);
        // After the private /tmp, so what the agent needs and lives under the host's /tmp (a
        // build of awf, an npm install, a read path) is bound back over it.
        let tmp = Path::new("/tmp");
        for path in install_paths(&launch.program, &agent.control) {
            if sandbox.read.is_some() || path.starts_with(tmp) {
                args.ro_bind(&path);
            }
        }
        for path in sandbox.read.iter().flatten() {
            args.ro_bind(path);
        }
        for path in &sandbox.write {
            args.bind(path);
        }
        // A write path holding the run's folder (the project root) does not let the agent
        // rewrite its run's records: the folder is read-only again, and what the agent writes in
        // it (a write path under it: its worktree; its CLI home, below) bound again.
        if sandbox
            .write
            .iter()
            .any(|w| agent.run_folder.starts_with(w))
        {
            args.ro_bind(&agent.run_folder);
            for path in &sandbox.write {
                if path.starts_with(&agent.run_folder) {
                    args.bind(path);
                }
            }
        }
        if let Some(home) = &agent.home {
            args.bind(home);
        }
        args.bind(&agent.control);
        for hidden in agent.hidden() {
            args.mask(&hidden);
        }
        if let Some(net) = net {
            args.0.extend(net.bwrap_args.iter().cloned());
        }
        args.flags(&["--chdir"]);
        args.path(&launch.cwd);
        args.flags(&["--"]);
        args.0
    }
}

impl SandboxProvider for Bubblewrap {
    fn name(&self) -> &'static str {
        "bwrap"
    }

    fn confine(&self, sandbox: &Sandbox, agent: &AgentPlace, launch: Launch) -> Launch {
        let net = sandbox.network_inside(agent, &launch);
        let mut args = self.mounts(sandbox, agent, &launch, net.as_ref());
        let mut env = launch.env.clone();
        if let Some(net) = net {
            args.extend(net.wrapper);
            env.extend(net.env);
        }
        args.push(launch.program.display().to_string());
        args.extend(launch.args.iter().cloned());
        Launch {
            program: self.program.clone(),
            args,
            env,
            ..launch
        }
    }
}

/// bwrap's argument list as it is built.
#[derive(Default)]
struct Args(Vec<String>);

impl Args {
    fn flags(&mut self, flags: &[&str]) {
        self.0.extend(flags.iter().map(|f| f.to_string()));
    }

    fn path(&mut self, path: &Path) {
        self.0.push(path.display().to_string());
    }

    /// `path` read-only at the same place; a symbolic link (`/bin` -> `usr/bin`) as a link.
    fn ro_bind(&mut self, path: &Path) {
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                if let Ok(target) = std::fs::read_link(path) {
                    self.flags(&["--symlink"]);
                    self.path(&target);
                    self.path(path);
                }
            }
            Ok(_) => {
                self.flags(&["--ro-bind"]);
                self.path(path);
                self.path(path);
            }
            Err(_) => {}
        }
    }

    fn bind(&mut self, path: &Path) {
        self.flags(&["--bind"]);
        self.path(path);
        self.path(path);
    }

    /// Hides what is at `path`: a folder behind an empty tmpfs, a file behind /dev/null.
    fn mask(&mut self, path: &Path) {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                self.flags(&["--tmpfs"]);
                self.path(path);
            }
            Ok(_) => {
                self.flags(&["--ro-bind", "/dev/null"]);
                self.path(path);
            }
            Err(_) => {}
        }
    }
}

/// What an agent's program needs to be read when `read` narrows: its folder and its install
/// (the `node_modules` an npm CLI lives in), `node`, and the `wfa` binary its launcher names.
fn install_paths(program: &Path, control: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let program = if program.is_absolute() {
        Some(program.to_path_buf())
    } else {
        on_path(&program.to_string_lossy())
    };
    for found in [program, on_path("node")].into_iter().flatten() {
        if let Some(dir) = found.parent() {
            paths.push(dir.to_path_buf());
        }
        if let Ok(real) = std::fs::canonicalize(&found) {
            let install = real
                .ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == "node_modules"))
                .or(real.parent())
                .map(Path::to_path_buf);
            paths.extend(install);
        }
    }
    if let Ok(wfa) = std::fs::canonicalize(control.join("wfa")) {
        paths.extend(wfa.parent().map(Path::to_path_buf));
    }
    paths.sort();
    paths.dedup();
    paths
}

/// `name` found on PATH, as an executable file (the container engines are looked for so too).
pub(super) fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::SandboxSpec;
    use std::sync::Arc;

    fn sandbox(dir: &Path, network: Network) -> Sandbox {
        Sandbox {
            key: "agent:a".into(),
            spec: SandboxSpec::from_json(&serde_json::json!({}), "sandbox").unwrap(),
            cwd: dir.to_path_buf(),
            read: None,
            write: vec![dir.to_path_buf()],
            network,
            provider: Arc::new(Bubblewrap {
                program: "/usr/bin/bwrap".into(),
            }),
            proxy: None,
            from: None,
        }
    }

    #[test]
    fn wraps_the_launch_masking_credentials_and_other_runs() {
        let root = std::env::temp_dir().join(format!("awf-bwrap-{}", std::process::id()));
        let home = root.join("home");
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".netrc"), "x").unwrap();
        let runs = root.join("work/.awf/runs");
        std::fs::create_dir_all(runs.join("r1")).unwrap();
        std::fs::create_dir_all(runs.join("r0")).unwrap();
        let work = root.join("work");
        let place = AgentPlace {
            runtime: "command",
            control: "/tmp/awf-x/a1".into(),
            run_folder: runs.join("r1"),
            home: None,
            user_home: Some(home.clone()),
        };
        let launch = Launch {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), "true".into()],
            cwd: work.clone(),
            env: vec![],
            env_remove: vec![],
            stdin: None,
            hold_stdin: false,
            container: None,
        };
        let sb = sandbox(&work, Network::None);
        let confined = sb.provider.confine(&sb, &place, launch.clone());
        let line = confined.args.join(" ");
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(confined.program, PathBuf::from("/usr/bin/bwrap"));
        assert!(line.starts_with("--die-with-parent --unshare-pid --unshare-ipc --new-session --unshare-net --ro-bind / /"), "{line}");
        assert!(
            line.contains(&format!("--bind {0} {0}", work.display())),
            "{line}"
        );
        assert!(
            line.contains("--bind /tmp/awf-x/a1 /tmp/awf-x/a1"),
            "{line}"
        );
        assert!(
            line.contains(&format!("--tmpfs {}", home.join(".ssh").display())),
            "{line}"
        );
        assert!(
            line.contains(&format!(
                "--ro-bind /dev/null {}",
                home.join(".netrc").display()
            )),
            "{line}"
        );
        assert!(
            line.contains(&format!("--tmpfs {}", runs.join("r0").display())),
            "{line}"
        );
        assert!(
            !line.contains(&format!("--tmpfs {}", runs.join("r1").display())),
            "{line}"
        );
        assert!(
            line.ends_with(&format!("--chdir {} -- /bin/sh -c true", work.display())),
            "{line}"
        );
        let open = sandbox(&work, Network::All);
        let shared = open.provider.confine(&open, &place, launch);
        assert!(!shared.args.contains(&"--unshare-net".to_string()));
    }

    /// CI builds awf in a clone under /tmp: the agent's program (and wfa) there must be bound
    /// back over the box's private /tmp, after it, or the agent finds nothing to run.
    #[test]
    fn a_program_under_the_hosts_tmp_is_bound_back_over_the_private_tmp() {
        use std::os::unix::fs::PermissionsExt;
        let dir = Path::new("/tmp").join(format!("awf-bwrap-tmp-{}", std::process::id()));
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let program = bin.join("agent");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let place = AgentPlace {
            runtime: "command",
            control: dir.join("control"),
            run_folder: dir.join("runs/r1"),
            home: None,
            user_home: None,
        };
        let launch = Launch {
            program: program.clone(),
            args: vec![],
            cwd: dir.clone(),
            env: vec![],
            env_remove: vec![],
            stdin: None,
            hold_stdin: false,
            container: None,
        };
        let sb = sandbox(&dir, Network::None);
        let line = sb.provider.confine(&sb, &place, launch).args.join(" ");
        std::fs::remove_dir_all(&dir).unwrap();
        let tmpfs = line.find("--tmpfs /tmp").expect("a private /tmp");
        let bound = line
            .find(&format!("--ro-bind {0} {0}", bin.display()))
            .unwrap_or_else(|| panic!("the program's folder is not bound: {line}"));
        assert!(
            bound > tmpfs,
            "bound before the private /tmp hides it: {line}"
        );
    }
}
