//! JSON pointers (RFC 6901): escaping, splitting, joining, and the percent-decoding of
//! URI fragments (`#/components/schemas/a%20b`).

use std::borrow::Cow;

/// Escapes one reference token: `~` → `~0`, `/` → `~1`.
pub(crate) fn escape(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Unescapes one reference token; `None` when it holds a `~` not followed by `0` or `1`.
pub(crate) fn unescape(token: &str) -> Option<Cow<'_, str>> {
    if !token.contains('~') {
        return Some(Cow::Borrowed(token));
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(Cow::Owned(out))
}

/// Appends one (unescaped) token to a pointer.
pub(crate) fn push(pointer: &str, token: &str) -> String {
    let token = escape(token);
    let mut out = String::with_capacity(pointer.len() + 1 + token.len());
    out.push_str(pointer);
    out.push('/');
    out.push_str(&token);
    out
}

/// The pointer of the parent value; `None` for the root.
pub(crate) fn parent(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|i| &pointer[..i])
}

/// The unescaped tokens of a pointer; `None` when it is neither empty nor starts with
/// `/`, or holds a bad `~` escape.
pub(crate) fn tokens(pointer: &str) -> Option<Vec<Cow<'_, str>>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').map(unescape).collect()
}

/// Whether a pointer is well formed (see [`tokens`]).
pub(crate) fn is_valid(pointer: &str) -> bool {
    tokens(pointer).is_some()
}

/// Decodes `%XX` escapes (a URI fragment or path); `None` when an escape is malformed or
/// the result is not UTF-8.
pub(crate) fn percent_decode(s: &str) -> Option<Cow<'_, str>> {
    if !s.contains('%') {
        return Some(Cow::Borrowed(s));
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_roundtrip() {
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(unescape("a~1b~0c").unwrap(), "a/b~c");
        assert_eq!(unescape("~01").unwrap(), "~1");
        assert!(unescape("a~2").is_none());
        assert!(unescape("a~").is_none());
    }

    #[test]
    fn push_parent() {
        let p = push("/components", "a/b");
        assert_eq!(p, "/components/a~1b");
        assert_eq!(parent(&p), Some("/components"));
        assert_eq!(parent("/x"), Some(""));
        assert_eq!(parent(""), None);
    }

    #[test]
    fn tokens_and_validity() {
        assert_eq!(tokens("").unwrap().len(), 0);
        assert_eq!(tokens("/").unwrap(), vec![""]);
        assert_eq!(tokens("/a/~1/0").unwrap(), vec!["a", "/", "0"]);
        assert!(!is_valid("a/b"));
        assert!(!is_valid("/a~x"));
    }

    #[test]
    fn percent() {
        assert_eq!(percent_decode("/a%20b%25").unwrap(), "/a b%");
        assert_eq!(percent_decode("%C3%A9").unwrap(), "é");
        assert!(percent_decode("%zz").is_none());
        assert!(percent_decode("%4").is_none());
        assert!(percent_decode("%FF").is_none());
    }
}
