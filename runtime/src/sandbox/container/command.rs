//! The `<engine> run` command line that runs one of an agent's processes in a container: its
//! name and labels, uid, mounts, network, environment (by name) and the program behind
//! `wfa __bridge`. mod.rs says what the container is given and why.

use std::path::{Path, PathBuf};

use super::engine::{Engine, LABEL_AGENT, LABEL_CONTROL, LABEL_RUN};
use super::spec::EngineKind;
use crate::harness::Launch;
use crate::sandbox::network::Inside;
use crate::sandbox::{AgentPlace, Network, Sandbox};

/// The host's own variables: meaningless or harmful in an image (its `PATH` is the image's),
/// or the engine's own configuration. `HOME` passes only when the agent's launch sets it (its
/// own CLI home, mounted); the user's home is not in the container.
const HOST_ONLY: &[&str] = &[
    "PATH",
    "HOME",
    "PWD",
    "OLDPWD",
    "SHLVL",
    "_",
    "TMPDIR",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "SHELL",
    "HOSTNAME",
    "MAIL",
    "XDG_RUNTIME_DIR",
    "DBUS_SESSION_BUS_ADDRESS",
    "SSH_AUTH_SOCK",
    "NOTIFY_SOCKET",
    "LISTEN_FDS",
    "LISTEN_PID",
    "INVOCATION_ID",
    "JOURNAL_STREAM",
    "CONTAINERS_CONF",
    "CONTAINERS_STORAGE_CONF",
    "CONTAINER_HOST",
    "DOCKER_HOST",
    "DOCKER_CONFIG",
    "container",
];

/// One container's `run`.
pub struct RunLine<'a> {
    pub engine: &'a Engine,
    pub image: &'a str,
    /// The author's `args`, before the image.
    pub extra: &'a [String],
    pub name: String,
}

/// `awf-<run's control folder's word>-<agent's folder>-<n>`: unique on the machine, and says
/// whose it is.
pub fn container_name(agent: &AgentPlace, n: u64) -> String {
    let word = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().trim_start_matches("awf-").to_string())
            .unwrap_or_default()
    };
    let raw = format!(
        "awf-{}-{}-{n}",
        word(agent.control.parent()),
        word(Some(&agent.control))
    );
    raw.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

impl RunLine<'_> {
    /// `launch` as `<engine> run ... IMAGE wfa __bridge [--listen ...] -- PROGRAM ARGS`.
    pub fn launch(
        &self,
        sandbox: &Sandbox,
        agent: &AgentPlace,
        launch: Launch,
        net: Option<Inside>,
    ) -> Launch {
        let mut env = launch.env.clone();
        let mut wrapper = vec![
            agent.control.join("wfa").display().to_string(),
            "__bridge".to_string(),
            "--".to_string(),
        ];
        if let Some(net) = &net {
            env.extend(net.env.iter().cloned());
            wrapper = net.wrapper.clone();
        }
        let mut args: Vec<String> = vec![
            "run".into(),
            "--rm".into(),
            "--interactive".into(),
            "--pull=never".into(),
            "--name".into(),
            self.name.clone(),
        ];
        let run_id = agent
            .run_folder
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let control = agent.control.parent().unwrap_or(&agent.control);
        for (label, value) in [
            (LABEL_RUN, run_id),
            (LABEL_CONTROL, control.display().to_string()),
            (LABEL_AGENT, agent.control.display().to_string()),
        ] {
            args.push("--label".into());
            args.push(format!("{label}={value}"));
        }
        args.extend(self.user());
        args.push(match (&net, &sandbox.network) {
            (None, Network::All) => "--network=host".into(),
            _ => "--network=none".into(),
        });
        let mounts = mounts(sandbox, agent, &launch);
        if !mounts.iter().any(|m| m.path == Path::new("/tmp")) {
            args.extend(["--tmpfs".into(), "/tmp".into()]);
        }
        for mount in &mounts {
            args.extend(mount.args());
        }
        for name in passed_names(&env, &launch.env_remove) {
            args.push("--env".into());
            args.push(name);
        }
        args.push("--workdir".into());
        args.push(launch.cwd.display().to_string());
        args.push("--entrypoint".into());
        args.push(wrapper[0].clone());
        args.extend(self.extra.iter().cloned());
        args.push(self.image.to_string());
        args.extend(wrapper[1..].iter().cloned());
        args.push(launch.program.display().to_string());
        args.extend(launch.args.iter().cloned());
        Launch {
            program: self.engine.program.clone(),
            args,
            env,
            container: Some(self.name.clone()),
            ..launch
        }
    }

    /// Runs as awf's uid and gid: rootless podman maps them to themselves (`keep-id`).
    fn user(&self) -> Vec<String> {
        // SAFETY: plain syscalls.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        if self.engine.kind == EngineKind::Podman && uid != 0 {
            vec!["--userns=keep-id".into()]
        } else {
            vec!["--user".into(), format!("{uid}:{gid}")]
        }
    }
}

