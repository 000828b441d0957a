//! The npm packages (npm/, scripts/npm-pack), installed the way a TypeScript user installs awf:
//! the host's two tarballs, packed from the binaries these tests run, go into a scratch project
//! with npm offline; then `npx awf init`, `npx awf run` with an agent that calls a tool through
//! the `wfa` the package installed, `npx awf test`, `npx awf doctor` and `tsc --noEmit` against
//! the packaged typings. And what the launcher says when no package fits the machine.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::util::{
    assert_has, bin_dir, node_bin, npm_tool, which, workspace, AwfCommand, Ran, TempProject,
};

/// The TypeScript the packaged typings are checked with (typings.rs checks the checkout's).
const TYPESCRIPT_VERSION: &str = "5.9.3";
/// The version every package.json and `awf --version` must say: the workspace's.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The main package's tarball and the host's platform package's, packed once per test process
/// into a folder that lives as long as it.
fn tarballs() -> &'static (PathBuf, PathBuf) {
    static PACKED: OnceLock<(tempfile::TempDir, (PathBuf, PathBuf))> = OnceLock::new();
    let (_, paths) = PACKED.get_or_init(|| {
        let out = tempfile::Builder::new()
            .prefix("awf-npm-pack-")
            .tempdir()
            .expect("a temp folder");
        let ran = AwfCommand::new(workspace().join("scripts/npm-pack"))
            .arg("--bin-dir")
            .arg(bin_dir())
            .arg("--out")
            .arg(out.path())
            .run();
        assert_eq!(
            ran.code,
            Some(0),
            "scripts/npm-pack failed:\n{}",
            ran.stderr
        );
        let lines: Vec<PathBuf> = ran.stdout.lines().map(PathBuf::from).collect();
        let [main, platform] = lines.as_slice() else {
            panic!("npm-pack printed other than two tarballs:\n{}", ran.stdout);
        };
        assert_eq!(main.file_name().unwrap(), &*format!("awf-{VERSION}.tgz"));
        let paths = (main.clone(), platform.clone());
        (out, paths)
    });
    paths
}

/// The platform package npm installs on this machine.
fn host_package() -> String {
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("awf-linux-{cpu}-gnu")
}

/// `program args...` in `project` with npm offline and its cache inside the project, so that
/// nothing comes from the network or from another install.
fn npm_command(project: &TempProject, program: &str, args: &[&str]) -> AwfCommand {
    let program = which(program).unwrap_or_else(|| panic!("{program} is not on PATH"));
    let mut command = AwfCommand::new(program);
    command
        .args(args)
        .current_dir(&project.path())
        .env("npm_config_offline", "true")
        .env("npm_config_cache", project.path().join(".npm-cache"))
        .env("npm_config_update_notifier", "false")
        .bound(std::time::Duration::from_secs(120));
    command
}

