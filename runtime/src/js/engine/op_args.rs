//! An op's arguments, decoded by serde straight from the JS values it was called with.
//!
//! The argument list reads as a sequence for a tuple or tuple struct (`(Bytes, bool)` from
//! `op(bytes, fatal)`), as nothing for `()`, and as its first value for anything else (a struct
//! from an options object, a `String`, a number). Values read as JSON does: `undefined` and
//! `null` are `None` or `()`, integral numbers read as integers, a property whose value is
//! `undefined` is left out. Two newtypes read what plain serde cannot: `Bytes` takes a
//! `Uint8Array`, copied at once; `Json` takes any value under convert.rs's
//! strict rules, so what is not JSON is refused with its path (`value.when is a Date, ...`).

use rquickjs::{Array, Ctx, Object, Type, TypedArray, Value};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

use super::op_value::OpError;
use crate::js::convert::{self, NotJson};

/// The name `Json` asks for, so that this deserializer reads it with convert.rs's rules.
const JSON_NEWTYPE: &str = "$awf::Json";
/// The same for `JsonCheck`, which takes what is not JSON as a value, not an error.
const JSON_CHECK_NEWTYPE: &str = "$awf::JsonCheck";

/// The JS arguments of one op call.
pub struct OpArgs<'a, 'js> {
    ctx: &'a Ctx<'js>,
    values: &'a [Value<'js>],
}

impl<'a, 'js> OpArgs<'a, 'js> {
    pub fn new(ctx: &'a Ctx<'js>, values: &'a [Value<'js>]) -> OpArgs<'a, 'js> {
        OpArgs { ctx, values }
    }

    /// The arguments as `T`; a `TypeError` saying what did not fit (with what to do instead of
    /// a value that is not JSON, as its `hint`).
    pub fn decode<T: DeserializeOwned>(self) -> Result<T, OpError> {
        T::deserialize(ArgList(self)).map_err(|e| match e {
            DecodeError::NotJson(not_json) => {
                OpError::type_error(not_json.to_string()).with_hint(not_json.fix())
            }
            other => OpError::type_error(other.to_string()),
        })
    }

    fn get(&self, index: usize) -> Value<'js> {
        self.values
            .get(index)
            .cloned()
            .unwrap_or_else(|| Value::new_undefined(self.ctx.clone()))
    }
}

/// A JS value as strict JSON (convert.rs's rules); `None` for `undefined`.
#[derive(Debug, Clone, PartialEq)]
pub struct Json(pub Option<serde_json::Value>);

impl<'de> de::Deserialize<'de> for Json {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        struct JsonVisitor;
        impl<'de> Visitor<'de> for JsonVisitor {
            type Value = Json;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_none<E: de::Error>(self) -> Result<Json, E> {
                Ok(Json(None))
            }
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Json, D::Error> {
                de::Deserialize::deserialize(deserializer).map(|v| Json(Some(v)))
            }
        }
        deserializer.deserialize_newtype_struct(JSON_NEWTYPE, JsonVisitor)
    }
}

/// A JS value read as strict JSON (`None` for `undefined`), or why it is not JSON: for ops
/// that report that rather than throw it.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonCheck(pub Result<Option<serde_json::Value>, String>);

impl<'de> de::Deserialize<'de> for JsonCheck {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<JsonCheck, D::Error> {
        struct CheckVisitor;
        impl<'de> Visitor<'de> for CheckVisitor {
            type Value = JsonCheck;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_none<E: de::Error>(self) -> Result<JsonCheck, E> {
                Ok(JsonCheck(Ok(None)))
            }
            /// Why the value is not JSON.
            fn visit_str<E: de::Error>(self, why: &str) -> Result<JsonCheck, E> {
                Ok(JsonCheck(Err(why.to_string())))
            }
            fn visit_string<E: de::Error>(self, why: String) -> Result<JsonCheck, E> {
                Ok(JsonCheck(Err(why)))
            }
            fn visit_newtype_struct<D: de::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<JsonCheck, D::Error> {
                de::Deserialize::deserialize(deserializer).map(|v| JsonCheck(Ok(Some(v))))
            }
        }
        deserializer.deserialize_newtype_struct(JSON_CHECK_NEWTYPE, CheckVisitor)
    }
}

/// Bytes from a `Uint8Array`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bytes(pub Vec<u8>);

impl<'de> de::Deserialize<'de> for Bytes {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Bytes, D::Error> {
        struct BytesVisitor;
        impl<'de> Visitor<'de> for BytesVisitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a Uint8Array")
            }
            fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Bytes, E> {
                Ok(Bytes(bytes))
            }
            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(bytes.to_vec()))
            }
        }
        deserializer.deserialize_byte_buf(BytesVisitor)
    }
}

