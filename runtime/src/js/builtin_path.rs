//! How built-ins name each other: `awf:<path under js/>`, reached from another built-in by a
//! relative import as the files sit under js/. Shared with runtime/build.rs, which compiles each
//! built-in with its imports, so this file names nothing but std.

/// `awf:host/console` + `./inspect.ts` -> `awf:host/inspect`: built-ins import each other by
/// relative path, as the files sit under js/.
pub fn resolve_relative(base: &str, specifier: &str) -> Option<String> {
    let base_path = base.strip_prefix("awf:")?;
    let mut parts: Vec<&str> = base_path.split('/').collect();
    parts.pop();
    for segment in specifier.split('/') {
        match segment {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    let path = joined.strip_suffix(".ts").unwrap_or(&joined);
    Some(format!("awf:{path}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_imports_between_builtins() {
        assert_eq!(
            resolve_relative("awf:host/console", "./inspect.ts").as_deref(),
            Some("awf:host/inspect")
        );
        assert_eq!(
            resolve_relative("awf:host/timers", "../core.ts").as_deref(),
            Some("awf:core")
        );
        assert_eq!(resolve_relative("awf:core", "../../x.ts"), None);
    }
}
