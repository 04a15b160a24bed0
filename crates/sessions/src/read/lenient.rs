//! Field types for typed, borrowing line structs that never fail on an unexpected JSON type.
//!
//! Agents change field types between releases (a string becomes an object, a number a string).
//! A typed struct with plain `Option<String>` fields would then reject the whole line; with these
//! wrappers the odd field reads as absent and the rest of the line is kept. Strings borrow from the
//! input where they can, so a cheap pass allocates only for escaped text.
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A string field: `Some` for a JSON string, `None` for anything else (which is skipped).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LStr<'a>(pub Option<Cow<'a, str>>);

/// A number field: `Some` for a JSON number (or a numeric string), `None` for anything else.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct LNum(pub Option<f64>);

/// A boolean field: `true` only for JSON `true`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LBool(pub bool);

impl<'a> LStr<'a> {
    pub fn as_str(&self) -> Option<&str> {
        self.0.as_deref()
    }
    /// The string when present and not empty.
    pub fn non_empty(&self) -> Option<&str> {
        self.0.as_deref().filter(|s| !s.is_empty())
    }
}

impl LNum {
    /// A non-negative whole count (token numbers); negative or fractional junk reads as 0.
    pub fn count(&self) -> u64 {
        match self.0 {
            Some(x) if x.is_finite() && x > 0.0 => x as u64,
            _ => 0,
        }
    }
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Implements the "anything else" arms of a visitor: consume the value and yield `$none`.
macro_rules! other_types_are_absent {
    ($none:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($none)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            skip_map(map).map(|_| $none)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            skip_seq(seq).map(|_| $none)
        }
    };
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = LStr<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(LStr(Some(Cow::Borrowed(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(LStr(Some(Cow::Owned(v.to_string()))))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(LStr(Some(Cow::Owned(v))))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(LStr(None))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(LStr(None))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(LStr(None))
    }
    other_types_are_absent!(LStr(None));
}

impl<'de: 'a, 'a> Deserialize<'de> for LStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrVisitor)
    }
}

struct NumVisitor;

impl<'de> Visitor<'de> for NumVisitor {
    type Value = LNum;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(LNum(Some(v as f64)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(LNum(Some(v as f64)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(LNum(Some(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(LNum(v.trim().parse().ok()))
    }
    other_types_are_absent!(LNum(None));
}

impl<'de> Deserialize<'de> for LNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumVisitor)
    }
}

struct BoolVisitor;

impl<'de> Visitor<'de> for BoolVisitor {
    type Value = LBool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(LBool(false))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(LBool(false))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(LBool(false))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(LBool(false))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(LBool(false))
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(LBool(false))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        skip_map(map).map(|_| LBool(false))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        skip_seq(seq).map(|_| LBool(false))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(LBool(v))
    }
}

impl<'de> Deserialize<'de> for LBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BoolVisitor)
    }
}

/// A field that is either an object of type `T` or something else (read as `None`). Objects that
/// do not match `T`'s shape still fail, so `T` should be built from lenient fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LObj<T>(pub Option<T>);

impl<T> Default for LObj<T> {
    fn default() -> Self {
        LObj(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LObj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LObj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map)).map(|t| LObj(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                skip_seq(seq).map(|_| LObj(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LObj(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(LObj(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(LObj(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LObj(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LObj(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LObj(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LObj(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// An array of objects of type `T` (other elements skipped); anything that is not an array reads
/// as empty.
#[derive(Debug, Clone, PartialEq)]
pub struct LVec<T>(pub Vec<T>);

impl<T> Default for LVec<T> {
    fn default() -> Self {
        LVec(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LVec<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LVec<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<LObj<T>>()? {
                    out.extend(item.0);
                }
                Ok(LVec(out))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LVec::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(LVec::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(LVec::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LVec::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LVec::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LVec::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(LVec::default())
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                skip_map(map).map(|_| LVec::default())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(borrow, default)]
        s: LStr<'a>,
        #[serde(default)]
        n: LNum,
        #[serde(default)]
        b: LBool,
        #[serde(default)]
        o: LObj<Inner>,
    }
    #[derive(Deserialize)]
    struct Inner {
        #[serde(default)]
        x: LNum,
    }

    #[test]
    fn wrong_types_read_as_absent_and_strings_borrow() {
        let line = r#"{"s":"plain","n":"12","b":true,"o":{"x":3}}"#;
        let p: Probe = serde_json::from_str(line).unwrap();
        assert!(matches!(p.s.0, Some(Cow::Borrowed("plain"))));
        assert_eq!(
            (p.n.count(), p.b.0, p.o.0.unwrap().x.count()),
            (12, true, 3)
        );
        let odd = r#"{"s":{"a":[1,2]},"n":[1],"b":"yes","o":"text"}"#;
        let p: Probe = serde_json::from_str(odd).unwrap();
        assert_eq!(
            (p.s.0, p.n.0, p.b.0, p.o.0.is_none()),
            (None, None, false, true)
        );
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let p = Probe::deserialize(&v).unwrap();
        assert!(matches!(p.s.0, Some(Cow::Borrowed("plain"))));
    }
}
