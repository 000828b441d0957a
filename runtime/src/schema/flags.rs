//! Option words (`--file 'src/a.ts' --line 41`) made into a checked JSON value, by the schema the
//! agent was taught from, for turn answers and tool inputs alike.
//!
//! Which schemas take options is `shape`'s rule, so parsing agrees with what `teach` showed. The
//! shell has already removed the quotes, so each value arrives as one word, unchanged. Reading
//! JSON from standard input is `input`'s; sending the problems back is `tools`' and `channel`'s.
//!
//! Word rules:
//! - `--name value` and `--name=value`. After `--name` the next word is its value, even when it
//!   starts with `-` (`--delta -3`), unless it is another accepted option: then `--name` has no
//!   value, and a value that really is `--line` is written `--name=--line`.
//! - text is taken as it is, empty included; `true`/`false` are booleans; an integer is decimal
//!   digits with an optional `-` (`1.0`, `1e3` and `0x10` are not integers: an agent that writes
//!   them has most likely misread the field, so they are refused rather than rounded); a number
//!   is an integer or a decimal such as `-0.5` or `1e3`; a literal is matched by its text.
//! - A word that cannot be converted is kept as text, so the schema check reports it in the same
//!   words as a JSON input (`value.line: expected integer; got "abc"`); a missing required option
//!   is that check's `required, missing` too.

use serde_json::{Map, Number, Value};

use super::field_error::property_path;
use super::problem::InputProblem;
use super::shape::{shape_of, Flag, FlagKind, Shape};
use super::Schema;

/// The value `words` give for `schema`, or every problem found in them.
pub fn parse(schema: &Schema, words: &[String]) -> Result<Value, Vec<InputProblem>> {
    let Shape::Flags(flags) = shape_of(schema.raw()) else {
        return Err(vec![InputProblem::TakesJson]);
    };
    let mut given: Vec<Option<Value>> = vec![None; flags.len()];
    let mut problems = Vec::new();
    let mut stray = Vec::new();
    let mut without_value: Vec<&str> = Vec::new();
    let mut rest = words.iter().peekable();
    while let Some(word) = rest.next() {
        let Some((name, inline)) = option_parts(word) else {
            stray.push(word.clone());
            continue;
        };
        let Some(index) = flags.iter().position(|flag| flag.name == name) else {
            if inline.is_none() && rest.peek().is_some_and(|next| !next.starts_with("--")) {
                rest.next();
            }
            problems.push(InputProblem::UnknownOption {
                option: format!("--{name}"),
                accepted: flags.iter().map(|f| format!("--{}", f.name)).collect(),
            });
            continue;
        };
        let flag = &flags[index];
        let value = match inline {
            Some(value) => Some(value),
            None => rest
                .next_if(|next| !is_accepted_option(next, &flags))
                .cloned(),
        };
        match (value, &given[index]) {
            (None, _) => {
                without_value.push(flag.name);
                problems.push(InputProblem::MissingValue {
                    option: format!("--{}", flag.name),
                });
            }
            (Some(_), Some(_)) => {
                let repeated = InputProblem::RepeatedOption {
                    option: format!("--{}", flag.name),
                };
                if !problems.contains(&repeated) {
                    problems.push(repeated);
                }
            }
            (Some(value), None) => {
                if !matches!(flag.kind, FlagKind::Text) && is_past_exact_integers(&value) {
                    problems.push(InputProblem::InexactInteger {
                        option: format!("--{}", flag.name),
                        word: value.clone(),
                    });
                }
                given[index] = Some(convert(&flag.kind, value));
            }
        }
    }
    if !stray.is_empty() {
        problems.push(InputProblem::StrayWords { words: stray });
    }
    let value = object_of(&flags, given);
    let missing_reported = |error: &super::FieldError| {
        without_value
            .iter()
            .any(|name| error.path == property_path(name))
    };
    let field_problems = schema
        .check(&value)
        .into_iter()
        .filter(|e| !missing_reported(e));
    problems.extend(field_problems.map(InputProblem::Field));
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(problems)
    }
}

/// `--name=value` → (`name`, Some(`value`)), `--name` → (`name`, None); any other word is none.
fn option_parts(word: &str) -> Option<(&str, Option<String>)> {
    let option = word.strip_prefix("--").filter(|o| !o.is_empty())?;
    Some(match option.split_once('=') {
        Some((name, value)) => (name, Some(value.to_string())),
        None => (option, None),
    })
}

fn is_accepted_option(word: &str, flags: &[Flag]) -> bool {
    option_parts(word).is_some_and(|(name, _)| flags.iter().any(|f| f.name == name))
}

/// The object of the options given, in the schema's property order.
fn object_of(flags: &[Flag], given: Vec<Option<Value>>) -> Value {
    let entries = flags
        .iter()
        .zip(given)
        .filter_map(|(flag, value)| Some((flag.name.to_string(), value?)));
    Value::Object(entries.collect::<Map<String, Value>>())
}

