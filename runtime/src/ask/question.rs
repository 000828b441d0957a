//! What a question is (its key, its words, the answers it takes) and the check an answer
//! passes, the same in the waiting run, in `awf answer` and in a test's scripted answers: one of
//! `choices`, a value that fits `schema`, or text.

use serde_json::Value;

use crate::schema::Schema;

/// The longest key awf makes from a question's words.
const MAX_SLUG: usize = 40;
/// The longest key an author may give.
const MAX_KEY: usize = 64;

/// One question of `wf.ask`.
#[derive(Clone, Debug)]
pub struct Question {
    /// Its name in the run: the author's `key`, else made from its words (`key_of`), with `-2`,
    /// `-3` for the same key asked again in an attempt.
    pub key: String,
    pub text: String,
    /// The answers it takes, when it offers choices.
    pub choices: Option<Vec<String>>,
    /// The shape of the answer, when it is typed.
    pub schema: Option<Schema>,
}

/// A question awf refuses to ask.
#[derive(Debug, PartialEq, Eq)]
pub enum QuestionError {
    Key(String),
    Choices(String),
    Schema(String),
    /// An `asked` record awf cannot read back.
    Record(String),
}

impl std::fmt::Display for QuestionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QuestionError::Key(key) => write!(
                f,
                "key {key:?} is not a question key: a key is 1 to {MAX_KEY} letters, digits, '.', '_' or '-', starting with a letter or digit"
            ),
            QuestionError::Choices(why) => write!(f, "choices {why}"),
            QuestionError::Schema(why) => write!(f, "schema does not compile: {why}"),
            QuestionError::Record(why) => write!(f, "the asked record cannot be read: {why}"),
        }
    }
}

impl crate::hint::Hint for QuestionError {
    fn hint(&self) -> Option<String> {
        match self {
            QuestionError::Key(_) => Some(
                "give a short name such as key: \"ship-release\" (awf answer RUN --question KEY names it)"
                    .into(),
            ),
            QuestionError::Choices(_) => {
                Some("give at least one answer, each a string: choices: [\"yes\", \"no\"]".into())
            }
            QuestionError::Schema(_) => Some("give a typed() schema: schema: typed(Type.Object({ ... }))".into()),
            QuestionError::Record(_) => None,
        }
    }
}

/// The base key of a question: the author's `key`, checked, else made from its words
/// (`"Ship release 1.2?"` -> `ship-release-1-2`).
pub fn key_of(key: Option<&str>, text: &str) -> Result<String, QuestionError> {
    match key {
        Some(key) => {
            let fits = !key.is_empty()
                && key.len() <= MAX_KEY
                && key.starts_with(|c: char| c.is_ascii_alphanumeric())
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            if fits {
                Ok(key.to_string())
            } else {
                Err(QuestionError::Key(key.to_string()))
            }
        }
        None => Ok(slug(text)),
    }
}

/// Lower-case letters and digits of `text`, other runs as one `-`, cut at a word under
/// `MAX_SLUG` characters; `ask` when nothing is left.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let word = word.to_ascii_lowercase();
        let needed = if out.is_empty() {
            word.len()
        } else {
            word.len() + 1
        };
        if out.len() + needed > MAX_SLUG {
            if out.is_empty() {
                out.push_str(&word[..MAX_SLUG]);
            }
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word);
    }
    if out.is_empty() {
        "ask".to_string()
    } else {
        out
    }
}

impl Question {
    /// A question taking text.
    pub fn text(key: &str, text: &str) -> Question {
        Question {
            key: key.to_string(),
            text: text.to_string(),
            choices: None,
            schema: None,
        }
    }

