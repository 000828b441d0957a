//! What `--allow-run` grants, resolved once when the run starts: each bare name to the file the
//! PATH awf started with gives it, each path to one file (a relative one against awf's working
//! folder). A child is started from that file, never looked up again: a PATH given to the child,
//! `process.env.PATH`, a `cwd` option or `process.chdir` cannot make a granted name start
//! another program, nor can an `argv0` naming another one (`check_argv0`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::permissions::{deny_unless, resolve, Access, Denied, Grant};

/// The programs a host may start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Programs {
    /// Any, looked up as Node does (the child's PATH for a bare name).
    All,
    /// Only these.
    Only(Vec<Program>),
}

/// One granted program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// As the flag named it.
    granted: String,
    /// The file it names, absolute, links kept (a program may find its own files through the
    /// path it was started by); `None`: a bare name on no folder of PATH at start.
    file: Option<PathBuf>,
    /// Where `file` leads, every symlink followed: what a path asked for is compared with.
    real: Option<PathBuf>,
}

/// What to start for a granted program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Launch {
    /// The program as the caller named it (everything is granted).
    AsNamed,
    /// This file.
    File(PathBuf),
    /// A granted bare name that was on no folder of PATH at start.
    NotFound,
}

impl Programs {
    pub fn none() -> Programs {
        Programs::Only(Vec::new())
    }

    /// `grant` resolved now: paths against `base`, bare names along `search` (a PATH value).
    pub fn granted(grant: Grant, base: &Path, search: &OsStr) -> Programs {
        let Grant::Only(names) = grant else {
            return Programs::All;
        };
        let programs = names
            .into_iter()
            .map(|granted| {
                let file = if is_bare(&granted) {
                    find_on(search, &granted, base)
                } else {
                    Some(base.join(&granted))
                };
                let real = file.as_deref().map(|f| resolve(f, true));
                Program {
                    granted,
                    file,
                    real,
                }
            })
            .collect();
        Programs::Only(programs)
    }

    /// Starting `program`, named by the caller, from the folder `dir`.
    pub fn check(&self, program: &str, dir: &Path) -> Result<Launch, Denied> {
        let Programs::Only(programs) = self else {
            return Ok(Launch::AsNamed);
        };
        if is_bare(program) {
            let found = programs
                .iter()
                .find(|p| is_bare(&p.granted) && p.granted == program);
            deny_unless(found.is_some(), Access::Run, program.to_string())?;
            return Ok(match found.and_then(|p| p.file.clone()) {
                Some(file) => Launch::File(file),
                None => Launch::NotFound,
            });
        }
        let asked = dir.join(program);
        let real = resolve(&asked, true);
        let found = programs.iter().find(|p| p.real.as_ref() == Some(&real));
        match found.and_then(|p| p.file.clone()) {
            Some(file) => Ok(Launch::File(file)),
            None => Err(
                Denied::new(Access::Run, program.to_string()).with_hint(format!(
                    "run again with --allow-run={} to grant it",
                    crate::paths::normalize(&asked).display()
                )),
            ),
        }
    }
}

/// A granted program started under another name: a multi-call program (busybox) would run what
/// that name says, so only the program's own name is taken.
pub fn check_argv0(argv0: Option<&str>, file: &Path) -> Result<(), Denied> {
    let Some(argv0) = argv0 else {
        return Ok(());
    };
    if Path::new(argv0).file_name() == file.file_name() {
        return Ok(());
    }
    let hint = "argv0 decides what a multi-call program such as busybox runs: leave it out, or \
                run again with --allow-run (without a list) to start programs under any name";
    Err(Denied::new(Access::Run, argv0.to_string()).with_hint(hint.to_string()))
}

/// A program named without a folder, looked up on PATH.
fn is_bare(program: &str) -> bool {
    !program.contains('/')
}

/// The first executable file `name` in the folders of `search` (a relative folder is taken from
/// `base`), as execvp would find it.
fn find_on(search: &OsStr, name: &str, base: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(search)
        .map(|dir| base.join(dir).join(name))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .map(|file| crate::paths::normalize(&file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_name_is_found_once_on_the_path_given_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("tool"), "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let grant = Grant::Only(vec!["tool".into(), "absent".into()]);
        let programs = Programs::granted(grant, dir.path(), OsStr::new("/nonexistent:bin"));
        let file = bin.join("tool");
        assert_eq!(
            programs.check("tool", Path::new("/elsewhere")),
            Ok(Launch::File(file.clone()))
        );
        assert_eq!(
            programs.check(&file.display().to_string(), Path::new("/")),
            Ok(Launch::File(file))
        );
        assert_eq!(programs.check("absent", dir.path()), Ok(Launch::NotFound));
        assert!(programs.check("other", dir.path()).is_err());
        assert!(programs.check("./tool", dir.path()).is_err());
    }

    #[test]
    fn a_relative_grant_is_one_file_whatever_the_folder_asked_from() {
        let base = Path::new("/project");
        let programs =
            Programs::granted(Grant::Only(vec!["./build.sh".into()]), base, OsStr::new(""));
        assert_eq!(
            programs.check("./build.sh", base),
            Ok(Launch::File(PathBuf::from("/project/./build.sh")))
        );
        let denied = programs
            .check("./build.sh", Path::new("/project/other"))
            .unwrap_err();
        assert_eq!(
            denied.hint,
            "run again with --allow-run=/project/other/build.sh to grant it"
        );
        assert_eq!(Programs::All.check("anything", base), Ok(Launch::AsNamed));
    }
}
