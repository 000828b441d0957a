//! The one gate every host call passes before it touches the file system, the network, a child
//! process or the environment.
//!
//! Each host op asks `Permissions` first (`check_read(path)`, `check_write(path)`,
//! `check_net(host)`, `check_run(program)`, `check_env(name)`, `check_child_env(name)`) on the
//! JS thread, before any work starts, and turns a refusal into an error naming what was denied
//! and the flag that would grant it. Hosts allow everything unless given other permissions:
//! `awf run --sandbox` gives `Permissions::sandbox`, deny-by-default with what its `--allow-*`
//! flags grant.
//!
//! Paths are compared after following every symlink (a dangling one too: a write through it
//! would create its target) and applying `..`, so neither leads out of a granted folder. Under a
//! sandbox that does not grant every variable, no process's `/proc/<pid>/environ` is readable.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use super::programs::{Launch, Programs};
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

/// A refused check: which access, to what, and what would grant it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denied {
    pub access: Access,
    pub resource: String,
    pub hint: String,
}

impl Denied {
    /// Denied, with the hint to grant `resource` by its flag.
    pub fn new(access: Access, resource: String) -> Denied {
        let hint = format!(
            "run again with --allow-{}={resource} to grant it",
            access.word()
        );
        Denied {
            access,
            resource,
            hint,
        }
    }

    pub fn with_hint(self, hint: String) -> Denied {
        Denied { hint, ..self }
    }
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
                "hint": denied.hint,
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
    pub run: Programs,
    pub env: Grant,
    /// A folder whose modules may be imported whatever `read` grants: the entry's own.
    pub code: Option<PathBuf>,
}

impl Permissions {
    pub fn allow_all() -> Permissions {
        Permissions {
            read: Grant::All,
            write: Grant::All,
            net: Grant::All,
            run: Programs::All,
            env: Grant::All,
            code: None,
        }
    }

    pub fn deny_all() -> Permissions {
        Permissions {
            read: Grant::Only(Vec::new()),
            write: Grant::Only(Vec::new()),
            net: Grant::Only(Vec::new()),
            run: Programs::none(),
            env: Grant::Only(Vec::new()),
            code: None,
        }
    }

    /// `awf run --sandbox`: nothing, but what each grant gives (`None`: that flag was not given).
    /// Paths are taken from `base` when relative and resolved as the checks resolve them;
    /// programs are found once, now (see `Programs::granted`).
    pub fn sandbox(base: &Path, grants: SandboxGrants) -> Permissions {
        let paths = |grant: Option<Grant>| match grant {
            Some(Grant::Only(paths)) => Grant::Only(
                paths
                    .iter()
                    .map(|p| resolve(&base.join(p), true).display().to_string())
                    .collect(),
            ),
            Some(Grant::All) => Grant::All,
            None => Grant::Only(Vec::new()),
        };
        let nothing = || Grant::Only(Vec::new());
        let search = std::env::var_os("PATH").unwrap_or_default();
        Permissions {
            read: paths(grants.read),
            write: paths(grants.write),
            net: grants.net.unwrap_or_else(nothing),
            run: Programs::granted(grants.run.unwrap_or_else(nothing), base, &search),
            env: grants.env.unwrap_or_else(nothing),
            code: None,
        }
    }

    /// These permissions, with the modules of `dir` importable whatever `read` grants.
    pub fn with_code_in(self, dir: &Path) -> Permissions {
        Permissions {
            code: Some(resolve(dir, true)),
            ..self
        }
    }

    /// Reading `path` (absolute, as the op resolved it), or listing it, or its metadata.
    pub fn check_read(&self, path: &Path) -> Result<(), Denied> {
        if self.read == Grant::All && self.env == Grant::All {
            return Ok(());
        }
        let real = resolve(path, true);
        if self.env != Grant::All && is_environ(&real) {
            let hint = "a process's environment holds all its variables: run again with \
                        --allow-env (without a list) to grant it";
            return Err(
                Denied::new(Access::Read, path.display().to_string()).with_hint(hint.to_string())
            );
        }
        check_real(&self.read, Access::Read, path, &real)
    }

    /// Importing the module file `path` (absolute): a read, unless it is in the entry's folder.
    pub fn check_import(&self, path: &Path) -> Result<(), Denied> {
        match &self.code {
            Some(dir) if self.read != Grant::All && resolve(path, true).starts_with(dir) => Ok(()),
            _ => self.check_read(path),
        }
    }

