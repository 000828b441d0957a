//! JSON values across the engine boundary, with one set of rules.
//!
//! `to_js` builds JS values from `serde_json::Value`. `to_json` reads a JS value strictly: plain
//! objects, arrays, strings, finite numbers, booleans and null. A Date, a Map, a class instance,
//! a function, a symbol, a bigint, NaN or a cycle is refused with the path where it was found,
//! because a workflow result, a tool result or an answer that silently changed shape in
//! `JSON.stringify` would be worse than an error. Properties whose value is `undefined` are left
//! out, as `JSON.stringify` does. Nesting is bounded (`limits::MAX_JSON_DEPTH`).

use rquickjs::{qjs, Array, Ctx, Object, Type, Value};
use serde_json::{Map, Number};

use crate::limits::MAX_JSON_DEPTH;

/// How much of the path to a too-deep value an error shows.
const SHOWN_PATH_CHARS: usize = 60;

/// Why a JS value is not JSON, and where in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotJson {
    /// `value`, `value.items[2].when`, ...
    pub path: String,
    /// What was found there: `a Date`, `a function`, `a cycle back to value`, ...
    pub found: String,
}

impl NotJson {
    /// What to give instead, when there is an obvious JSON form (the forms typings/agentswf.d.ts
    /// names to tsc): `return date.toISOString()`, or for a part of the value
    /// `value.when: use date.toISOString()`.
    pub fn fix(&self) -> Option<String> {
        let found = self.found.as_str();
        if found.starts_with("a promise") {
            return Some("await it first".to_string());
        }
        let form = match found {
            "a Date" => "date.toISOString()",
            "a Map" => "Object.fromEntries(map)",
            "a Set" => "[...set]",
            "a RegExp" => "regexp.source",
            "a bigint" => "a string or a number",
            "NaN" | "inf" | "-inf" => "a finite number, or null",
            _ if found.starts_with("an instance of class ") => "a plain object ({ ...instance })",
            _ => return None,
        };
        Some(match self.path.as_str() {
            "value" => format!("return {form}"),
            part => format!("{part}: use {form}"),
        })
    }
}

impl std::fmt::Display for NotJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is {}, which is not JSON", self.path, self.found)
    }
}

/// Builds the JS value for a JSON value.
pub fn to_js<'js>(ctx: &Ctx<'js>, value: &serde_json::Value) -> rquickjs::Result<Value<'js>> {
    Ok(match value {
        serde_json::Value::Null => Value::new_null(ctx.clone()),
        serde_json::Value::Bool(b) => Value::new_bool(ctx.clone(), *b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) if i32::try_from(i).is_ok() => Value::new_int(ctx.clone(), i as i32),
            _ => Value::new_number(ctx.clone(), n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => rquickjs::String::from_str(ctx.clone(), s)?.into_value(),
        serde_json::Value::Array(items) => {
            let array = Array::new(ctx.clone())?;
            for (i, item) in items.iter().enumerate() {
                array.set(i, to_js(ctx, item)?)?;
            }
            array.into_value()
        }
        serde_json::Value::Object(map) => {
            let object = Object::new(ctx.clone())?;
            for (key, item) in map {
                object.set(key.as_str(), to_js(ctx, item)?)?;
            }
            object.into_value()
        }
    })
}

/// Reads a JS value as JSON, strictly (see the module doc). `undefined` at the top is `None`.
pub fn to_json(value: &Value<'_>) -> Result<Option<serde_json::Value>, NotJson> {
    if value.is_undefined() {
        return Ok(None);
    }
    let mut walk = Walk {
        open: Vec::new(),
        object_prototype: object_prototype(value.ctx()),
    };
    walk.value(value, &mut "value".to_string()).map(Some)
}

struct Walk<'js> {
    /// Objects on the path from the root to here, to tell a cycle from a shared value.
    open: Vec<(usize, String)>,
    object_prototype: Option<Object<'js>>,
}

impl<'js> Walk<'js> {
    fn value(
        &mut self,
        value: &Value<'js>,
        path: &mut String,
    ) -> Result<serde_json::Value, NotJson> {
        let not_json = |found: &str, path: &str| NotJson {
            path: path.to_string(),
            found: found.to_string(),
        };
        match value.type_of() {
            Type::Null => Ok(serde_json::Value::Null),
            Type::Bool => Ok(serde_json::Value::Bool(value.as_bool().unwrap_or(false))),
            Type::Int => Ok(serde_json::Value::from(value.as_int().unwrap_or(0))),
            Type::Float => {
                let f = value.as_float().unwrap_or(f64::NAN);
                number(f).ok_or_else(|| not_json(&format!("{f}"), path))
            }
            Type::String => Ok(serde_json::Value::String(
                value
                    .as_string()
                    .and_then(|s| s.to_string().ok())
                    .unwrap_or_default(),
            )),
            Type::Undefined => Err(not_json("undefined", path)),
            Type::Symbol => Err(not_json("a symbol", path)),
            Type::BigInt => Err(not_json("a bigint", path)),
            Type::Function | Type::Constructor => Err(not_json("a function", path)),
            Type::Promise => Err(not_json("a promise (did you forget an await?)", path)),
            Type::Array => self.array(value, path),
            Type::Object | Type::Exception => self.object(value, path),
            _ => Err(not_json(value.type_name(), path)),
        }
    }

