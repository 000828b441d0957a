//! `awf typings [DIR]`: writes the .d.ts files of the modules awf serves (agentswf,
//! agentswf/testing, typebox, bun:test) and its author globals, as embedded in this binary, so
//! an editor and `tsc --noEmit` know them with nothing else installed.

use std::path::Path;

use anyhow::Context;

use crate::args::TypingsArgs;
use crate::failure::Failure;

/// The typings, by file name, from the checkout's typings/ at build time (through cli/typings, a
/// link to it, so that the crate carries them when packaged).
pub const TYPINGS: &[(&str, &str)] = &[
    ("globals.d.ts", include_str!("../../typings/globals.d.ts")),
    ("agentswf.d.ts", include_str!("../../typings/agentswf.d.ts")),
    (
        "agentswf-testing.d.ts",
        include_str!("../../typings/agentswf-testing.d.ts"),
    ),
    ("typebox.d.ts", include_str!("../../typings/typebox.d.ts")),
    ("bun-test.d.ts", include_str!("../../typings/bun-test.d.ts")),
];

pub fn run(args: TypingsArgs) -> i32 {
    match write(&args.dir) {
        Ok(()) => {
            println!("wrote {} typings to {}", TYPINGS.len(), args.dir.display());
            0
        }
        Err(failure) => failure.report(),
    }
}

/// Writes every typing into `dir` (made if needed), replacing older copies.
pub fn write(dir: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create {}", dir.display()))
        .map_err(Failure::failed)?;
    for (name, text) in TYPINGS {
        let path = dir.join(name);
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write {}", path.display()))
            .map_err(Failure::failed)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_typing_of_the_checkout_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../typings");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".d.ts"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = TYPINGS.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
    }
}
