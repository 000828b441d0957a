//! The compile cache: a user module's QuickJS bytecode, position map and import sites, kept on
//! disk from one run to the next, so a file that did not change is neither transpiled (swc) nor
//! parsed again. For `awf test` that was a fifth of a small test file's time.
//!
//! One entry per source path (`<dir>/<hash of the path>.qjsc`), overwritten when the file
//! changes; it is used only when it was written by this very awf executable (its path, size and
//! modification time) for exactly this source text (its length and hash), and when its bytecode
//! reads back with the checksum it was written with. Anything else is a miss: the file is
//! compiled as if there were no cache, and the entry written again. Entries are written to a
//! temporary file and renamed into place, so a reader sees a whole entry or none.
//!
//! When the folder passes 4096 entries, entries older than a week are removed.
//!
//! The directory is `$AWF_CACHE_DIR/compiled`, else `$XDG_CACHE_HOME/awf/compiled`, else
//! `~/.cache/awf/compiled`; `AWF_COMPILE_CACHE=0` turns the cache off. A cache that cannot be
//! read or written is no cache: nothing fails because of it.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::source_map::{PositionMap, SourcePos};
use super::transpile::ImportSite;

/// The entry format; bumped when it changes.
const FORMAT: u32 = 1;

/// A module as the cache gives it back.
pub struct CachedModule {
    pub bytecode: Vec<u8>,
    pub map: Option<Arc<PositionMap>>,
    pub imports: Vec<ImportSite>,
}

/// The entry's header: one JSON line before the bytecode.
#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    executable: String,
    source_len: usize,
    source_hash: u64,
    bytecode_len: usize,
    bytecode_hash: u64,
    /// (generated line, column, source line, column).
    map: Option<Vec<(u32, u32, u32, u32)>>,
    /// (specifier, line, column).
    imports: Vec<(String, u32, u32)>,
}

/// The cached compilation of `source`, the text of the module `name`, if there is a valid one.
pub fn load(name: &str, source: &str) -> Option<CachedModule> {
    load_from(&entry_path(cache_folder()?, name), source)
}

fn load_from(entry: &Path, source: &str) -> Option<CachedModule> {
    let bytes = std::fs::read(entry).ok()?;
    let newline = bytes.iter().position(|b| *b == b'\n')?;
    let header: Header = serde_json::from_slice(&bytes[..newline]).ok()?;
    let bytecode = &bytes[newline + 1..];
    let valid = header.format == FORMAT
        && header.executable == *executable_stamp()
        && header.source_len == source.len()
        && header.source_hash == hash(source.as_bytes())
        && header.bytecode_len == bytecode.len()
        && header.bytecode_hash == hash(bytecode);
    if !valid {
        return None;
    }
    let map = header.map.map(|pairs| {
        Arc::new(PositionMap::from_pairs(pairs.into_iter().map(
            |(gl, gc, sl, sc)| {
                (
                    SourcePos { line: gl, col: gc },
                    SourcePos { line: sl, col: sc },
                )
            },
        )))
    });
    let imports = header
        .imports
        .into_iter()
        .map(|(specifier, line, col)| ImportSite {
            specifier,
            pos: SourcePos { line, col },
        })
        .collect();
    Some(CachedModule {
        bytecode: bytecode.to_vec(),
        map,
        imports,
    })
}

/// Keeps the compilation of `source` (the module `name`) for the next run.
pub fn store(
    name: &str,
    source: &str,
    bytecode: &[u8],
    map: Option<&PositionMap>,
    imports: &[ImportSite],
) {
    if let Some(dir) = cache_folder() {
        store_in(&entry_path(dir, name), source, bytecode, map, imports);
    }
}

fn store_in(
    path: &Path,
    source: &str,
    bytecode: &[u8],
    map: Option<&PositionMap>,
    imports: &[ImportSite],
) {
    let header = Header {
        format: FORMAT,
        executable: executable_stamp().clone(),
        source_len: source.len(),
        source_hash: hash(source.as_bytes()),
        bytecode_len: bytecode.len(),
        bytecode_hash: hash(bytecode),
        map: map.map(|map| {
            map.pairs
                .iter()
                .map(|(g, s)| (g.line, g.col, s.line, s.col))
                .collect()
        }),
        imports: imports
            .iter()
            .map(|site| (site.specifier.clone(), site.pos.line, site.pos.col))
            .collect(),
    };
    if let Err(error) = write_entry(path, &header, bytecode) {
        tracing::debug!(%error, path = %path.display(), "compile cache entry not written");
    }
    // One write in PRUNE_EVERY looks at the folder's size (each source path has one entry,
    // but paths come and go: temporary folders, renamed files).
    if header.source_hash.is_multiple_of(PRUNE_EVERY) {
        if let Some(dir) = path.parent() {
            prune(dir, MAX_ENTRIES, MAX_AGE);
        }
    }
}

