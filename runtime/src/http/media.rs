//! Media types, as both sides of the HTTP transport read them from headers.

use ::http::header::{self, HeaderMap};

/// Whether `headers` declare a JSON body (`application/json`, parameters allowed).
pub(crate) fn is_json(headers: &HeaderMap) -> bool {
    const JSON: &[u8] = b"application/json";
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    let value = value.as_bytes();
    // The usual spelling, compared as bytes; anything else parsed.
    if value == JSON {
        return true;
    }
    let essence = value.split(|&byte| byte == b';').next().unwrap_or_default();
    essence.trim_ascii().eq_ignore_ascii_case(JSON)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::http::header::HeaderValue;

    #[test]
    fn json_content_types() {
        let mut headers = HeaderMap::new();
        assert!(!is_json(&headers));
        for (value, expected) in [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            ("text/plain", false),
            ("application/jsonx", false),
            ("  application/json ;charset=utf-8", true),
            ("application/json-seq", false),
            ("", false),
        ] {
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            assert_eq!(is_json(&headers), expected, "{value}");
        }
    }
}
