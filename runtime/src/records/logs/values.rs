//! How the values in a log line read: JSON compact and folded past 160 characters, sizes in
//! bytes, KiB or MiB, durations in ms or s, token counts, an agent's runtime, a list of problems.

use serde_json::Value;

/// `1200 in (200 cached), 40 out, $0.0100` from an object with the usage fields.
pub(super) fn usage(value: &Value) -> String {
    let count = |name: &str| value.get(name).and_then(Value::as_u64).unwrap_or(0);
    let mut text = format!("{} in", count("inputTokens"));
    if count("cachedInputTokens") > 0 {
        text += &format!(" ({} cached)", count("cachedInputTokens"));
    }
    text += &format!(", {} out", count("outputTokens"));
    if count("reasoningTokens") > 0 {
        text += &format!(" ({} reasoning)", count("reasoningTokens"));
    }
    if let Some(usd) = value.get("costUsd").and_then(Value::as_f64) {
        text += &format!(", ${usd:.4}");
    }
    text
}

pub(super) fn number(event: &Value, name: &str) -> String {
    event.get(name).map(|v| v.to_string()).unwrap_or_default()
}

pub(super) fn millis(event: &Value) -> String {
    let ms = event.get("durationMs").and_then(Value::as_u64).unwrap_or(0);
    if ms >= 1000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else {
        format!("{ms}ms")
    }
}

pub(super) fn with_reason(text: String, reason: Option<&Value>) -> String {
    match reason.and_then(Value::as_str) {
        Some(reason) if !reason.is_empty() => format!("{text}: {reason}"),
        _ => text,
    }
}

pub(super) fn runtime(runtime: Option<&Value>) -> String {
    let Some(runtime) = runtime else {
        return String::new();
    };
    let field = |name: &str| runtime.get(name).and_then(Value::as_str);
    match field("kind") {
        Some("command") => format!("command {}", field("program").unwrap_or("")),
        Some(harness) if field("program").is_some() => match field("model") {
            Some(model) => format!("{harness} {model}"),
            None => harness.to_string(),
        },
        _ => fold(runtime),
    }
}

pub(super) fn fields(fields: Option<&Value>) -> String {
    match fields {
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| format!(" {k}={}", fold(v)))
            .collect(),
        _ => String::new(),
    }
}

pub(super) fn list(items: Option<&Value>) -> String {
    items
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

pub(super) fn details(items: Option<&Value>) -> String {
    let text = list(items);
    if text.is_empty() {
        text
    } else {
        format!(" [{text}]")
    }
}

pub(super) fn size(text: &str) -> String {
    size_of(text.len() as u64)
}

pub(super) fn size_of(bytes: u64) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

/// A value as compact JSON, cut to 160 characters.
pub(super) fn fold(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 160 {
        format!(
            "{}… ({})",
            text.chars().take(160).collect::<String>(),
            size(&text)
        )
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_values_are_folded() {
        let long = json!("x".repeat(500));
        assert!(fold(&long).ends_with("… (502 bytes)"));
    }
}
