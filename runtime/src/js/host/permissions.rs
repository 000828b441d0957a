//! The one gate every host call passes before it touches the file system, the network, a child
//! process or the environment.
//!
//! Each host op asks `Permissions` first (`check_read(path)`, `check_write(path)`,
//! `check_net(host)`, `check_run(program)`, `check_env(name)`) on the JS thread, before any work
//! starts, and turns a refusal into an error naming what was denied and the flag that would grant
//! it. Hosts allow everything unless given other permissions: `awf run --sandbox` gives
//! `Permissions::sandbox`, deny-by-default with what its `--allow-*` flags grant.
//!
//! Paths are compared after resolving symlinks and `..` (of the path, or of its nearest existing
//! ancestor for a path not made yet), so neither leads out of a granted folder.

use std::path::{Path, PathBuf};

use crate::js::engine::OpError;

/// What one kind of access is granted to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    /// Everything.
    All,
    /// Only these: paths (and what is under them), hosts (`name` or `name:port`), programs or
    /// variable names, by kind. An empty list grants nothing.
    Only(Vec<String>),
}

/// The kinds of access the gate knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Net,
    Run,
    Env,
}

impl Access {
    /// The word in error texts and in the future flag (`--allow-<word>`).
    pub fn word(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
            Access::Net => "net",
            Access::Run => "run",
            Access::Env => "env",
        }
    }
}

/// A refused check: which access, to what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    pub access: Access,
    pub resource: String,
}

impl std::fmt::Display for Denied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} access to \"{}\" is denied",
            self.access.word(),
            self.resource
        )
    }
}

impl From<Denied> for OpError {
    /// `ERR_ACCESS_DENIED` (Node's code for its permission model), with `permission`,
    /// `resource` and the `hint` naming the flag on the JS error.
    fn from(denied: Denied) -> OpError {
        OpError::system(
            "ERR_ACCESS_DENIED",
            denied.to_string(),
            serde_json::json!({
                "permission": denied.access.word(),
                "resource": denied.resource,
                "hint": format!(
                    "run again with --allow-{}={} to grant it",
                    denied.access.word(),
                    denied.resource
                ),
            }),
        )
    }
}

/// What a host may touch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permissions {
    pub read: Grant,
    pub write: Grant,
    pub net: Grant,
    pub run: Grant,
    pub env: Grant,
}

impl Permissions {
    pub fn allow_all() -> Permissions {
        Permissions {
            read: Grant::All,
            write: Grant::All,
            net: Grant::All,
            run: Grant::All,
            env: Grant::All,
        }
    }

    pub fn deny_all() -> Permissions {
        Permissions {
            read: Grant::Only(Vec::new()),
            write: Grant::Only(Vec::new()),
            net: Grant::Only(Vec::new()),
            run: Grant::Only(Vec::new()),
            env: Grant::Only(Vec::new()),
        }
    }

    /// `awf run --sandbox`: nothing, but what each grant gives (`None`: that flag was not given).
    /// Paths are taken from `base` when relative and resolved as the checks resolve them.
    pub fn sandbox(base: &Path, grants: SandboxGrants) -> Permissions {
        let paths = |grant: Option<Grant>| match grant {
            Some(Grant::Only(paths)) => Grant::Only(
                paths
                    .iter()
                    .map(|p| resolve(&base.join(p)).display().to_string())
                    .collect(),
            ),
            Some(Grant::All) => Grant::All,
            None => Grant::Only(Vec::new()),
        };
        let nothing = || Grant::Only(Vec::new());
        Permissions {
            read: paths(grants.read),
            write: paths(grants.write),
            net: grants.net.unwrap_or_else(nothing),
            run: grants.run.unwrap_or_else(nothing),
            env: grants.env.unwrap_or_else(nothing),
        }
    }

    /// Reading `path` (absolute, as the op resolved it), or listing it, or its metadata.
    pub fn check_read(&self, path: &Path) -> Result<(), Denied> {
        check_path(&self.read, Access::Read, path)
    }

    /// Creating, changing or removing `path` (absolute).
    pub fn check_write(&self, path: &Path) -> Result<(), Denied> {
        check_path(&self.write, Access::Write, path)
    }

    /// Connecting to `host` at `port`.
    pub fn check_net(&self, host: &str, port: u16) -> Result<(), Denied> {
        let with_port = format!("{host}:{port}");
        let granted = match &self.net {
            Grant::All => true,
            Grant::Only(hosts) => hosts.iter().any(|h| *h == host || *h == with_port),
        };
        deny_unless(granted, Access::Net, with_port)
    }

    /// Starting `program` (as the caller named it: a bare name or a path).
    pub fn check_run(&self, program: &str) -> Result<(), Denied> {
        let granted = match &self.run {
            Grant::All => true,
            Grant::Only(programs) => programs.iter().any(|p| p == program),
        };
        deny_unless(granted, Access::Run, program.to_string())
    }

    /// Reading the environment variable `name`.
    pub fn check_env(&self, name: &str) -> Result<(), Denied> {
        let granted = match &self.env {
            Grant::All => true,
            Grant::Only(names) => names.iter().any(|n| n == name),
        };
        deny_unless(granted, Access::Env, name.to_string())
    }
}

