//! The skills concern against real folders and real git repositories (made with the `git` CLI).

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::json;

use super::*;

fn skill(folder: &Path, name: &str, description: &str) {
    fs::create_dir_all(folder.join("scripts")).unwrap();
    fs::write(
        folder.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: \"{description}\"\n---\n\nDo the thing.\n"),
    )
    .unwrap();
    fs::write(folder.join("scripts/run.sh"), "echo hi\n").unwrap();
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn sources_parse_paths_urls_and_repos_and_refuse_the_rest() {
    let parsed = parse_sources(&json!([
        { "path": "/abs/review" },
        { "path": "file:///abs/url%20skill" },
        { "repo": "https://example.com/skills.git", "skill": "review", "ref": "v1" },
        { "repo": "/abs/repo", "skill": "a/b" },
    ]))
    .unwrap();
    assert_eq!(parsed[0], SkillSource::Path("/abs/review".into()));
    assert_eq!(parsed[1], SkillSource::Path("/abs/url skill".into()));
    assert_eq!(parsed[2].text(), "https://example.com/skills.git#review@v1");
    assert_eq!(parsed[3].text(), "/abs/repo#a/b@HEAD");

    let refused =
        |value: serde_json::Value| parse_sources(&json!([value])).unwrap_err().to_string();
    assert!(
        refused(json!({ "path": "skills/review" })).contains("is relative; write an absolute path"),
        "{}",
        refused(json!({ "path": "skills/review" }))
    );
    assert!(refused(json!({ "repo": "/r" })).contains("needs skill"));
    assert!(refused(json!({ "path": "/a", "repo": "/r", "skill": "s" })).contains("not both"));
    assert!(refused(json!({ "repo": "/r", "skill": "../up" })).contains("inside the repository"));
    assert!(refused(json!({ "path": "/a", "name": "x" })).contains("unknown key \"name\""));
    assert!(refused(json!({ "path": "https://example.com/s" })).contains("use repo and skill"));
    assert!(refused(json!("x")).starts_with("skills[0]: expected an object"));
}

#[test]
fn a_skill_is_copied_with_its_digest_and_its_manifest_read() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("src/review");
    skill(&source, "review", "Reviews a diff: finds bugs");
    let target = dir.path().join("home/skills");
    let installed = install(
        &[(SkillSource::Path(source.clone()), source.clone())],
        &target,
    )
    .unwrap();
    assert_eq!(installed.len(), 1);
    let skill = &installed[0];
    assert_eq!(
        (skill.name.as_str(), skill.description.as_str()),
        ("review", "Reviews a diff: finds bugs")
    );
    assert_eq!(skill.path, target.join("review"));
    assert_eq!(
        fs::read_to_string(target.join("review/scripts/run.sh")).unwrap(),
        "echo hi\n"
    );
    assert!(skill.digest.starts_with("sha256:") && skill.digest.len() == 7 + 64);
    assert_eq!(digest(&target.join("review")).unwrap(), skill.digest);

    // Any change to a file's bytes or name changes the digest.
    fs::write(source.join("scripts/run.sh"), "echo ho\n").unwrap();
    assert_ne!(digest(&source).unwrap(), skill.digest);
}

#[test]
fn bad_skills_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("s");
    fs::create_dir_all(&folder).unwrap();
    let source = SkillSource::Path(folder.clone());
    let target = dir.path().join("t");

    let missing = install(&[(source.clone(), folder.clone())], &target)
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("cannot read") && missing.contains("SKILL.md"),
        "{missing}"
    );

    fs::write(folder.join("SKILL.md"), "# no front matter\n").unwrap();
    let error = install(&[(source.clone(), folder.clone())], &target)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{}: no front matter: the file must start with a --- line",
            folder.join("SKILL.md").display()
        )
    );

    fs::write(folder.join("SKILL.md"), "---\nname: x\n---\n").unwrap();
    assert!(install(&[(source.clone(), folder.clone())], &target)
        .unwrap_err()
        .to_string()
        .ends_with("the front matter has no `description:`"));

    fs::write(
        folder.join("SKILL.md"),
        "---\nname: ../x\ndescription: d\n---\n",
    )
    .unwrap();
    assert!(install(&[(source.clone(), folder.clone())], &target)
        .unwrap_err()
        .to_string()
        .contains("is not letters, digits"));

    fs::write(
        folder.join("SKILL.md"),
        "---\nname: x\ndescription: d\n---\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("/etc/passwd", folder.join("link")).unwrap();
    assert!(install(&[(source.clone(), folder.clone())], &target)
        .unwrap_err()
        .to_string()
        .contains("is a link or a special file"));
    fs::remove_file(folder.join("link")).unwrap();

    let twice = install(
        &[
            (source.clone(), folder.clone()),
            (source.clone(), folder.clone()),
        ],
        &target,
    )
    .unwrap_err()
    .to_string();
    assert!(twice.starts_with("two skills are named \"x\""), "{twice}");
}

