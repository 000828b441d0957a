//! `awf list [DIR]`: the workflow files under a folder (runtime/src/run/list.rs finds and loads
//! them), printed a block each, or as JSON. A file that fails to load is listed with its error;
//! the command exits 1 when one did.

use std::io::Write;

use anyhow::anyhow;
use awf_runtime::run::list;

use crate::args::ListArgs;
use crate::failure::Failure;

pub fn run(args: ListArgs) -> i32 {
    list_dir(args).unwrap_or_else(Failure::report)
}

fn list_dir(args: ListArgs) -> Result<i32, Failure> {
    let dir = std::fs::canonicalize(&args.dir)
        .ok()
        .filter(|d| d.is_dir())
        .ok_or_else(|| {
            Failure::usage(anyhow!("{}: no such folder", args.dir.display()))
                .with_hint("give the folder that holds the workflow files: awf list workflows/")
        })?;
    let runtime = super::async_runtime()?;
    let listed = runtime.block_on(list::list(&dir));
    runtime.shutdown_background();
    let mut out = std::io::stdout().lock();
    if args.json {
        let items: Vec<_> = listed.iter().map(|l| l.to_json(&dir)).collect();
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&items).unwrap_or_default()
        );
    } else if listed.is_empty() {
        let _ = writeln!(out, "no workflow files under {}", dir.display());
    } else {
        for item in &listed {
            let shown = item.to_json(&dir);
            let file = shown["file"].as_str().unwrap_or_default();
            match &item.workflow {
                Ok(meta) => {
                    let version = meta["version"]
                        .as_str()
                        .map(|v| format!(" {v}"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{}{version}  {file}",
                        meta["name"].as_str().unwrap_or_default()
                    );
                    let _ = writeln!(
                        out,
                        "  {}",
                        meta["description"].as_str().unwrap_or_default()
                    );
                    if let Some(when) = meta["whenToUse"].as_str() {
                        let _ = writeln!(out, "  when to use: {when}");
                    }
                }
                Err(_) => {
                    let error = shown["error"].as_str().unwrap_or_default();
                    let _ = writeln!(out, "{file}: does not load: {error}");
                }
            }
        }
    }
    Ok(if listed.iter().any(|l| l.workflow.is_err()) {
        1
    } else {
        0
    })
}
