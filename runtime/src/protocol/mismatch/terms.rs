//! Serde's words for what a type expects and what it found, in the document's terms:
//! JSON types (`an integer`, `an object`) instead of Rust ones (`i64`, `struct Pet`), and
//! values quoted as JSON, cut to a short prefix.

use serde::de::Unexpected;

/// How many characters of a string a message quotes before cutting it with `…`.
pub(crate) const QUOTED_CHARS: usize = 32;

/// How many allowed values "one of …" lists before cutting the list with `…`.
const LISTED_VALUES: usize = 8;

/// `text` as a JSON string literal, cut after [`QUOTED_CHARS`] characters (on a char
/// boundary) with `…` before the closing quote.
pub(crate) fn quote(text: &str) -> String {
    let (prefix, cut) = prefix(text);
    let mut quoted = serde_json::to_string(prefix).unwrap_or_else(|_| String::from("\"\""));
    if cut {
        quoted.insert(quoted.len() - 1, '…');
    }
    quoted
}

/// `text` cut after [`QUOTED_CHARS`] characters with `…`, unquoted: for names (object
/// members, params) shown between backquotes and in JSON pointers.
pub(crate) fn shorten(text: &str) -> String {
    match prefix(text) {
        (prefix, true) => format!("{prefix}…"),
        (prefix, false) => prefix.to_owned(),
    }
}

/// The first [`QUOTED_CHARS`] characters of `text`, and whether that cut anything off.
fn prefix(text: &str) -> (&str, bool) {
    match text.char_indices().nth(QUOTED_CHARS) {
        Some((end, _)) => (&text[..end], true),
        None => (text, false),
    }
}

/// A number as JSON writes it (`1.5`, `1e+300`), never Rust's long decimal expansion.
pub(crate) fn number(value: f64) -> String {
    serde_json::Number::from_f64(value).map_or_else(|| String::from("a number"), |n| n.to_string())
}

/// What a visitor was given, in JSON terms: `a string "abc"`, `an integer 5`, `an
/// object`. `None` for what no JSON value is (serde's own enum and newtype forms).
pub(crate) fn found(unexpected: &Unexpected<'_>) -> Option<String> {
    Some(match *unexpected {
        Unexpected::Bool(b) => format!("a boolean {b}"),
        Unexpected::Unsigned(n) => format!("an integer {n}"),
        Unexpected::Signed(n) => format!("an integer {n}"),
        Unexpected::Float(f) => format!("a number {}", number(f)),
        Unexpected::Char(c) => format!("a string {}", quote(c.encode_utf8(&mut [0; 4]))),
        Unexpected::Str(s) => format!("a string {}", quote(s)),
        Unexpected::Bytes(_) | Unexpected::Seq => String::from("an array"),
        Unexpected::Unit => String::from("null"),
        Unexpected::Map => String::from("an object"),
        Unexpected::Option
        | Unexpected::NewtypeStruct
        | Unexpected::Enum
        | Unexpected::UnitVariant
        | Unexpected::NewtypeVariant
        | Unexpected::TupleVariant
        | Unexpected::StructVariant
        | Unexpected::Other(_) => return None,
    })
}

/// `one of "a", "b", "c"`: the values an enum of strings allows, as JSON.
pub(crate) fn one_of(values: &[&str]) -> String {
    let mut listed: Vec<String> = values
        .iter()
        .take(LISTED_VALUES)
        .map(|v| quote(v))
        .collect();
    if values.len() > LISTED_VALUES {
        listed.push(String::from("…"));
    }
    match listed.as_slice() {
        [] => String::from("nothing"),
        [one] => one.clone(),
        _ => format!("one of {}", listed.join(", ")),
    }
}

/// The JSON terms for serde's text of what a visitor expects (`i64`, `struct Pet`, `a
/// sequence`); `None` for a text this does not know (a hand-written visitor's words),
/// which the caller replaces with what the deserializer was asked for.
pub(crate) fn expected(serde: &str) -> Option<String> {
    if let Some(integer) = integer(serde) {
        return Some(integer.to_owned());
    }
    let plain = match serde {
        "f32" | "f64" => "a number",
        "a boolean" => "a boolean",
        "a string" | "a borrowed string" | "string" => "a string",
        "a character" | "char" => "a string of one character",
        "unit" => "null",
        "option" => "any value or null",
        "any valid JSON value" | "any value" => "any value",
        "a sequence" | "a tuple" | "a byte array" | "a borrowed byte array" | "tuple" => "an array",
        "a map" | "map" => "an object",
        "an empty array" => "an empty array",
        _ => return described(serde),
    };
    Some(plain.to_owned())
}