    fn enter(&mut self, value: &Value<'js>, path: &str) -> Result<(), NotJson> {
        // The walk recurses: bound it, or a deep enough value overflows the thread's stack.
        if self.open.len() >= MAX_JSON_DEPTH {
            let shown: String = path.chars().take(SHOWN_PATH_CHARS).collect();
            return Err(NotJson {
                path: format!("{shown}…"),
                found: format!("nested more than {MAX_JSON_DEPTH} levels deep"),
            });
        }
        let id = unsafe { qjs::JS_VALUE_GET_PTR(value.as_raw()) } as usize;
        if let Some((_, first)) = self.open.iter().find(|(open, _)| *open == id) {
            return Err(NotJson {
                path: path.to_string(),
                found: format!("a cycle back to {first}"),
            });
        }
        self.open.push((id, path.to_string()));
        Ok(())
    }

    fn array(
        &mut self,
        value: &Value<'js>,
        path: &mut String,
    ) -> Result<serde_json::Value, NotJson> {
        self.enter(value, path)?;
        let array = value.as_array().expect("type is array");
        let mut items = Vec::with_capacity(array.len());
        for i in 0..array.len() {
            let item: Value = array.get(i).map_err(|e| engine_error(e, path))?;
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            // JSON.stringify writes holes and undefined items as null; so do we.
            let json = if item.is_undefined() {
                serde_json::Value::Null
            } else {
                self.value(&item, path)?
            };
            path.truncate(len);
            items.push(json);
        }
        self.open.pop();
        Ok(serde_json::Value::Array(items))
    }

    fn object(
        &mut self,
        value: &Value<'js>,
        path: &mut String,
    ) -> Result<serde_json::Value, NotJson> {
        let object = value.as_object().expect("type is object");
        if let Some(kind) = self.non_plain(object) {
            return Err(NotJson {
                path: path.clone(),
                found: kind,
            });
        }
        self.enter(value, path)?;
        let mut map = Map::new();
        for key in object.keys::<String>() {
            let key = key.map_err(|e| engine_error(e, path))?;
            let item: Value = object
                .get(key.as_str())
                .map_err(|e| engine_error(e, path))?;
            if item.is_undefined() {
                continue;
            }
            let len = path.len();
            push_key(path, &key);
            let json = self.value(&item, path)?;
            path.truncate(len);
            map.insert(key, json);
        }
        self.open.pop();
        Ok(serde_json::Value::Object(map))
    }

    /// `Some(description)` for anything but a plain object (prototype Object.prototype or null).
    fn non_plain(&self, object: &Object<'js>) -> Option<String> {
        let prototype = object.get_prototype();
        let plain = match (&prototype, &self.object_prototype) {
            (None, _) => true,
            (Some(p), Some(o)) => p == o,
            (Some(_), None) => false,
        };
        if plain {
            return None;
        }
        let name = object
            .get::<_, Object>("constructor")
            .and_then(|c| c.get::<_, String>("name"))
            .unwrap_or_default();
        Some(match name.as_str() {
            "" => "an object with a custom prototype".to_string(),
            n if n.starts_with(['A', 'E', 'I', 'O', 'U']) => format!("an {n}"),
            n if BUILT_IN_CLASSES.contains(&n) => format!("a {n}"),
            n => format!("an instance of class {n}"),
        })
    }
}

const BUILT_IN_CLASSES: &[&str] = &[
    "Date",
    "Map",
    "Set",
    "WeakMap",
    "WeakSet",
    "RegExp",
    "Promise",
    "Uint8Array",
    "DataView",
    "Number",
    "String",
    "Boolean",
    "Symbol",
    "Buffer",
    "URL",
];

fn object_prototype<'js>(ctx: &Ctx<'js>) -> Option<Object<'js>> {
    ctx.globals()
        .get::<_, Object>("Object")
        .and_then(|o| o.get::<_, Object>("prototype"))
        .ok()
}

fn number(f: f64) -> Option<serde_json::Value> {
    if !f.is_finite() {
        return None;
    }
    if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
        return Some(serde_json::Value::from(f as i64));
    }
    Number::from_f64(f).map(serde_json::Value::Number)
}

fn push_key(path: &mut String, key: &str) {
    let plain = key.chars().enumerate().all(|(i, c)| {
        c == '_' || c == '$' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())
    });
    if plain && !key.is_empty() {
        path.push('.');
        path.push_str(key);
    } else {
        path.push_str(&format!("[{}]", serde_json::Value::String(key.to_string())));
    }
}

