//! Which files `awf test` runs: `*.test.*` and `*.spec.*` (`.ts`, `.mts`, `.js`, `.mjs`) under
//! the cwd or the given folders, and any file given by name whatever it is called. Folders
//! awf and tools own (`node_modules`, `.git`, `target`, `.awf`) are not searched; symlinked
//! folders are not followed. Files come back sorted by path, each once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::event::TestFile;
use super::TestError;

/// Name parts that make a file a test file, before its extension.
const TEST_MARKERS: &[&str] = &[".test", ".spec"];
/// Extensions a test file may have.
const TEST_EXTENSIONS: &[&str] = &["ts", "mts", "js", "mjs"];
/// Folders never searched.
const SKIPPED_DIRS: &[&str] = &["node_modules", ".git", "target", ".awf"];

/// The test files under `paths` (the cwd when empty), relative paths read against `cwd`.
pub fn find_test_files(cwd: &Path, paths: &[PathBuf]) -> Result<Vec<TestFile>, TestError> {
    let roots: Vec<PathBuf> = if paths.is_empty() {
        vec![cwd.to_path_buf()]
    } else {
        paths.to_vec()
    };
    let mut found = BTreeSet::new();
    for root in &roots {
        let absolute = cwd.join(root);
        let path = std::fs::canonicalize(&absolute).map_err(|source| TestError::MissingPath {
            path: root.clone(),
            source,
        })?;
        if path.is_dir() {
            walk(&path, &mut found)
                .map_err(|(dir, source)| TestError::Unreadable { dir, source })?;
        } else {
            found.insert(path);
        }
    }
    Ok(found
        .into_iter()
        .map(|path| TestFile {
            shown: shown(&path, cwd),
            path,
        })
        .collect())
}

/// Is `name` a test file's name (`a.test.ts`, `b.spec.mjs`)?
pub fn is_test_file_name(name: &str) -> bool {
    let Some((stem, extension)) = name.rsplit_once('.') else {
        return false;
    };
    TEST_EXTENSIONS.contains(&extension)
        && TEST_MARKERS
            .iter()
            .any(|marker| stem.ends_with(marker) && stem.len() > marker.len())
}

fn walk(dir: &Path, found: &mut BTreeSet<PathBuf>) -> Result<(), (PathBuf, std::io::Error)> {
    let entries = std::fs::read_dir(dir).map_err(|e| (dir.to_path_buf(), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| (dir.to_path_buf(), e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_ref()) {
                walk(&entry.path(), found)?;
            }
        } else if is_test_file_name(&name) && entry.path().is_file() {
            found.insert(entry.path());
        }
    }
    Ok(())
}

/// `path` relative to `cwd` when under it, else as it is.
fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_file_names() {
        for name in [
            "a.test.ts",
            "a.spec.ts",
            "x.y.test.mjs",
            "b.test.js",
            "c.spec.mts",
        ] {
            assert!(is_test_file_name(name), "{name}");
        }
        for name in [
            "a.ts",
            "test.ts",
            ".test.ts",
            "a.test.tsx",
            "a.test",
            "a_test.ts",
            "a.tests.ts",
        ] {
            assert!(!is_test_file_name(name), "{name}");
        }
    }

    #[test]
    fn finds_test_files_sorted_and_skips_tool_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        for file in [
            "b.test.ts",
            "a/z.spec.mjs",
            "a/helper.ts",
            "node_modules/p/x.test.ts",
            ".git/x.test.ts",
            "target/x.test.ts",
            ".awf/runs/x.test.ts",
            "deep/er/c.test.js",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let shown = |paths: &[&str]| -> Vec<String> {
            let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
            find_test_files(&root, &paths)
                .unwrap()
                .into_iter()
                .map(|f| f.shown)
                .collect()
        };
        assert_eq!(
            shown(&[]),
            ["a/z.spec.mjs", "b.test.ts", "deep/er/c.test.js"]
        );
        // A file named on the command line runs whatever its name; a folder is searched; each
        // file once.
        assert_eq!(
            shown(&["a/helper.ts", "deep", "deep/er/c.test.js"]),
            ["a/helper.ts", "deep/er/c.test.js"]
        );
        let missing = find_test_files(&root, &[PathBuf::from("nope")]).unwrap_err();
        assert!(
            matches!(missing, TestError::MissingPath { ref path, .. } if path == Path::new("nope"))
        );
    }
}