    /// Writing into `path` (absolute): what a symlink there names is what is written.
    pub fn check_write(&self, path: &Path) -> Result<(), Denied> {
        if self.write == Grant::All {
            return Ok(());
        }
        check_real(&self.write, Access::Write, path, &resolve(path, true))
    }

    /// Creating, removing or renaming the entry `path` (absolute) itself: a symlink there is the
    /// entry, not what it names.
    pub fn check_write_entry(&self, path: &Path) -> Result<(), Denied> {
        if self.write == Grant::All {
            return Ok(());
        }
        check_real(&self.write, Access::Write, path, &resolve(path, false))
    }

    /// Whether `real`, a path with no symlink in it, is in the write set.
    pub fn allows_write_at(&self, real: &Path) -> bool {
        covers(&self.write, real)
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

    /// Starting `program` (as the caller named it: a bare name or a path, relative to `dir`,
    /// the child's working folder): what to start.
    pub fn check_run(&self, program: &str, dir: &Path) -> Result<Launch, Denied> {
        self.run.check(program, dir)
    }

    /// Reading the environment variable `name`.
    pub fn check_env(&self, name: &str) -> Result<(), Denied> {
        let granted = match &self.env {
            Grant::All => true,
            Grant::Only(names) => names.iter().any(|n| n == name),
        };
        deny_unless(granted, Access::Env, name.to_string())
    }

    /// Giving a child process the variable `name` with `value`: a variable that `check_env`
    /// grants. When only some programs may run, the dynamic loader's variables (`LD_PRELOAD`
    /// and the like, which make a granted program run other code) are granted only by naming
    /// them, or passed on unchanged from awf's own environment.
    pub fn check_child_env(&self, name: &str, value: &str) -> Result<(), Denied> {
        if self.run == Programs::All || !loads_code(name) {
            return self.check_env(name);
        }
        let named = matches!(&self.env, Grant::Only(names) if names.iter().any(|n| n == name));
        let inherited = std::env::var_os(name).is_some_and(|own| own == value);
        if named || inherited {
            return Ok(());
        }
        let hint = format!(
            "{name} makes a program load other code, so only naming it grants it: run again \
             with --allow-env={name} to grant it"
        );
        Err(Denied::new(Access::Env, name.to_string()).with_hint(hint))
    }
}

/// Variables that make a dynamically linked program load code it would not: every one of
/// ld.so's `LD_*`, and glibc's others of that kind (iconv modules, getconf's helpers, the
/// loader's tunables).
fn loads_code(name: &str) -> bool {
    name.starts_with("LD_") || ["GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES"].contains(&name)
}

/// `/proc/<pid>/environ` or `/proc/<pid>/task/<tid>/environ`, of any process, as `resolve`
/// leaves them (`self` and `thread-self` are links to these).
fn is_environ(real: &Path) -> bool {
    let parts: Vec<&std::ffi::OsStr> = real.components().skip(1).map(|c| c.as_os_str()).collect();
    let number = |part: &std::ffi::OsStr| {
        let text = part.to_string_lossy();
        !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
    };
    match parts.as_slice() {
        [proc, pid, environ] => *proc == "proc" && number(pid) && *environ == "environ",
        [proc, pid, task, tid, environ] => {
            *proc == "proc"
                && number(pid)
                && *task == "task"
                && number(tid)
                && *environ == "environ"
        }
        _ => false,
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

/// `path` (as asked, for the error) is allowed when `real`, where it leads, is in `grant`.
fn check_real(grant: &Grant, access: Access, path: &Path, real: &Path) -> Result<(), Denied> {
    deny_unless(covers(grant, real), access, path.display().to_string())
}

fn covers(grant: &Grant, real: &Path) -> bool {
    match grant {
        Grant::All => true,
        Grant::Only(roots) => roots.iter().any(|root| real.starts_with(root)),
    }
}

/// Where `path` (absolute) leads: every symlink on the way followed (the last one too, unless
/// `follow_last` is false), a dangling one included, and `..` applied to what was reached. What
/// does not exist is appended as written; a `..` in it, or a loop of links, leads nowhere: the
/// result names no granted place.
pub fn resolve(path: &Path, follow_last: bool) -> PathBuf {
    /// Linux's own bound on the links one lookup follows.
    const MOST_LINKS: usize = 40;
    let nowhere = PathBuf::from("/\0unresolvable");
    let mut pending: Vec<OsString> = parts_reversed(path);
    let mut real = PathBuf::from("/");
    let mut links = 0;
    let mut missing = false;
    while let Some(part) = pending.pop() {
        if part == ".." {
            if missing {
                return nowhere;
            }
            real.pop();
            continue;
        }
        let next = real.join(&part);
        let last = pending.is_empty();
        if missing {
            real = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(meta) if meta.file_type().is_symlink() && (follow_last || !last) => {
                links += 1;
                let Ok(target) = std::fs::read_link(&next) else {
                    return nowhere;
                };
                if links > MOST_LINKS {
                    return nowhere;
                }
                if target.is_absolute() {
                    real = PathBuf::from("/");
                }
                pending.extend(parts_reversed(&target));
            }
            Ok(_) => real = next,
            Err(_) => {
                missing = true;
                real = next;
            }
        }
    }
    real
}

/// The names of `path`'s parts, last first (`.` dropped, `..` kept).
pub(super) fn parts_reversed(path: &Path) -> Vec<OsString> {
    let mut parts: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => None,
        })
        .collect();
    parts.reverse();
    parts
}

pub(super) fn deny_unless(granted: bool, access: Access, resource: String) -> Result<(), Denied> {
    if granted {
        Ok(())
    } else {
        Err(Denied::new(access, resource))
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
        assert!(p.check_run("git", Path::new("/")).is_ok());
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
            p.check_run("git", Path::new("/")).unwrap_err().to_string(),
            "run access to \"git\" is denied"
        );
        assert_eq!(
            p.check_env("HOME").unwrap_err().to_string(),
            "env access to \"HOME\" is denied"
        );
    }