/// The variables passed into the container by name (their values are in the engine's own
/// environment): what the launch sets and what it inherits, but the host's own and those the
/// launch withholds.
fn passed_names(env: &[(String, String)], removed: &[String]) -> Vec<String> {
    let set: Vec<&str> = env.iter().map(|(n, _)| n.as_str()).collect();
    let mut names: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|n| !HOST_ONLY.contains(&n.as_str()) && !removed.contains(n))
        .collect();
    names.extend(
        set.iter()
            .filter(|n| **n == "HOME" || !HOST_ONLY.contains(n))
            .map(|n| n.to_string()),
    );
    names.retain(|n| !n.is_empty() && !n.contains('='));
    names.sort();
    names.dedup();
    names
}

/// What the container sees of the host's files.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    ReadOnly,
    ReadWrite,
    /// Hidden: an empty tmpfs over a folder, /dev/null over a file.
    Masked {
        folder: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Mount {
    path: PathBuf,
    kind: Kind,
    /// For a file mounted at a path that names it through a link (the launcher's `wfa`).
    source: Option<PathBuf>,
}

impl Mount {
    fn args(&self) -> Vec<String> {
        let path = self.path.display();
        let spec = match &self.kind {
            Kind::ReadWrite => format!("type=bind,source={path},destination={path}"),
            Kind::ReadOnly => {
                let source = self.source.as_deref().unwrap_or(&self.path).display();
                format!("type=bind,source={source},destination={path},ro")
            }
            Kind::Masked { folder: true } => format!("type=tmpfs,destination={path}"),
            Kind::Masked { folder: false } => {
                format!("type=bind,source=/dev/null,destination={path},ro")
            }
        };
        vec!["--mount".into(), spec]
    }
}

/// The mounts of `launch` in `sandbox`: write paths, the agent's CLI home and control folder
/// read-write; the sandbox's and the launch's cwd, read paths, the proxy's folder and the `wfa`
/// binary read-only, each unless a mount above it already gives it; the run's folder read-only
/// again under a write path that holds it (but what the agent writes there); the credential
/// homes and the other runs' folders masked where a mount would show them.
fn mounts(sandbox: &Sandbox, agent: &AgentPlace, launch: &Launch) -> Vec<Mount> {
    let mut writes: Vec<PathBuf> = sandbox.write.clone();
    writes.extend(agent.home.iter().cloned());
    writes.push(agent.control.clone());
    let mut reads: Vec<PathBuf> = vec![sandbox.cwd.clone(), launch.cwd.clone()];
    reads.extend(sandbox.read.iter().flatten().cloned());
    if let Some(proxy) = &sandbox.proxy {
        reads.push(proxy.dir().to_path_buf());
    }
    let run_folder_guarded = writes.iter().any(|w| agent.run_folder.starts_with(w));
    let mut mounts: Vec<Mount> = Vec::new();
    let kept_writes: Vec<PathBuf> = writes
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            (run_folder_guarded && w.starts_with(&agent.run_folder))
                || !writes
                    .iter()
                    .enumerate()
                    .any(|(j, other)| j != *i && w.starts_with(other) && (other != *w || j < *i))
        })
        .map(|(_, w)| w.clone())
        .collect();
    for path in &kept_writes {
        mounts.push(Mount {
            path: path.clone(),
            kind: Kind::ReadWrite,
            source: None,
        });
    }
    let mut kept_reads: Vec<PathBuf> = Vec::new();
    for path in reads {
        let covered = writes.iter().any(|w| path.starts_with(w))
            || kept_reads.iter().any(|r| path.starts_with(r));
        if !covered {
            kept_reads.retain(|r| !r.starts_with(&path));
            kept_reads.push(path);
        }
    }
    for path in kept_reads {
        mounts.push(Mount {
            path,
            kind: Kind::ReadOnly,
            source: None,
        });
    }
    if run_folder_guarded && !kept_writes.contains(&agent.run_folder) {
        mounts.push(Mount {
            path: agent.run_folder.clone(),
            kind: Kind::ReadOnly,
            source: None,
        });
    }
    if let Some((link, binary)) = wfa_binary(&agent.control) {
        mounts.push(Mount {
            path: link,
            kind: Kind::ReadOnly,
            source: Some(binary),
        });
    }
    let shown = |path: &Path| mounts.iter().any(|m| path.starts_with(&m.path));
    let masks: Vec<Mount> = agent
        .hidden()
        .into_iter()
        .filter(|p| shown(p))
        .filter_map(|path| {
            let meta = std::fs::metadata(&path).ok()?;
            Some(Mount {
                path,
                kind: Kind::Masked {
                    folder: meta.is_dir(),
                },
                source: None,
            })
        })
        .collect();
    mounts.extend(masks);
    mounts
}