/// `word` as the option's kind of value, or as text when it is not one (the check reports it).
fn convert(kind: &FlagKind, word: String) -> Value {
    let converted = match kind {
        FlagKind::Text => None,
        FlagKind::Integer => integer(&word),
        FlagKind::Number => number(&word),
        FlagKind::Boolean => boolean(&word),
        FlagKind::Literals(options) => literal(options, &word),
    };
    converted.unwrap_or(Value::String(word))
}

/// The largest integer JSON carries exactly to the workflow's JS (2^53 - 1,
/// `Number.MAX_SAFE_INTEGER`); a larger one would arrive rounded.
pub const MAX_EXACT_INTEGER: u64 = (1 << 53) - 1;

/// Whether `word` is written as an integer (digits, maybe a `-`) past ±[`MAX_EXACT_INTEGER`]:
/// refused rather than rounded. (`1e300` is written as a float, and means the float JS reads.)
fn is_past_exact_integers(word: &str) -> bool {
    let digits = word.strip_prefix('-').unwrap_or(word);
    let digits = digits.trim_start_matches('0');
    !word.is_empty()
        && word
            .strip_prefix('-')
            .unwrap_or(word)
            .bytes()
            .all(|b| b.is_ascii_digit())
        && (digits.len() > 16 || digits.parse::<u64>().is_ok_and(|n| n > MAX_EXACT_INTEGER))
}

fn integer(word: &str) -> Option<Value> {
    let digits = word.strip_prefix('-').unwrap_or(word);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    word.parse::<i64>()
        .map(Value::from)
        .or_else(|_| word.parse::<u64>().map(Value::from))
        .ok()
}

fn number(word: &str) -> Option<Value> {
    if let Some(whole) = integer(word) {
        return Some(whole);
    }
    let numeric = |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-');
    let has_digit = word.bytes().any(|b| b.is_ascii_digit());
    if !has_digit || !word.bytes().all(numeric) {
        return None;
    }
    let float: f64 = word.parse().ok()?;
    Number::from_f64(float).map(Value::Number)
}

fn boolean(word: &str) -> Option<Value> {
    match word {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        _ => None,
    }
}

