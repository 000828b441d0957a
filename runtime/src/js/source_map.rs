//! Generated JS positions back to `.ts` positions, per loaded module.
//!
//! `transpile.rs` produces one `PositionMap` per TypeScript module; `SourceRegistry` keeps them,
//! with each module's source text, for the stack formatter (`Error.prepareStackTrace`) and for
//! code frames in error messages. Modules loaded as written (JavaScript) have no map.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourcePos {
    pub line: u32,
    pub col: u32,
}

/// Sorted (generated, source) position pairs of one module, one per generated position.
#[derive(Clone, Debug, Default)]
pub struct PositionMap {
    /// Read by runtime/build.rs too, which writes the built-ins' maps into the binary already
    /// sorted, so that a built-in's map is borrowed from there rather than built at start.
    pub pairs: Cow<'static, [(SourcePos, SourcePos)]>,
}

impl PositionMap {
    pub fn from_pairs(pairs: impl IntoIterator<Item = (SourcePos, SourcePos)>) -> PositionMap {
        let mut pairs: Vec<_> = pairs.into_iter().collect();
        pairs.sort_by_key(|(generated, _)| *generated);
        pairs.dedup_by_key(|(generated, _)| *generated);
        PositionMap {
            pairs: Cow::Owned(pairs),
        }
    }

    /// A map whose pairs are sorted by generated position with none repeated, as `from_pairs`
    /// leaves them (the built-ins' maps, written so by runtime/build.rs).
    pub const fn from_sorted(pairs: &'static [(SourcePos, SourcePos)]) -> PositionMap {
        PositionMap {
            pairs: Cow::Borrowed(pairs),
        }
    }

    /// The source position of the nearest mapped token at or before `generated` on its line;
    /// failing that, the first token of that line.
    pub fn lookup(&self, generated: SourcePos) -> Option<SourcePos> {
        let at_or_before = self.pairs.partition_point(|(g, _)| *g <= generated);
        if at_or_before > 0 {
            let (g, s) = self.pairs[at_or_before - 1];
            if g.line == generated.line {
                return Some(s);
            }
        }
        self.pairs
            .get(at_or_before)
            .filter(|(g, _)| g.line == generated.line)
            .map(|(_, s)| *s)
    }
}

/// What the engine loaded: each module's source and its map, by module name.
#[derive(Default)]
pub struct SourceRegistry {
    modules: HashMap<String, LoadedSource>,
}

/// A built-in's source and map are the binary's, shared by every host; a file's are its own.
struct LoadedSource {
    source: Cow<'static, str>,
    map: Option<Arc<PositionMap>>,
}

impl SourceRegistry {
    pub fn insert(
        &mut self,
        name: &str,
        source: impl Into<Cow<'static, str>>,
        map: Option<Arc<PositionMap>>,
    ) {
        let source = source.into();
        self.modules
            .insert(name.to_string(), LoadedSource { source, map });
    }

    /// The source position for a position in the module's JS; positions in a module without a
    /// map (JavaScript as written) are already source positions.
    pub fn to_source(&self, name: &str, generated: SourcePos) -> Option<SourcePos> {
        let loaded = self.modules.get(name)?;
        match &loaded.map {
            Some(map) => map.lookup(generated),
            None => Some(generated),
        }
    }

    /// A module's whole source.
    pub fn source(&self, name: &str) -> Option<&str> {
        self.modules.get(name).map(|loaded| &*loaded.source)
    }

    /// One line of a module's source, 1-based.
    pub fn source_line(&self, name: &str, line: u32) -> Option<&str> {
        let loaded = self.modules.get(name)?;
        loaded.source.lines().nth(line.checked_sub(1)? as usize)
    }

    /// The files loaded from disk (modules named by absolute path) and their text.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.modules
            .iter()
            .filter(|(name, _)| name.starts_with('/'))
            .map(|(name, loaded)| (name.as_str(), &*loaded.source))
    }

    pub fn contains(&self, name: &str) -> bool {
        self.modules.contains_key(name)
    }

    pub fn remove(&mut self, name: &str) {
        self.modules.remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, col: u32) -> SourcePos {
        SourcePos { line, col }
    }

    #[test]
    fn lookup_takes_the_nearest_token_before_on_the_same_line() {
        let map = PositionMap::from_pairs([
            (pos(1, 1), pos(3, 1)),
            (pos(1, 10), pos(3, 20)),
            (pos(2, 5), pos(7, 2)),
        ]);
        assert_eq!(map.lookup(pos(1, 12)), Some(pos(3, 20)));
        assert_eq!(map.lookup(pos(1, 10)), Some(pos(3, 20)));
        assert_eq!(map.lookup(pos(2, 1)), Some(pos(7, 2)));
        assert_eq!(map.lookup(pos(9, 1)), None);
    }

    #[test]
    fn modules_without_a_map_keep_their_positions() {
        let mut registry = SourceRegistry::default();
        registry.insert("/a.js", "let a;\nlet b;\n", None);
        assert_eq!(registry.to_source("/a.js", pos(2, 3)), Some(pos(2, 3)));
        assert_eq!(registry.source_line("/a.js", 2), Some("let b;"));
        assert_eq!(registry.to_source("/b.js", pos(1, 1)), None);
    }
}