/// The `wfa` binary the agent's launcher links to: (the link's target as written, the binary).
fn wfa_binary(control: &Path) -> Option<(PathBuf, PathBuf)> {
    let launcher = control.join("wfa");
    let target = std::fs::read_link(&launcher).ok()?;
    let target = if target.is_absolute() {
        target
    } else {
        control.join(target)
    };
    let binary = std::fs::canonicalize(&launcher).ok()?;
    Some((target, binary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{Purpose, SandboxSpec};

    fn place(root: &Path) -> AgentPlace {
        AgentPlace {
            runtime: "command",
            control: root.join("awf-abc123/w0rd"),
            run_folder: root.join("work/.awf/runs/r1"),
            home: None,
            user_home: Some(root.join("home")),
        }
    }

    /// A podman sandbox as `awf test` opens it (no engine looked for), writing `write`.
    fn sandbox(work: &Path, write: &[&Path], network: bool) -> Sandbox {
        let write: Vec<String> = write.iter().map(|p| p.display().to_string()).collect();
        let written = serde_json::json!({
            "podman": {"image": "busybox", "args": ["--memory", "1g"]},
            "write": write,
            "network": network,
        });
        let spec = SandboxSpec::from_json(&written, "s").unwrap();
        Sandbox::open("agent:a".into(), spec, work, None, work, Purpose::Record).unwrap()
    }

    fn launch(cwd: &Path) -> Launch {
        Launch {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), "true".into()],
            cwd: cwd.to_path_buf(),
            env: vec![("AWF_TURN".into(), "t1".into())],
            env_remove: vec!["SECRET_NOT_PASSED".into()],
            stdin: None,
            hold_stdin: false,
            container: None,
        }
    }

    #[test]
    fn runs_the_program_behind_the_bridge_with_its_grants_mounted() {
        let root = std::env::temp_dir().join(format!("awf-container-{}", std::process::id()));
        let work = root.join("work");
        std::fs::create_dir_all(work.join(".awf/runs/r0")).unwrap();
        std::fs::create_dir_all(work.join(".awf/runs/r1")).unwrap();
        std::fs::create_dir_all(root.join("home/.ssh")).unwrap();
        let agent = place(&root);
        let sb = sandbox(&work, &[&work], false);
        let confined = sb.provider.confine(&sb, &agent, launch(&work));
        let line = confined.args.join(" ");
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(confined.program, PathBuf::from("podman"));
        assert!(
            line.starts_with(
                "run --rm --interactive --pull=never --name awf-abc123-w0rd-1 --label awf.run=r1"
            ),
            "{line}"
        );
        assert!(
            line.contains(&format!(
                "--label awf.control={}",
                root.join("awf-abc123").display()
            )),
            "{line}"
        );
        assert!(line.contains("--network=none"), "{line}");
        let w = work.display();
        assert!(
            line.contains(&format!("--mount type=bind,source={w},destination={w} ")),
            "{line}"
        );
        assert!(
            line.contains(&format!(
                "--mount type=bind,source={w}/.awf/runs/r1,destination={w}/.awf/runs/r1,ro"
            )),
            "the run folder stays read-only: {line}"
        );
        assert!(
            line.contains(&format!("--mount type=tmpfs,destination={w}/.awf/runs/r0")),
            "other runs masked: {line}"
        );
        assert!(
            !line.contains(".ssh"),
            "the home is not mounted, so nothing to mask: {line}"
        );
        assert!(line.contains("--env AWF_TURN"), "{line}");
        assert!(
            !line.contains("t1"),
            "values stay off the command line: {line}"
        );
        assert!(!line.contains("--env PATH"), "{line}");
        assert!(
            line.contains(&format!(
                "--workdir {w} --entrypoint {}/wfa --memory 1g busybox __bridge -- /bin/sh -c true",
                agent.control.display()
            )),
            "{line}"
        );
        assert_eq!(
            confined.env,
            vec![("AWF_TURN".to_string(), "t1".to_string())]
        );
    }

    #[test]
    fn a_cwd_without_a_write_grant_is_read_only_and_the_host_network_is_given_when_granted() {
        let root = std::env::temp_dir().join(format!("awf-container-ro-{}", std::process::id()));
        let work = root.join("work");
        let out = root.join("out");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        let agent = place(&root);
        let sb = sandbox(&work, &[&out], true);
        let line = sb
            .provider
            .confine(&sb, &agent, launch(&work))
            .args
            .join(" ");
        std::fs::remove_dir_all(&root).unwrap();
        let (w, o) = (work.display(), out.display());
        assert!(
            line.contains(&format!("--mount type=bind,source={w},destination={w},ro")),
            "{line}"
        );
        assert!(
            line.contains(&format!("--mount type=bind,source={o},destination={o} ")),
            "{line}"
        );
        assert!(line.contains("--network=host"), "{line}");
        assert!(line.contains("--tmpfs /tmp"), "{line}");
    }

    #[test]
    fn names_say_whose_container_it_is() {
        let agent = place(Path::new("/tmp"));
        assert_eq!(container_name(&agent, 7), "awf-abc123-w0rd-7");
    }
}