    #[test]
    fn a_denial_becomes_err_access_denied_with_its_resource() {
        let error = OpError::from(
            Permissions::deny_all()
                .check_run("rm", Path::new("/"))
                .unwrap_err(),
        );
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
        assert!(p.check_run("true", &dir).is_err());
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

    #[test]
    fn a_dangling_symlink_is_checked_where_it_leads_and_an_entry_as_itself() {
        let dir = tempfile::tempdir().unwrap();
        let root = resolve(dir.path(), true);
        std::fs::create_dir_all(root.join("allowed")).unwrap();
        std::os::unix::fs::symlink("../denied/new.txt", root.join("allowed/dangling")).unwrap();
        let p = Permissions {
            write: Grant::Only(vec![root.join("allowed").display().to_string()]),
            ..Permissions::deny_all()
        };
        assert_eq!(
            resolve(&root.join("allowed/dangling"), true),
            root.join("denied/new.txt")
        );
        assert!(p.check_write(&root.join("allowed/dangling")).is_err());
        assert!(p.check_write_entry(&root.join("allowed/dangling")).is_ok());
        assert!(p.check_write(&root.join("allowed/new.txt")).is_ok());
    }

    #[test]
    fn every_process_environ_needs_every_variable_granted() {
        let limited = Permissions {
            read: Grant::All,
            ..Permissions::deny_all()
        };
        for path in [
            "/proc/self/environ",
            "/proc/thread-self/environ",
            "/proc/1/environ",
            "/proc/self/task/1/environ",
        ] {
            let denied = limited.check_read(Path::new(path)).unwrap_err();
            assert_eq!(
                denied.hint,
                "a process's environment holds all its variables: run again with --allow-env \
                 (without a list) to grant it",
                "{path}"
            );
        }
        assert!(limited.check_read(Path::new("/proc/self/status")).is_ok());
        let all = Permissions {
            env: Grant::All,
            ..limited
        };
        assert!(all.check_read(Path::new("/proc/self/environ")).is_ok());
    }

    #[test]
    fn a_childs_loader_variables_are_granted_only_by_name() {
        assert!(Permissions::allow_all()
            .check_child_env("LD_PRELOAD", "/x.so")
            .is_ok());
        let all = Permissions {
            env: Grant::All,
            ..Permissions::deny_all()
        };
        assert!(all.check_child_env("ANYTHING", "x").is_ok());
        assert!(all.check_child_env("LD_PRELOAD", "/x.so").is_err());
        assert!(all.check_child_env("GCONV_PATH", "/x").is_err());
        let named = Permissions {
            env: Grant::Only(vec!["LD_PRELOAD".into()]),
            ..Permissions::deny_all()
        };
        assert!(named.check_child_env("LD_PRELOAD", "/x.so").is_ok());
        assert!(named.check_child_env("LD_AUDIT", "/x.so").is_err());
        assert_eq!(
            named.check_child_env("OTHER", "x").unwrap_err().hint,
            "run again with --allow-env=OTHER to grant it"
        );
    }
}