/// What `--allow-read`, `--allow-write`, `--allow-net`, `--allow-run` and `--allow-env` grant:
/// `None` when the flag is absent, `Grant::All` when it is given without a list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SandboxGrants {
    pub read: Option<Grant>,
    pub write: Option<Grant>,
    pub net: Option<Grant>,
    pub run: Option<Grant>,
    pub env: Option<Grant>,
}

fn check_path(grant: &Grant, access: Access, path: &Path) -> Result<(), Denied> {
    let granted = match grant {
        Grant::All => true,
        Grant::Only(roots) => {
            let real = resolve(path);
            roots
                .iter()
                .any(|root| real.starts_with(PathBuf::from(root)))
        }
    };
    deny_unless(granted, access, path.display().to_string())
}

/// `path` with symlinks and `..` resolved: of the path itself, or of its nearest existing
/// ancestor with the rest appended (a `..` in that rest cannot be resolved: the result names
/// no granted place).
fn resolve(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = std::fs::canonicalize(at) {
            let mut out = real;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            // A `..` that cannot be resolved, or no existing ancestor at all.
            _ => return PathBuf::from("/\0unresolvable"),
        }
    }
}

fn deny_unless(granted: bool, access: Access, resource: String) -> Result<(), Denied> {
    if granted {
        Ok(())
    } else {
        Err(Denied { access, resource })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_all_allows_everything() {
        let p = Permissions::allow_all();
        assert!(p.check_read(Path::new("/etc/passwd")).is_ok());
        assert!(p.check_write(Path::new("/tmp/x")).is_ok());
        assert!(p.check_net("example.com", 443).is_ok());
        assert!(p.check_run("git").is_ok());
        assert!(p.check_env("HOME").is_ok());
    }

    #[test]
    fn deny_all_names_what_was_denied() {
        let p = Permissions::deny_all();
        let denied = p.check_read(Path::new("/etc/passwd")).unwrap_err();
        assert_eq!(
            denied.to_string(),
            "read access to \"/etc/passwd\" is denied"
        );
        assert_eq!(
            p.check_write(Path::new("/tmp/x")).unwrap_err().to_string(),
            "write access to \"/tmp/x\" is denied"
        );
        assert_eq!(
            p.check_net("127.0.0.1", 8080).unwrap_err().to_string(),
            "net access to \"127.0.0.1:8080\" is denied"
        );
        assert_eq!(
            p.check_run("git").unwrap_err().to_string(),
            "run access to \"git\" is denied"
        );
        assert_eq!(
            p.check_env("HOME").unwrap_err().to_string(),
            "env access to \"HOME\" is denied"
        );
    }

    #[test]
    fn a_denial_becomes_err_access_denied_with_its_resource() {
        let error = OpError::from(Permissions::deny_all().check_run("rm").unwrap_err());
        assert_eq!(error.code, "ERR_ACCESS_DENIED");
        assert_eq!(error.message, "run access to \"rm\" is denied");
        let data = error.data.unwrap();
        assert_eq!(data["permission"], "run");
        assert_eq!(data["resource"], "rm");
    }

    #[test]
    fn a_sandbox_grants_only_its_flags_and_symlinks_or_dotdot_do_not_lead_out() {
        let dir = std::env::temp_dir().join(format!("awf-sandbox-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("granted")).unwrap();
        std::fs::write(dir.join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(dir.join("secret"), dir.join("granted/link")).unwrap();
        let p = Permissions::sandbox(
            &dir,
            SandboxGrants {
                read: Some(Grant::Only(vec!["granted".into()])),
                env: Some(Grant::All),
                ..SandboxGrants::default()
            },
        );
        assert!(p.check_read(&dir.join("granted/new.txt")).is_ok());
        assert!(p.check_read(&dir.join("granted/a/b/new.txt")).is_ok());
        assert!(p.check_read(&dir.join("granted/link")).is_err());
        assert!(p.check_read(&dir.join("granted/../secret")).is_err());
        assert!(p
            .check_read(&dir.join("granted/nothing/../../secret"))
            .is_err());
        assert!(p.check_write(&dir.join("granted/new.txt")).is_err());
        assert!(p.check_net("127.0.0.1", 80).is_err());
        assert!(p.check_run("true").is_err());
        assert!(p.check_env("HOME").is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_denial_names_the_flag_that_grants_it() {
        let error = OpError::from(
            Permissions::deny_all()
                .check_net("127.0.0.1", 9)
                .unwrap_err(),
        );
        assert_eq!(
            error.data.unwrap()["hint"],
            "run again with --allow-net=127.0.0.1:9 to grant it"
        );
    }

    #[test]
    fn listed_grants_cover_paths_below_and_hosts_with_or_without_port() {
        let p = Permissions {
            read: Grant::Only(vec!["/work".into()]),
            net: Grant::Only(vec!["localhost".into(), "127.0.0.1:9000".into()]),
            ..Permissions::deny_all()
        };
        assert!(p.check_read(Path::new("/work/a/b.txt")).is_ok());
        assert!(p.check_read(Path::new("/workshop")).is_err());
        assert!(p.check_net("localhost", 1).is_ok());
        assert!(p.check_net("127.0.0.1", 9000).is_ok());
        assert!(p.check_net("127.0.0.1", 9001).is_err());
    }
}
