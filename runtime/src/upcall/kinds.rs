//! The kinds of request Rust makes of workflow code, spelled once on the Rust side. The JS side
//! spells them once too (`UPCALLS` in js/core.ts, which the handlers register under); a unit
//! test holds the two lists equal.

/// One kind of upcall, as the JS side registers its handler (`onRequest`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    ToolCall,
    ToolAbort,
    MessageArrived,
    ScriptTurn,
    ScriptFork,
    ScriptCompact,
    ScriptAbort,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::ToolCall,
        Kind::ToolAbort,
        Kind::MessageArrived,
        Kind::ScriptTurn,
        Kind::ScriptFork,
        Kind::ScriptCompact,
        Kind::ScriptAbort,
    ];

    /// The name JS's handler is registered under.
    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::ToolCall => "tool.call",
            Kind::ToolAbort => "tool.abort",
            Kind::MessageArrived => "message.arrived",
            Kind::ScriptTurn => "script.turn",
            Kind::ScriptFork => "script.fork",
            Kind::ScriptCompact => "script.compact",
            Kind::ScriptAbort => "script.abort",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    /// The names in js/core.ts's `UPCALLS` table, in its order.
    fn js_names() -> Vec<String> {
        let core = include_str!("../../js/core.ts");
        let table = core
            .split_once("export const UPCALLS = {")
            .and_then(|(_, rest)| rest.split_once("}"))
            .map(|(table, _)| table)
            .expect("js/core.ts declares UPCALLS");
        table
            .lines()
            .filter_map(|line| line.split_once(": \""))
            .filter_map(|(_, rest)| rest.split_once('"'))
            .map(|(name, _)| name.to_string())
            .collect()
    }

    #[test]
    fn the_js_table_names_every_kind_and_no_other() {
        let rust: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(js_names(), rust);
    }
}
