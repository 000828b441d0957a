//! How this awf was installed, decided from where its binary lives, for `awf doctor`'s first
//! line: the npm package of a platform (`node_modules/awf-<platform>/bin/awf`, npm/README.md),
//! `cargo install` (a `bin/` whose parent holds cargo's `.crates2.json`), or a build in a
//! checkout (a cargo profile folder: `.fingerprint/` and `deps/` beside the binary).

use std::path::Path;

/// Where an awf binary came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    /// From npm: the platform package that holds the binary.
    Npm {
        package: String,
    },
    CargoInstall,
    SourceBuild,
    /// None of the above (copied by hand, a distribution's package, ...).
    Unknown,
}

impl Installed {
    /// How `exe` (a canonical path, as `current_exe` gives it) was installed.
    pub fn of(exe: &Path) -> Installed {
        let Some(folder) = exe.parent() else {
            return Installed::Unknown;
        };
        let package = folder.parent();
        let name = |path: Option<&Path>| {
            path.and_then(Path::file_name)
                .and_then(|n| n.to_str())
                .map(str::to_string)
        };
        if let (Some(bin), Some(package_name), Some(modules)) = (
            name(Some(folder)),
            name(package),
            name(package.and_then(Path::parent)),
        ) {
            if bin == "bin" && package_name.starts_with("awf-") && modules == "node_modules" {
                return Installed::Npm {
                    package: package_name,
                };
            }
        }
        if name(Some(folder)).as_deref() == Some("bin")
            && package.is_some_and(|root| root.join(".crates2.json").is_file())
        {
            return Installed::CargoInstall;
        }
        if folder.join(".fingerprint").is_dir() && folder.join("deps").is_dir() {
            return Installed::SourceBuild;
        }
        Installed::Unknown
    }

    /// The line `awf doctor` prints first, e.g. `awf 0.1.0: installed by cargo install (...)`.
    pub fn line(&self, version: &str, exe: &Path) -> String {
        let how = match self {
            Installed::Npm { package } => format!("installed from the npm package {package}"),
            Installed::CargoInstall => "installed by cargo install".to_string(),
            Installed::SourceBuild => "built from source in a checkout".to_string(),
            Installed::Unknown => {
                "installed some other way (not npm, cargo install or a checkout's build)"
                    .to_string()
            }
        };
        format!("awf {version}: {how} ({})", exe.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A scratch folder for one test, removed first if an earlier run left it.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("awf-installed-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn each_way_of_installing_is_told_by_where_the_binary_lives() {
        let root = scratch("ways");
        let npm = root.join("project/node_modules/awf-linux-x64-gnu/bin/awf");
        let cargo = root.join("cargo-home/bin/awf");
        let build = root.join("checkout/target/x86_64-unknown-linux-gnu/release/awf");
        let elsewhere = root.join("usr/local/bin/awf");
        for exe in [&npm, &cargo, &build, &elsewhere] {
            std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
            std::fs::write(exe, "").unwrap();
        }
        std::fs::write(root.join("cargo-home/.crates2.json"), "{}").unwrap();
        for folder in [".fingerprint", "deps"] {
            std::fs::create_dir_all(build.with_file_name(folder)).unwrap();
        }
        assert_eq!(
            Installed::of(&npm),
            Installed::Npm {
                package: "awf-linux-x64-gnu".to_string()
            }
        );
        assert_eq!(Installed::of(&cargo), Installed::CargoInstall);
        assert_eq!(Installed::of(&build), Installed::SourceBuild);
        assert_eq!(Installed::of(&elsewhere), Installed::Unknown);
        assert_eq!(Installed::of(Path::new("/")), Installed::Unknown);
        std::fs::remove_dir_all(root).unwrap();
    }

    #[test]
    fn the_line_names_the_version_the_way_and_the_path() {
        let exe = Path::new("/p/node_modules/awf-linux-arm64-gnu/bin/awf");
        assert_eq!(
            Installed::of(exe).line("0.1.0", exe),
            "awf 0.1.0: installed from the npm package awf-linux-arm64-gnu \
             (/p/node_modules/awf-linux-arm64-gnu/bin/awf)"
        );
        assert_eq!(
            Installed::CargoInstall.line("0.1.0", Path::new("/h/.cargo/bin/awf")),
            "awf 0.1.0: installed by cargo install (/h/.cargo/bin/awf)"
        );
    }
}
