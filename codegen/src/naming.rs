//! Rust names for schema things: type names, field names, variant names.
//!
//! Every function here is total: any input string yields a valid Rust identifier.
//! Collisions are settled by [`Namer`], which hands out names in a fixed order so the
//! output does not depend on hash order.

use std::collections::HashSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Words that cannot be identifiers even as raw identifiers (`r#self` is rejected).
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Strict and reserved keywords of Rust 2024 (a field named like one is written `r#name`).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// Replaces every character that cannot appear in an identifier by a word break, and
/// spells out a leading `+`/`-` so `-1` and `1` stay apart.
fn words(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for (i, c) in raw.chars().enumerate() {
        match c {
            '-' if i == 0 => out.push_str("minus "),
            '+' if i == 0 => out.push_str("plus "),
            c if c.is_ascii_alphanumeric() => out.push(c),
            _ => out.push(' '),
        }
    }
    out
}

/// The words of `raw`, each cased by `case`, joined by `sep`; two numbers that were
/// apart stay apart (`2.0` → `2_0`, never `20`).
fn join_words(raw: &str, case: fn(&str) -> String, sep: &str) -> String {
    let mut out = String::new();
    for word in words(raw).split_whitespace().map(case) {
        let numbers_meet = out.ends_with(|c: char| c.is_ascii_digit())
            && word.starts_with(|c: char| c.is_ascii_digit());
        if !out.is_empty() && (numbers_meet || !sep.is_empty()) {
            out.push_str(if sep.is_empty() { "_" } else { sep });
        }
        out.push_str(&word);
    }
    out
}

/// A type or variant name: `BLOCK_HEADER` → `BlockHeader`, `eth_getBlock` → `EthGetBlock`.
///
/// Falls back to `fallback` when nothing usable remains; prefixes a name that would start
/// with a digit (`1x` → `T1x` for types, `V1x` for variants: pass the prefix). `Self`, the
/// one keyword in upper camel case, becomes `SelfValue`: still upper camel case when a
/// suffix or a number is added to it (`Self_` became `Self_2`, `Self_Params`, which the
/// `non_camel_case_types` lint refuses).
pub(crate) fn type_name(raw: &str, prefix: &str, fallback: &str) -> String {
    let cased = join_words(raw, ToUpperCamelCase::to_upper_camel_case, "");
    let name = if cased.is_empty() {
        fallback.to_owned()
    } else {
        cased
    };
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{prefix}{name}")
    } else {
        name
    };
    if NOT_RAW.contains(&name.as_str()) || KEYWORDS.contains(&name.as_str()) {
        format!("{name}Value")
    } else {
        name
    }
}

/// A field name: `parentHash` → `parent_hash`, `type` → `r#type`, `0x` → `_0x`.
pub(crate) fn field_name(raw: &str) -> String {
    let snake = words(raw).to_snake_case();
    let name = if snake.is_empty() {
        "field".to_owned()
    } else if snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{snake}")
    } else {
        snake
    };
    escape_keyword(name)
}

/// A module (and output file) name: `refs-openrpc` → `refs_openrpc`, `1api` → `api_1api`.
/// Never a raw identifier: it is also a file name and an `include_api!` argument.
pub(crate) fn module_name(raw: &str) -> String {
    let snake = join_words(raw, ToSnakeCase::to_snake_case, "_");
    if snake.is_empty() {
        "api".to_owned()
    } else if snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("api_{snake}")
    } else if NOT_RAW.contains(&snake.as_str()) || KEYWORDS.contains(&snake.as_str()) {
        format!("{snake}_")
    } else {
        snake
    }
}

/// Writes a keyword as a raw identifier, or with a trailing `_` where raw is not allowed.
pub(crate) fn escape_keyword(name: String) -> String {
    if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// Whether a schema `title` reads as a name (letters, digits, spaces, `_`, `-`, `.`; starts
/// with a letter; short). Titles like `"hex encoded address"` qualify, sentences do not.
pub(crate) fn title_is_identifier(title: &str) -> bool {
    let t = title.trim();
    !t.is_empty()
        && t.len() <= 48
        && t.starts_with(|c: char| c.is_ascii_alphabetic())
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-' | '.'))
        && t.split_whitespace().count() <= 5
}

/// Hands out unique names within one namespace, in the order asked.
#[derive(Debug, Default)]
pub(crate) struct Namer {
    taken: HashSet<String>,
}

impl Namer {
    /// `base` if free, else `base2`, `base3`, … (for a name ending in a digit, `base_2`).
    pub(crate) fn claim(&mut self, base: &str) -> String {
        if self.taken.insert(base.to_owned()) {
            return base.to_owned();
        }
        let sep = if base.ends_with(|c: char| c.is_ascii_digit()) {
            "_"
        } else {
            ""
        };
        let mut n = 2usize;
        loop {
            let candidate = format!("{base}{sep}{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_names_are_upper_camel_identifiers() {
        assert_eq!(type_name("BLOCK_HEADER", "T", "X"), "BlockHeader");
        assert_eq!(
            type_name("eth_getBlockByHash", "T", "X"),
            "EthGetBlockByHash"
        );
        assert_eq!(
            type_name("Filecoin.ChainHead", "T", "X"),
            "FilecoinChainHead"
        );
        assert_eq!(type_name("1inch", "T", "X"), "T1inch");
        assert_eq!(type_name("-1", "T", "X"), "Minus1");
        assert_eq!(
            type_name("JSON-RPC 2.0 examples", "T", "X"),
            "JsonRpc2_0Examples"
        );
        assert_eq!(type_name("", "T", "Fallback"), "Fallback");
        assert_eq!(type_name("self", "T", "X"), "SelfValue");
        assert_eq!(type_name("self_", "T", "X"), "SelfValue");
    }

    #[test]
    fn field_names_escape_keywords_and_digits() {
        assert_eq!(field_name("parentHash"), "parent_hash");
        assert_eq!(field_name("type"), "r#type");
        assert_eq!(field_name("self"), "self_");
        assert_eq!(field_name("0x"), "_0x");
        assert_eq!(field_name("$ref"), "r#ref");
        assert_eq!(field_name("@@"), "field");
    }

    #[test]
    fn module_names_are_plain_snake_identifiers() {
        assert_eq!(module_name("refs-openrpc"), "refs_openrpc");
        assert_eq!(module_name("PetStore"), "pet_store");
        assert_eq!(module_name("1api"), "api_1api");
        assert_eq!(module_name("type"), "type_");
        assert_eq!(module_name("..."), "api");
        assert_eq!(
            module_name("JSON-RPC 2.0 specification examples"),
            "json_rpc_2_0_specification_examples"
        );
        assert_eq!(module_name("StarkNet Node API"), "stark_net_node_api");
    }

    #[test]
    fn namer_renames_collisions_apart_in_order() {
        let mut n = Namer::default();
        assert_eq!(n.claim("Value"), "Value");
        assert_eq!(n.claim("Value"), "Value2");
        assert_eq!(n.claim("Block"), "Block");
        assert_eq!(n.claim("Block"), "Block2");
        assert_eq!(n.claim("V1"), "V1");
        assert_eq!(n.claim("V1"), "V1_2");
    }

    #[test]
    fn titles_that_read_as_names() {
        assert!(title_is_identifier("Block object"));
        assert!(title_is_identifier("hex encoded address"));
        assert!(!title_is_identifier("The block, or null if none was found"));
        assert!(!title_is_identifier("1st"));
    }
}