    /// A question with its choices and schema read from what the author gave.
    pub fn new(
        key: String,
        text: String,
        choices: Option<&Value>,
        schema: Option<Value>,
    ) -> Result<Question, QuestionError> {
        let choices = match choices {
            None | Some(Value::Null) => None,
            Some(Value::Array(items)) if !items.is_empty() => Some(
                items
                    .iter()
                    .map(|item| match item {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(QuestionError::Choices(format!(
                            "must be strings; {other} is not"
                        ))),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(Value::Array(_)) => {
                return Err(QuestionError::Choices("must not be empty".into()))
            }
            Some(other) => {
                return Err(QuestionError::Choices(format!(
                    "must be a list of strings; got {other}"
                )))
            }
        };
        let schema = match schema {
            None | Some(Value::Null) => None,
            Some(raw) => {
                Some(Schema::compile(raw).map_err(|e| QuestionError::Schema(e.to_string()))?)
            }
        };
        if choices.is_some() && schema.is_some() {
            return Err(QuestionError::Choices(
                "and schema cannot both be given: an answer is one of the choices, or a value of the schema".into(),
            ));
        }
        Ok(Question {
            key,
            text,
            choices,
            schema,
        })
    }

    /// The question as an `asked` record holds it (`key`, `question`, `choices`, `schema`).
    pub fn from_asked(record: &Value) -> Result<Question, QuestionError> {
        let field = |name: &str| {
            record[name]
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| QuestionError::Record(format!("no {name}")))
        };
        Question::new(
            field("key")?,
            field("question")?,
            record.get("choices"),
            record.get("schema").cloned(),
        )
        .map_err(|e| QuestionError::Record(e.to_string()))
    }

    /// What kind of answer it takes, in a few words.
    pub fn takes(&self) -> String {
        match (&self.choices, &self.schema) {
            (Some(choices), _) => format!("one of {}", quoted(choices)),
            (None, Some(schema)) => format!("a value of {}", crate::schema::describe(schema.raw())),
            (None, None) => "text".to_string(),
        }
    }

    /// The answer `words` give, as `awf answer` reads them: JSON with `json`, or for a typed
    /// question when they parse as JSON; else the words as text.
    pub fn read(&self, words: &str, json: bool) -> Result<Value, String> {
        if json {
            return serde_json::from_str(words)
                .map_err(|e| format!("--json: the value is not JSON: {e}"));
        }
        if self.schema.is_some() {
            if let Ok(value) = serde_json::from_str(words) {
                return Ok(value);
            }
        }
        Ok(Value::String(words.to_string()))
    }

    /// Every reason `value` is not an answer to this question (empty when it is one).
    pub fn check(&self, value: &Value) -> Vec<String> {
        match (&self.choices, &self.schema) {
            (Some(choices), _) => match value.as_str() {
                Some(answer) if choices.iter().any(|c| c == answer) => Vec::new(),
                _ => vec![format!(
                    "{} is not one of the choices: {}",
                    shown(value),
                    quoted(choices)
                )],
            },
            (None, Some(schema)) => schema.check(value).iter().map(|e| e.to_string()).collect(),
            (None, None) => match value {
                Value::String(_) => Vec::new(),
                other => vec![format!("the question takes text; got {other}")],
            },
        }
    }
}

fn quoted(choices: &[String]) -> String {
    choices
        .iter()
        .map(|c| format!("{c:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_the_authors_or_made_from_the_words() {
        assert_eq!(
            key_of(None, "Ship release 1.2 to production?").unwrap(),
            "ship-release-1-2-to-production"
        );
        assert_eq!(key_of(None, "???").unwrap(), "ask");
        assert_eq!(
            key_of(
                None,
                "Is this a very long question that goes on and on about the plan?"
            )
            .unwrap(),
            "is-this-a-very-long-question-that-goes"
        );
        assert_eq!(key_of(Some("ship_1.2"), "x").unwrap(), "ship_1.2");
        assert_eq!(
            key_of(Some("a b"), "x"),
            Err(QuestionError::Key("a b".into()))
        );
        assert_eq!(
            key_of(Some("-a"), "x"),
            Err(QuestionError::Key("-a".into()))
        );
    }

    #[test]
    fn a_choice_question_takes_only_its_choices() {
        let q = Question::new(
            "s".into(),
            "Ship?".into(),
            Some(&json!(["yes", "no"])),
            None,
        )
        .unwrap();
        assert!(q.check(&json!("yes")).is_empty());
        assert_eq!(
            q.check(&json!("maybe")),
            vec![r#""maybe" is not one of the choices: "yes", "no""#]
        );
        assert_eq!(q.read("yes", false).unwrap(), json!("yes"));
    }

    #[test]
    fn a_typed_question_takes_a_value_of_its_schema() {
        let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]});
        let q = Question::new("p".into(), "Plan?".into(), None, Some(schema)).unwrap();
        assert!(q
            .check(&q.read(r#"{"ok": true}"#, false).unwrap())
            .is_empty());
        let problems = q.check(&json!({"ok": "yes"}));
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].starts_with("value.ok: expected true or false"),
            "{problems:?}"
        );
        assert!(q.read("{", true).unwrap_err().contains("not JSON"));
    }

    #[test]
    fn a_text_question_takes_text() {
        let q = Question::text("n", "Notes?");
        assert!(q.check(&json!("all good")).is_empty());
        assert_eq!(q.check(&json!(3)), vec!["the question takes text; got 3"]);
        assert_eq!(q.read("{\"a\": 1}", false).unwrap(), json!("{\"a\": 1}"));
    }

    #[test]
    fn bad_questions_are_refused() {
        let refused = |choices: Value, schema: Option<Value>| {
            Question::new("k".into(), "Q?".into(), Some(&choices), schema).unwrap_err()
        };
        assert!(matches!(
            refused(json!([]), None),
            QuestionError::Choices(_)
        ));
        assert!(matches!(
            refused(json!([1]), None),
            QuestionError::Choices(_)
        ));
        assert!(matches!(
            refused(json!(["a"]), Some(json!({"type": "string"}))),
            QuestionError::Choices(_)
        ));
        assert!(matches!(
            refused(Value::Null, Some(json!({"type": 7}))),
            QuestionError::Schema(_)
        ));
    }

    #[test]
    fn a_question_reads_back_from_its_record() {
        let record =
            json!({"event": "asked", "key": "s", "question": "Ship?", "choices": ["yes", "no"]});
        let q = Question::from_asked(&record).unwrap();
        assert_eq!(q.key, "s");
        assert_eq!(
            q.choices.as_deref(),
            Some(&["yes".to_string(), "no".to_string()][..])
        );
    }
}