/// Why the arguments did not decode.
#[derive(Debug)]
pub enum DecodeError {
    NotJson(NotJson),
    Other(String),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::NotJson(e) => e.fmt(f),
            DecodeError::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for DecodeError {}

impl de::Error for DecodeError {
    fn custom<T: std::fmt::Display>(message: T) -> DecodeError {
        DecodeError::Other(message.to_string())
    }
}

/// The argument list.
struct ArgList<'a, 'js>(OpArgs<'a, 'js>);

impl<'de, 'a, 'js> de::Deserializer<'de> for ArgList<'a, 'js> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        JsValue(self.0.get(0)).deserialize_any(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_seq(Positional {
            args: self.0,
            next: 0,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        visitor.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        JsValue(self.0.get(0)).deserialize_option(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        JsValue(self.0.get(0)).deserialize_newtype_struct(name, visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        JsValue(self.0.get(0)).deserialize_byte_buf(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        JsValue(self.0.get(0)).deserialize_enum(name, variants, visitor)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        unit_struct map struct identifier ignored_any
    }
}

/// The arguments one after the other; missing ones are `undefined`.
struct Positional<'a, 'js> {
    args: OpArgs<'a, 'js>,
    next: usize,
}

impl<'de, 'a, 'js> de::SeqAccess<'de> for Positional<'a, 'js> {
    type Error = DecodeError;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        let value = self.args.get(self.next);
        self.next += 1;
        seed.deserialize(JsValue(value)).map(Some)
    }
}

/// One JS value.
struct JsValue<'js>(Value<'js>);

impl<'js> JsValue<'js> {
    /// The bytes of a `Uint8Array` (a `Buffer` too), copied at once, before any JS runs that
    /// could detach the buffer.
    fn bytes(&self) -> Option<Vec<u8>> {
        let array = TypedArray::<u8>::from_value(self.0.clone()).ok()?;
        // SAFETY: the slice is copied before any JS runs.
        Some(
            unsafe { array.as_bytes() }
                .map(<[u8]>::to_vec)
                .unwrap_or_default(),
        )
    }
}

impl<'de, 'js> de::Deserializer<'de> for JsValue<'js> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let value = &self.0;
        match value.type_of() {
            Type::Undefined | Type::Uninitialized | Type::Null => visitor.visit_unit(),
            Type::Bool => visitor.visit_bool(value.as_bool().unwrap_or(false)),
            Type::Int => visitor.visit_i64(i64::from(value.as_int().unwrap_or(0))),
            Type::Float => {
                let f = value.as_float().unwrap_or(f64::NAN);
                if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                    visitor.visit_i64(f as i64)
                } else {
                    visitor.visit_f64(f)
                }
            }
            Type::String => visitor.visit_string(
                value
                    .as_string()
                    .and_then(|s| s.to_string().ok())
                    .unwrap_or_default(),
            ),
            Type::Array => {
                let array = value.as_array().expect("type is array").clone();
                let len = array.len();
                visitor.visit_seq(Items {
                    array,
                    next: 0,
                    len,
                })
            }
            Type::Object | Type::Exception => match self.bytes() {
                Some(bytes) => visitor.visit_byte_buf(bytes),
                None => {
                    let object = value.as_object().expect("type is object").clone();
                    visitor.visit_map(Properties::new(object)?)
                }
            },
            other => Err(DecodeError::Other(format!(
                "{} cannot be an op argument",
                other.as_str()
            ))),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        if self.0.is_undefined() || self.0.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        if name != JSON_NEWTYPE && name != JSON_CHECK_NEWTYPE {
            return visitor.visit_newtype_struct(self);
        }
        match convert::to_json(&self.0) {
            Ok(None) => visitor.visit_none(),
            Ok(Some(json)) => visitor
                .visit_newtype_struct(json)
                .map_err(|e| DecodeError::Other(e.to_string())),
            Err(not_json) if name == JSON_CHECK_NEWTYPE => {
                visitor.visit_string(not_json.to_string())
            }
            Err(not_json) => Err(DecodeError::NotJson(not_json)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.bytes() {
            Some(bytes) => visitor.visit_byte_buf(bytes),
            None => Err(DecodeError::Other(format!(
                "expected a Uint8Array, got {}",
                self.0.type_name()
            ))),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        match self.0.as_string().and_then(|s| s.to_string().ok()) {
            Some(text) => visitor.visit_enum(text.into_deserializer()),
            None => Err(DecodeError::Other(format!(
                "expected a string, got {}",
                self.0.type_name()
            ))),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// The items of an array; holes and `undefined` read as `()`.
struct Items<'js> {
    array: Array<'js>,
    next: usize,
    len: usize,
}

impl<'de, 'js> de::SeqAccess<'de> for Items<'js> {
    type Error = DecodeError;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        if self.next >= self.len {
            return Ok(None);
        }
        let item: Value = self
            .array
            .get(self.next)
            .map_err(|e| DecodeError::Other(e.to_string()))?;
        self.next += 1;
        seed.deserialize(JsValue(item)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.next)
    }
}

/// An object's own enumerable string-keyed properties, without those set to `undefined`.
struct Properties<'js> {
    entries: std::vec::IntoIter<(String, Value<'js>)>,
    value: Option<Value<'js>>,
}

impl<'js> Properties<'js> {
    fn new(object: Object<'js>) -> Result<Properties<'js>, DecodeError> {
        let mut entries = Vec::new();
        for entry in object.props::<String, Value>() {
            let (key, value) = entry.map_err(|e| DecodeError::Other(e.to_string()))?;
            if !value.is_undefined() {
                entries.push((key, value));
            }
        }
        Ok(Properties {
            entries: entries.into_iter(),
            value: None,
        })
    }
}

impl<'de, 'js> de::MapAccess<'de> for Properties<'js> {
    type Error = DecodeError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DecodeError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        let value = self
            .value
            .take()
            .ok_or_else(|| DecodeError::Other("a value without its key".into()))?;
        seed.deserialize(JsValue(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rquickjs::{Context, Runtime};
    use serde::Deserialize;
    use serde_json::json;

    fn decode<T: DeserializeOwned>(args: &str) -> Result<T, OpError> {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            let values: Vec<Value> = ctx.eval(format!("[{args}]")).unwrap();
            OpArgs::new(&ctx, &values).decode::<T>()
        })
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Options {
        path: String,
        timeout_ms: Option<u64>,
        #[serde(default)]
        recursive: bool,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Pair(Bytes, bool);

    #[test]
    fn a_struct_comes_from_an_options_object() {
        assert_eq!(
            decode::<Options>("{ path: 'a.txt', timeoutMs: 1500.0, recursive: undefined }")
                .unwrap(),
            Options {
                path: "a.txt".into(),
                timeout_ms: Some(1500),
                recursive: false
            }
        );
        let error = decode::<Options>("{ path: 'a', mode: 1 }").unwrap_err();
        assert_eq!(error.class, super::super::op_value::ErrorClass::Type);
        assert!(
            error.message.contains("unknown field `mode`"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_tuple_struct_comes_from_positional_arguments() {
        assert_eq!(
            decode::<Pair>("new Uint8Array([1, 2, 3]), true").unwrap(),
            Pair(Bytes(vec![1, 2, 3]), true)
        );
        assert_eq!(
            decode::<(String, Option<String>)>("'x'").unwrap(),
            ("x".to_string(), None)
        );
        assert_eq!(decode::<u64>("7").unwrap(), 7);
        decode::<()>("1, 2").unwrap();
    }

    #[test]
    fn json_values_follow_the_strict_rules_with_their_path() {
        let Json(value) = decode::<Json>("{ a: [1, undefined], b: undefined }").unwrap();
        assert_eq!(value, Some(json!({ "a": [1, null] })));
        assert_eq!(decode::<Json>("").unwrap(), Json(None));
        let error = decode::<Json>("{ when: new Date(0) }").unwrap_err();
        assert_eq!(error.message, "value.when is a Date, which is not JSON");
        assert_eq!(
            decode::<JsonCheck>("[() => 1]").unwrap(),
            JsonCheck(Err("value[0] is a function, which is not JSON".into()))
        );
        assert_eq!(
            decode::<JsonCheck>("'a'").unwrap(),
            JsonCheck(Ok(Some(json!("a"))))
        );
    }

    #[test]
    fn enums_read_from_strings_and_tags() {
        #[derive(Debug, Deserialize, PartialEq)]
        #[serde(rename_all = "lowercase")]
        enum Encoding {
            Hex,
            Base64,
        }
        #[derive(Debug, Deserialize, PartialEq)]
        #[serde(tag = "op", rename_all = "camelCase")]
        enum Call {
            Write { data: Bytes },
        }
        assert_eq!(decode::<Encoding>("'hex'").unwrap(), Encoding::Hex);
        assert!(decode::<Encoding>("'utf7'").is_err());
        assert_eq!(
            decode::<Call>("{ op: 'write', data: new Uint8Array([9]) }").unwrap(),
            Call::Write {
                data: Bytes(vec![9])
            }
        );
        let _ = Encoding::Base64;
    }
}