fn engine_error(e: rquickjs::Error, path: &str) -> NotJson {
    NotJson {
        path: path.to_string(),
        found: format!("unreadable ({e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rquickjs::{Context, Runtime};
    use serde_json::json;

    fn with_ctx(f: impl FnOnce(&Ctx<'_>)) {
        let rt = Runtime::new().unwrap();
        let context = Context::full(&rt).unwrap();
        context.with(|ctx| f(&ctx));
    }

    fn read(ctx: &Ctx<'_>, source: &str) -> Result<Option<serde_json::Value>, NotJson> {
        let value: Value = ctx.eval(source).unwrap();
        to_json(&value)
    }

    #[test]
    fn plain_values_round_trip() {
        with_ctx(|ctx| {
            let value = json!({"a": [1, 2.5, "x", null, true], "b": {"c": -3}, "big": 1e300});
            let js = to_js(ctx, &value).unwrap();
            assert_eq!(to_json(&js).unwrap(), Some(value));
        });
    }

    #[test]
    fn undefined_properties_are_left_out_and_undefined_items_become_null() {
        with_ctx(|ctx| {
            assert_eq!(
                read(ctx, "({a: undefined, b: [undefined, 1]})").unwrap(),
                Some(json!({"b": [null, 1]}))
            );
            assert_eq!(read(ctx, "undefined").unwrap(), None);
        });
    }

    #[test]
    fn non_json_values_are_refused_with_their_path() {
        with_ctx(|ctx| {
            let cases = [
                (
                    "({when: new Date(0)})",
                    "value.when is a Date, which is not JSON",
                ),
                (
                    "(class Finding {}, [new (class Finding {})()])",
                    "value[0] is an instance of class Finding, which is not JSON",
                ),
                ("({f() {}})", "value.f is a function, which is not JSON"),
                ("({n: NaN})", "value.n is NaN, which is not JSON"),
                (
                    "({'odd key': new Map()})",
                    "value[\"odd key\"] is a Map, which is not JSON",
                ),
                (
                    "(() => { const a = {b: {}}; a.b.c = a; return a })()",
                    "value.b.c is a cycle back to value, which is not JSON",
                ),
                (
                    "Promise.resolve(1)",
                    "value is a promise (did you forget an await?), which is not JSON",
                ),
            ];
            for (source, message) in cases {
                assert_eq!(
                    read(ctx, source).unwrap_err().to_string(),
                    message,
                    "{source}"
                );
            }
        });
    }

    #[test]
    fn what_has_a_json_form_says_what_to_return() {
        with_ctx(|ctx| {
            let fix = |source: &str| read(ctx, source).unwrap_err().fix();
            assert_eq!(
                fix("new Date(0)").as_deref(),
                Some("return date.toISOString()")
            );
            assert_eq!(
                fix("({when: new Date(0)})").as_deref(),
                Some("value.when: use date.toISOString()")
            );
            assert_eq!(fix("new Set([1])").as_deref(), Some("return [...set]"));
            assert_eq!(
                fix("new (class Finding {})()").as_deref(),
                Some("return a plain object ({ ...instance })")
            );
            assert_eq!(
                fix("[1 / 0]").as_deref(),
                Some("value[0]: use a finite number, or null")
            );
            assert_eq!(fix("Promise.resolve(1)").as_deref(), Some("await it first"));
            assert_eq!(fix("(() => 1)"), None);
        });
    }

    #[test]
    fn a_value_nested_too_deep_is_refused_not_a_stack_overflow() {
        with_ctx(|ctx| {
            let error = read(
                ctx,
                "let v = 1; for (let i = 0; i < 200000; i++) v = [v]; v",
            )
            .unwrap_err()
            .to_string();
            let shown: String = format!("value{}", "[0]".repeat(SHOWN_PATH_CHARS))
                .chars()
                .take(SHOWN_PATH_CHARS)
                .collect();
            assert_eq!(
                error,
                format!(
                    "{shown}… is nested more than {MAX_JSON_DEPTH} levels deep, which is not JSON"
                )
            );
            let fits = format!(
                "{}1{}",
                "[".repeat(MAX_JSON_DEPTH),
                "]".repeat(MAX_JSON_DEPTH)
            );
            assert!(read(ctx, &fits).is_ok());
        });
    }

    #[test]
    fn a_shared_value_is_not_a_cycle() {
        with_ctx(|ctx| {
            assert_eq!(
                read(ctx, "(() => { const s = {x: 1}; return [s, s] })()").unwrap(),
                Some(json!([{"x": 1}, {"x": 1}]))
            );
        });
    }

    #[test]
    fn objects_without_prototype_are_plain() {
        with_ctx(|ctx| {
            assert_eq!(
                read(ctx, "Object.assign(Object.create(null), {a: 1})").unwrap(),
                Some(json!({"a": 1}))
            );
        });
    }
}