#[test]
fn a_repository_skill_is_fetched_by_ref_into_a_cache_keyed_by_commit() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "--quiet", "-b", "main"]);
    skill(&repo.join("skills/review"), "review", "first");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "one"]);
    let first = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["tag", "v1"]);
    skill(&repo.join("skills/review"), "review", "second");
    git(&repo, &["commit", "--quiet", "-am", "two"]);
    let second = git(&repo, &["rev-parse", "HEAD"]);

    let cache = dir.path().join("cache");
    let source = |reference: Option<&str>| SkillSource::Repo {
        repo: repo.display().to_string(),
        skill: "skills/review".into(),
        reference: reference.map(str::to_string),
    };
    let description = |folder: &Path| read_manifest(folder, "t").unwrap().description;

    let head = resolve(&source(None), &cache).unwrap();
    assert!(
        head.ends_with(format!("{second}/skills/review")),
        "{}",
        head.display()
    );
    assert_eq!(description(&head), "second");
    let tagged = resolve(&source(Some("v1")), &cache).unwrap();
    assert!(tagged.ends_with(format!("{first}/skills/review")));
    assert_eq!(description(&tagged), "first");
    let by_commit = resolve(&source(Some(&first[..10])), &cache).unwrap();
    assert_eq!(by_commit, tagged);
    assert!(
        !tagged
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .join(".git")
            .exists(),
        "the cache holds the tree, not the repository"
    );

    let unknown = resolve(&source(Some("nope")), &cache).unwrap_err();
    assert!(
        unknown
            .to_string()
            .contains("has no branch, tag or commit \"nope\""),
        "{unknown}"
    );
}

#[test]
fn give_installs_exactly_the_agents_skills_and_keeps_the_clis_own() {
    let dir = tempfile::tempdir().unwrap();
    let review = dir.path().join("src/review");
    let tests = dir.path().join("src/tests");
    skill(&review, "review", "Reviews a diff");
    skill(&tests, "write-tests", "Writes tests");
    let home = dir.path().join("home/skills");
    fs::create_dir_all(home.join(".system/builtin")).unwrap();
    fs::create_dir_all(home.join("stale")).unwrap();
    let cache = dir.path().join("cache");

    let given = give(
        &[
            SkillSource::Path(review.clone()),
            SkillSource::Path(tests.clone()),
        ],
        &cache,
        Some(&home),
    )
    .unwrap();
    let names: Vec<&str> = given.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["review", "write-tests"]);
    assert_eq!(given[1].path, home.join("write-tests"));
    let mut left: Vec<String> = fs::read_dir(&home)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, [".system", "review", "write-tests"]);
    let record = SkillRecord::from(&given[0]);
    assert_eq!(
        serde_json::to_value(&record).unwrap(),
        json!({ "name": "review", "source": review.display().to_string(), "digest": given[0].digest })
    );

    // Without a skills folder (a scripted agent): checked and recorded, nothing copied.
    let checked = give(&[SkillSource::Path(review.clone())], &cache, None).unwrap();
    assert_eq!(checked[0].path, review);
    assert_eq!(checked[0].digest, given[0].digest);

    let missing = dir.path().join("src/nope");
    let error = give(&[SkillSource::Path(missing.clone())], &cache, None).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("skill {0}: there is no folder {0}", missing.display())
    );
    assert!(crate::hint::Hint::hint(&error)
        .unwrap()
        .contains("holding SKILL.md"));
}

#[test]
fn the_cache_is_awfs_own_under_the_users_cache() {
    let var = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    };
    assert_eq!(
        cache_dir(var(&[("HOME", "/h")])),
        Path::new("/h/.cache/awf/skills")
    );
    assert_eq!(
        cache_dir(var(&[("HOME", "/h"), ("XDG_CACHE_HOME", "/x")])),
        Path::new("/x/awf/skills")
    );
    assert_eq!(
        cache_dir(var(&[("XDG_CACHE_HOME", "/x"), ("AWF_CACHE_DIR", "/a")])),
        Path::new("/a/skills")
    );
}