/// Serde's texts that carry a name or a count: `struct X`, `tuple of size 2`, …
fn described(serde: &str) -> Option<String> {
    if let Some(n) = element_count(serde) {
        return Some(array_of(n));
    }
    let object = ["struct ", "internally tagged enum ", "struct variant "];
    if object.iter().any(|p| serde.starts_with(p)) {
        return Some(String::from("an object"));
    }
    let array = ["tuple struct ", "tuple variant "];
    if array.iter().any(|p| serde.starts_with(p)) {
        return Some(String::from("an array"));
    }
    if serde.starts_with("unit struct ") || serde.starts_with("unit variant ") {
        return Some(String::from("null"));
    }
    if serde.starts_with("enum ") || serde.ends_with(" identifier") {
        return Some(String::from("one of its values"));
    }
    None
}

/// `an array of 2 elements`.
pub(crate) fn array_of(n: usize) -> String {
    match n {
        1 => String::from("an array of 1 element"),
        n => format!("an array of {n} elements"),
    }
}

/// The element count in serde's `a tuple of size 2`, `an array of length 3`, `tuple of
/// 2 elements`, `struct X with 2 elements`, `1 element in sequence`.
fn element_count(serde: &str) -> Option<usize> {
    let count = |text: &str| text.trim().parse::<usize>().ok();
    for prefix in ["a tuple of size ", "an array of length "] {
        if let Some(rest) = serde.strip_prefix(prefix) {
            return count(rest);
        }
    }
    let counted = serde
        .strip_suffix(" elements in sequence")
        .or_else(|| serde.strip_suffix(" element in sequence"))
        .or_else(|| serde.strip_suffix(" elements"))
        .or_else(|| serde.strip_suffix(" element"))?;
    let words = counted.rsplit(' ').next()?;
    count(words)
}

/// An integer type's JSON terms: bounds where the width implies them.
fn integer(serde: &str) -> Option<&'static str> {
    Some(match serde {
        "i64" | "i128" | "isize" => "an integer",
        "u64" | "u128" | "usize" => "a non-negative integer",
        "i8" => "an integer between -128 and 127",
        "i16" => "an integer between -32768 and 32767",
        "i32" => "an integer between -2147483648 and 2147483647",
        "u8" => "an integer between 0 and 255",
        "u16" => "an integer between 0 and 65535",
        "u32" => "an integer between 0 and 4294967295",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_cut_on_a_char_boundary_and_escape_as_json() {
        assert_eq!(quote("abc"), r#""abc""#);
        assert_eq!(quote("a\"b\n\u{1}"), r#""a\"b\n\u0001""#);
        let long = "é".repeat(40);
        assert_eq!(quote(&long), format!("\"{}…\"", "é".repeat(32)));
        assert_eq!(shorten(&"k".repeat(33)), format!("{}…", "k".repeat(32)));
        assert_eq!(shorten("key"), "key");
    }

    #[test]
    fn serde_words_become_json_terms() {
        let cases = [
            ("i64", "an integer"),
            ("u64", "a non-negative integer"),
            ("u8", "an integer between 0 and 255"),
            ("f64", "a number"),
            ("a boolean", "a boolean"),
            ("a string", "a string"),
            ("a sequence", "an array"),
            ("a tuple of size 2", "an array of 2 elements"),
            ("an array of length 1", "an array of 1 element"),
            ("struct Pet with 3 elements", "an array of 3 elements"),
            ("tuple struct Pair", "an array"),
            ("struct Pet", "an object"),
            ("a map", "an object"),
            ("enum Color", "one of its values"),
            ("unit", "null"),
            ("any valid JSON value", "any value"),
        ];
        for (serde, json) in cases {
            assert_eq!(expected(serde).as_deref(), Some(json), "{serde}");
        }
        assert_eq!(expected("a hex string of 32 bytes"), None);
        assert_eq!(one_of(&["a", "b"]), r#"one of "a", "b""#);
        assert_eq!(one_of(&["only"]), r#""only""#);
        assert_eq!(number(1e300), "1e+300");
    }
}