/// How often a write prunes the folder, on average.
const PRUNE_EVERY: u64 = 64;
/// Entries the folder holds before old ones are removed.
const MAX_ENTRIES: usize = 4096;
/// The age past which an entry goes when the folder is past `MAX_ENTRIES`.
const MAX_AGE: std::time::Duration = std::time::Duration::from_secs(7 * 24 * 3600);

/// When `dir` holds more than `max_entries` entries, removes those written longer than `max_age`
/// ago (a file still in use is compiled again once).
fn prune(dir: &Path, max_entries: usize, max_age: std::time::Duration) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let entries: Vec<_> = entries.flatten().collect();
    if entries.len() <= max_entries {
        return;
    }
    let now = std::time::SystemTime::now();
    for entry in entries {
        let old = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|written| now.duration_since(written).ok())
            .is_some_and(|age| age > max_age);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn write_entry(path: &Path, header: &Header, bytecode: &[u8]) -> std::io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().expect("an entry is in the cache folder");
    std::fs::create_dir_all(dir)?;
    let temp = dir.join(format!(
        ".{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        serde_json::to_writer(&mut file, header)?;
        file.write_all(b"\n")?;
        file.write_all(bytecode)?;
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

/// The cache folder of this process; `None` with the cache off.
fn cache_folder() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| cache_dir(|key| std::env::var_os(key).filter(|value| !value.is_empty())))
        .as_deref()
}

/// Where the entry of the module `name` is in `dir`.
fn entry_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{:016x}.qjsc", hash(name.as_bytes())))
}

/// The cache folder the environment (read through `var`) names; `None` when it is off.
fn cache_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if var("AWF_COMPILE_CACHE").is_some_and(|value| value == "0") {
        return None;
    }
    if let Some(dir) = var("AWF_CACHE_DIR") {
        return Some(PathBuf::from(dir).join("compiled"));
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("awf/compiled"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache/awf/compiled"))
}

/// This executable: its path, size and modification time. Bytecode is only read back by the
/// build that wrote it (QuickJS's bytecode has no stable format).
fn executable_stamp() -> &'static String {
    static STAMP: OnceLock<String> = OnceLock::new();
    STAMP.get_or_init(|| {
        let exe = std::env::current_exe().unwrap_or_default();
        let meta = std::fs::metadata(&exe).ok();
        let modified = meta
            .as_ref()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let len = meta.map(|m| m.len()).unwrap_or(0);
        format!("{}:{len}:{modified}", exe.display())
    })
}

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn the_folder_follows_the_environment_and_can_be_turned_off() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |key: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        assert_eq!(
            cache_dir(env(&[("HOME", "/h")])),
            Some(PathBuf::from("/h/.cache/awf/compiled"))
        );
        assert_eq!(
            cache_dir(env(&[("HOME", "/h"), ("XDG_CACHE_HOME", "/x")])),
            Some(PathBuf::from("/x/awf/compiled"))
        );
        assert_eq!(
            cache_dir(env(&[("XDG_CACHE_HOME", "/x"), ("AWF_CACHE_DIR", "/a")])),
            Some(PathBuf::from("/a/compiled"))
        );
        assert_eq!(
            cache_dir(env(&[("HOME", "/h"), ("AWF_COMPILE_CACHE", "0")])),
            None
        );
        assert_eq!(cache_dir(env(&[])), None);
    }

    #[test]
    fn a_full_folder_loses_its_old_entries() {
        let dir = std::env::temp_dir().join(format!("awf-cache-prune-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..3 {
            std::fs::write(dir.join(format!("{i}.qjsc")), "x").unwrap();
        }
        prune(&dir, 5, std::time::Duration::ZERO);
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            3,
            "under the limit, all stay"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        prune(&dir, 2, std::time::Duration::from_millis(10));
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "past it, the old ones go"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn an_entry_is_used_only_for_the_same_source_and_whole_bytecode() {
        let dir = std::env::temp_dir().join(format!("awf-cache-test-{}", std::process::id()));
        let path = entry_path(&dir, "/project/a.ts");
        let map = PositionMap::from_pairs([(
            SourcePos { line: 1, col: 1 },
            SourcePos { line: 2, col: 3 },
        )]);
        let imports = vec![ImportSite {
            specifier: "./a.ts".into(),
            pos: SourcePos { line: 1, col: 8 },
        }];
        store_in(&path, "source one", b"bytes", Some(&map), &imports);
        let hit = load_from(&path, "source one").expect("a hit for the same source");
        assert_eq!(hit.bytecode, b"bytes");
        assert_eq!(hit.map.unwrap().pairs, map.pairs);
        assert_eq!(hit.imports, imports);
        assert!(load_from(&path, "source two").is_none());
        let mut torn = std::fs::read(&path).unwrap();
        torn.pop();
        std::fs::write(&path, torn).unwrap();
        assert!(load_from(&path, "source one").is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