/// A scratch npm project with `tarballs` installed as dev dependencies.
fn installed(tarballs: &[&Path]) -> TempProject {
    let project = TempProject::new();
    project.file("package.json", r#"{ "name": "scratch", "private": true }"#);
    let mut args = vec!["install", "-D", "--no-audit", "--no-fund"];
    let paths: Vec<String> = tarballs.iter().map(|p| p.display().to_string()).collect();
    args.extend(paths.iter().map(String::as_str));
    let ran = npm_command(&project, "npm", &args).run();
    assert_eq!(
        ran.code,
        Some(0),
        "npm install failed:\n{}{}",
        ran.stdout,
        ran.stderr
    );
    project
}

fn npx(project: &TempProject, args: &[&str]) -> Ran {
    let mut all = vec!["awf"];
    all.extend(args);
    npm_command(project, "npx", &all).run()
}

fn package_version(project: &TempProject, package: &str) -> String {
    let text = project.read(&format!("node_modules/{package}/package.json"));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["version"].as_str().unwrap().to_string()
}

#[test]
fn the_npm_packages_install_offline_and_run_test_and_type_check_a_project() {
    let (main, platform) = tarballs();
    let project = installed(&[main, platform]);
    let package = host_package();
    assert_eq!(package_version(&project, "awf"), VERSION);
    assert_eq!(package_version(&project, &package), VERSION);
    let version = npx(&project, &["--version"]);
    assert_eq!(
        version.stdout.trim(),
        format!("awf {VERSION}"),
        "{}",
        version.stderr
    );

    npx(&project, &["init", "."]).assert_success();
    // The starter's agent, recording which wfa its launcher leads to.
    let used = project.path().join("wfa-used.txt");
    project.script(
        "agents/helper.sh",
        &format!(
            "#!/bin/sh\ncat > /dev/null\nreadlink \"$AWF_WFA\" > '{}'\n\
             \"$AWF_WFA\" tool add_note --text 'from the npm package'\n\
             \"$AWF_WFA\" result \"$AWF_TURN\" --title 'One note' --notes '1'\n",
            used.display()
        ),
    );
    let ran = npx(&project, &["run", "workflow.ts", "--", "packaging"]);
    ran.assert_success();
    assert_eq!(
        ran.json(),
        serde_json::json!({
            "topic": "packaging",
            "notes": ["from the npm package"],
            "summary": { "title": "One note", "notes": 1 },
        })
    );
    let packaged_wfa = project
        .path()
        .join(format!("node_modules/{package}/bin/wfa"));
    assert_eq!(
        std::fs::read_to_string(&used).unwrap().trim(),
        packaged_wfa.display().to_string(),
        "the agent's wfa is the one in the platform package"
    );

    let tested = npx(&project, &["test"]);
    tested.assert_success();
    assert_has(&tested.stdout, "2 passed, 0 failed");

    let doctor = npx(&project, &["doctor"]);
    let awf = project
        .path()
        .join(format!("node_modules/{package}/bin/awf"));
    assert_has(
        &doctor.stdout,
        &format!(
            "awf {VERSION}: installed from the npm package {package} ({})\n",
            awf.display()
        ),
    );

    // The packaged typings alone: the copies `awf init` wrote are removed.
    std::fs::remove_dir_all(project.path().join("typings")).unwrap();
    project.file(
        "tsconfig.json",
        r#"{ "extends": "awf/tsconfig.json", "include": ["**/*.ts"], "exclude": [".awf", "node_modules"] }"#,
    );
    let typescript = npm_tool("typescript", TYPESCRIPT_VERSION);
    let tsc = AwfCommand::new(node_bin())
        .arg(typescript.join("node_modules/typescript/bin/tsc"))
        .args(&["-p", "tsconfig.json", "--pretty", "false"])
        .current_dir(&project.path())
        .run();
    assert_eq!(
        (tsc.code, tsc.stdout.as_str(), tsc.stderr.as_str()),
        (Some(0), "", ""),
        "tsc found errors against the packaged typings"
    );
}

#[test]
fn the_launcher_says_when_no_package_holds_awf_for_this_machine() {
    let (main, _) = tarballs();
    // Offline, the platform package cannot be fetched: npm skips it, as it does under
    // --omit=optional.
    let project = installed(&[main]);
    let package = host_package();
    let launcher = project.path().join("node_modules/.bin/awf");
    let missing = AwfCommand::new(&launcher).arg("--version").run();
    assert_eq!(missing.code, Some(127), "{}", missing.stderr);
    assert_has(
        &missing.stderr,
        &format!("awf: the npm package {package}, which holds awf for this machine"),
    );
    assert_has(
        &missing.stderr,
        "hint: npm skips optional dependencies under --omit=optional",
    );

    // A machine no package is built for: uname says riscv64.
    project.script("fake/uname", "#!/bin/sh\necho 'Linux riscv64'\n");
    let path = format!(
        "{}:{}",
        project.path().join("fake").display(),
        std::env::var("PATH").unwrap()
    );
    let unfit = AwfCommand::new(&launcher)
        .arg("--version")
        .env("PATH", path)
        .run();
    assert_eq!(unfit.code, Some(127), "{}", unfit.stderr);
    assert_has(
        &unfit.stderr,
        "awf: the npm package awf has no prebuilt awf for this machine (linux riscv64); it has: awf-linux-x64-gnu awf-linux-arm64-gnu\n",
    );
    assert_has(
        &unfit.stderr,
        "hint: build awf from source with a Rust toolchain",
    );
    assert_has(&unfit.stderr, "cargo install awf-cli");
}
