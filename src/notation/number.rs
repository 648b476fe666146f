//! Whole numbers as the notation's JSON writes them. serde's own messages
//! for a `1.5`, a `"6"` or a `-1` seed name Rust's types ("expected i64");
//! someone writing a position by hand is told what the notation wants.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Unexpected, Visitor};

/// A whole number read from JSON: `Whole<i64>` a roll (checked against
/// 1..6 where it is used, so that the message names the roll),
/// `Whole<u64>` a seed.
#[derive(Debug, Clone, Copy)]
pub struct Whole<T>(pub T);

/// What the notation's numbers of type `Self` are, in its messages.
pub trait Kind: Sized + TryFrom<i64> + TryFrom<u64> {
    const EXPECTED: &'static str;
}

impl Kind for i64 {
    const EXPECTED: &'static str = "a whole number 1 to 6";
}

impl Kind for u64 {
    const EXPECTED: &'static str = "a whole number 0 to 18446744073709551615";
}

impl<'de, T: Kind> Deserialize<'de> for Whole<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(WholeVisitor(PhantomData))
    }
}

struct WholeVisitor<T>(PhantomData<T>);

impl<T: Kind> WholeVisitor<T> {
    fn fit<E: de::Error, V>(&self, value: V, unexpected: Unexpected) -> Result<Whole<T>, E>
    where
        T: TryFrom<V>,
    {
        T::try_from(value)
            .map(Whole)
            .map_err(|_| E::invalid_value(unexpected, self))
    }
}

impl<T: Kind> Visitor<'_> for WholeVisitor<T> {
    type Value = Whole<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::EXPECTED)
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Whole<T>, E> {
        self.fit(value, Unexpected::Signed(value))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Whole<T>, E> {
        self.fit(value, Unexpected::Unsigned(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read<T: Kind>(json: &str) -> Result<T, String> {
        serde_json::from_str::<Whole<T>>(json)
            .map(|w| w.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_number_that_is_not_whole_or_does_not_fit_says_what_is_wanted() {
        assert_eq!(read::<i64>("-3").unwrap(), -3);
        assert_eq!(read::<u64>("18446744073709551615").unwrap(), u64::MAX);
        for (json, wanted) in [
            (
                "1.5",
                "floating point `1.5`, expected a whole number 1 to 6",
            ),
            ("\"6\"", "string \"6\", expected a whole number 1 to 6"),
            (
                "10000000000000000000",
                "integer `10000000000000000000`, expected a whole number 1 to 6",
            ),
        ] {
            let error = read::<i64>(json).unwrap_err();
            assert!(error.contains(wanted), "{json}: {error}");
        }
        for (json, wanted) in [
            (
                "-1",
                "integer `-1`, expected a whole number 0 to 18446744073709551615",
            ),
            (
                "1e30",
                "floating point `1e+30`, expected a whole number 0 to",
            ),
            ("null", "null, expected a whole number 0 to"),
        ] {
            let error = read::<u64>(json).unwrap_err();
            assert!(error.contains(wanted), "{json}: {error}");
        }
    }
}