/// The literal whose text is `word`; failing that, a number or boolean when the literals are not
/// all text, so the check names what was got as it was meant.
fn literal(options: &[&Value], word: &str) -> Option<Value> {
    let text_of = |option: &Value| match option {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    if let Some(option) = options.iter().find(|option| text_of(option) == word) {
        return Some((*option).clone());
    }
    if options.iter().all(|option| option.is_string()) {
        return None;
    }
    number(word).or_else(|| boolean(word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn finding() -> Schema {
        Schema::compile(json!({
            "type": "object",
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "line": {"type": "integer", "minimum": 1},
                "problem": {"type": "string", "minLength": 1},
                "score": {"type": "number"},
                "sure": {"type": "boolean"},
                "level": {"anyOf": [{"const": "low"}, {"const": "high"}]},
                "size": {"enum": [1, 2, 3]}
            },
            "required": ["file", "line", "problem"],
            "additionalProperties": false
        }))
        .unwrap()
    }

    fn words(text: &[&str]) -> Vec<String> {
        text.iter().map(|w| w.to_string()).collect()
    }

    fn parsed(text: &[&str]) -> Value {
        parse(&finding(), &words(text)).unwrap()
    }

    fn problems(text: &[&str]) -> Vec<String> {
        let problems = parse(&finding(), &words(text)).unwrap_err();
        problems.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_spec_call_gives_the_finding() {
        let value = parsed(&[
            "--file",
            "src/report.ts",
            "--line",
            "41",
            "--problem",
            "formatDate is never called",
        ]);
        assert_eq!(
            value,
            json!({"file": "src/report.ts", "line": 41, "problem": "formatDate is never called"})
        );
    }

    #[test]
    fn values_convert_by_type_in_schema_order() {
        let value = parsed(&[
            "--size=2",
            "--level",
            "high",
            "--sure",
            "false",
            "--score=-0.5",
            "--problem=a=b",
            "--line",
            "7",
            "--file",
            "a",
        ]);
        assert_eq!(
            serde_json::to_string(&value).unwrap(),
            r#"{"file":"a","line":7,"problem":"a=b","score":-0.5,"sure":false,"level":"high","size":2}"#
        );
    }

    #[test]
    fn quoting_content_passes_through_unchanged() {
        let value = parsed(&[
            "--file",
            "it's here",
            "--line",
            "1",
            "--problem",
            "'\\'' -- \"x\"",
        ]);
        assert_eq!(value["file"], json!("it's here"));
        assert_eq!(value["problem"], json!("'\\'' -- \"x\""));
    }

    #[test]
    fn integers_past_2_pow_53_are_refused_not_rounded() {
        let schema = Schema::compile(json!({"type": "object", "properties": {
            "id": {"type": "integer"}, "x": {"type": "number"}}}))
        .unwrap();
        let said = |text: &[&str]| {
            parse(&schema, &words(text))
                .map_err(|p| p.iter().map(ToString::to_string).collect::<Vec<_>>())
        };
        assert_eq!(
            said(&["--id", "9007199254740991"]),
            Ok(json!({"id": 9007199254740991u64}))
        );
        assert_eq!(
            said(&["--id", "-9007199254740991"]),
            Ok(json!({"id": -9007199254740991i64}))
        );
        assert_eq!(said(&["--x", "1e300"]), Ok(json!({"x": 1e300})));
        for (flag, word) in [
            ("--id", "9007199254740993"),
            ("--id", "-9007199254740993"),
            ("--x", "9007199254740993"),
            ("--x", "18446744073709551616000"),
            ("--id", "18446744073709551616000"),
        ] {
            let problems = said(&[flag, word]).unwrap_err();
            assert!(
                problems[0].starts_with(&format!("{flag}: ")) && problems[0].contains("2^53"),
                "{word}: {problems:?}"
            );
        }
    }

    #[test]
    fn a_negative_number_follows_its_option() {
        let value = parsed(&[
            "--file",
            "a",
            "--line",
            "1",
            "--problem",
            "p",
            "--score",
            "-1e3",
        ]);
        assert_eq!(value["score"], json!(-1000.0));
        assert_eq!(
            problems(&["--file", "a", "--line", "-3", "--problem", "p"]),
            ["value.line: expected integer ≥ 1; got -3"]
        );
    }

    #[test]
    fn a_word_of_the_wrong_type_is_reported_as_the_check_reports_it() {
        assert_eq!(
            problems(&[
                "--file",
                "a",
                "--line",
                "abc",
                "--problem",
                "p",
                "--sure",
                "yes"
            ]),
            [
                r#"value.line: expected integer; got "abc""#,
                r#"value.sure: expected true or false; got "yes""#,
            ]
        );
        assert_eq!(
            problems(&[
                "--file",
                "a",
                "--line",
                "1.0",
                "--problem",
                "p",
                "--size",
                "4"
            ]),
            [
                r#"value.line: expected integer; got "1.0""#,
                "value.size: expected one of 1, 2, 3; got 4",
            ]
        );
    }

    #[test]
    fn missing_required_options_are_reported_by_the_check() {
        assert_eq!(
            problems(&["--file", ""]),
            [
                r#"value.file: expected text of at least 1 character; got """#,
                "value.line: required, missing",
                "value.problem: required, missing",
            ]
        );
    }

    #[test]
    fn an_unknown_option_names_the_accepted_ones() {
        assert_eq!(
            problems(&[
                "--file",
                "a",
                "--line",
                "1",
                "--problem",
                "p",
                "--colour",
                "red"
            ]),
            [
                "--colour: unknown option (accepted: --file, --line, --problem, --score, \
                 --sure, --level, --size)"
            ]
        );
    }

    #[test]
    fn a_repeated_option_is_refused() {
        assert_eq!(
            problems(&[
                "--file",
                "a",
                "--file",
                "b",
                "--line",
                "1",
                "--problem",
                "p"
            ]),
            ["--file: given more than once; give each option once"]
        );
    }

    #[test]
    fn an_option_without_value_is_refused_once() {
        assert_eq!(
            problems(&["--file", "--line", "1", "--problem"]),
            [
                "--file: missing value; write --file '<value>'",
                "--problem: missing value; write --problem '<value>'",
            ]
        );
        let value = parsed(&["--file=--line", "--line", "1", "--problem", "p"]);
        assert_eq!(value["file"], json!("--line"));
    }

    #[test]
    fn words_outside_options_are_refused_together() {
        assert_eq!(
            problems(&[
                "--file",
                "a",
                "--line",
                "1",
                "--problem",
                "formatDate",
                "is",
                "unused"
            ]),
            [
                r#"unexpected words "is", "unused": each value follows its --option; put a value with spaces in single quotes"#
            ]
        );
    }

    #[test]
    fn a_schema_taught_as_json_takes_no_options() {
        let list = Schema::compile(json!({"type": "array"})).unwrap();
        let problems = parse(&list, &words(&["--a", "1"])).unwrap_err();
        assert_eq!(problems, [InputProblem::TakesJson]);
    }

    #[test]
    fn an_empty_closed_object_takes_no_words() {
        let empty = Schema::compile(json!({
            "type": "object", "properties": {}, "additionalProperties": false
        }))
        .unwrap();
        assert_eq!(parse(&empty, &[]).unwrap(), json!({}));
        let problems = parse(&empty, &words(&["--x", "1"])).unwrap_err();
        assert_eq!(
            problems[0].to_string(),
            "--x: unknown option (this takes no options)"
        );
    }
}
