//! What a failed check says: where, which keyword, and why in the document's terms.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;

use crate::protocol::{ErrorObject, code};

/// A value that breaks a keyword of its schema.
///
/// Reads ``at /items/2: "ab" is shorter than the minLength 3``, or with the param it is
/// in (see [`param`](Violation::param)) ``invalid param `order` at /items/2: …``.
///
/// One pointer wide (its parts are boxed): every check returns a `Result<(), Violation>`,
/// which a passing check then returns in a register.
#[derive(Clone, PartialEq, Eq)]
pub struct Violation(Box<Parts>);

/// What a [`Violation`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Parts {
    /// The param it is in, when known.
    param: Option<Cow<'static, str>>,
    /// JSON pointer tokens, innermost first (pushed while unwinding), escaped.
    path: Vec<String>,
    keyword: &'static str,
    detail: String,
}

impl Violation {
    /// A violation of `keyword` by the value itself (an empty path), `detail` saying how
    /// (``5 is less than the minimum 10``).
    #[cold]
    pub fn new(keyword: &'static str, detail: impl Into<String>) -> Self {
        Violation(Box::new(Parts {
            param: None,
            path: Vec::new(),
            keyword,
            detail: detail.into(),
        }))
    }

    /// The same violation, inside the member `key` of an object.
    #[must_use]
    #[cold]
    pub fn at_key(mut self, key: &str) -> Self {
        self.0.path.push(key.replace('~', "~0").replace('/', "~1"));
        self
    }

    /// The same violation, inside the element `index` of an array.
    #[must_use]
    #[cold]
    pub fn at_index(mut self, index: usize) -> Self {
        self.0.path.push(index.to_string());
        self
    }

    /// The same violation, in the param `name` of a call.
    #[must_use]
    #[cold]
    pub fn param(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.0.param = Some(name.into());
        self
    }

    /// The keyword broken (`minLength`, `pattern`, `format`, …).
    pub fn keyword(&self) -> &'static str {
        self.0.keyword
    }

    /// The param it is in, when known.
    pub fn param_name(&self) -> Option<&str> {
        self.0.param.as_deref()
    }

    /// The JSON pointer of the value at fault, inside the param when there is one
    /// (empty for the whole value).
    pub fn pointer(&self) -> String {
        self.0.path.iter().rev().map(|t| format!("/{t}")).collect()
    }

    /// How the value breaks the keyword (``5 is less than the minimum 10``).
    pub fn detail(&self) -> &str {
        &self.0.detail
    }

    /// The `-32602` a server answers: the message names the param, the path and the
    /// keyword; `data` holds them as `{"param", "path", "keyword"}`.
    pub fn to_error_object(&self) -> ErrorObject {
        /// The `data` member, in this order whatever serde_json's features.
        #[derive(Serialize)]
        struct Data<'a> {
            param: Option<&'a str>,
            path: String,
            keyword: &'static str,
        }
        let data = Data {
            param: self.param_name(),
            path: self.pointer(),
            keyword: self.0.keyword,
        };
        ErrorObject::with_data(code::INVALID_PARAMS, self.to_string(), &data)
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Parts { param, detail, .. } = &*self.0;
        if let Some(param) = param {
            write!(f, "invalid param `{param}`")?;
        }
        let pointer = self.pointer();
        match (param.is_some(), pointer.is_empty()) {
            (true, true) => write!(f, ": {detail}"),
            (_, false) => {
                let gap = if param.is_some() { " " } else { "" };
                write!(f, "{gap}at {pointer}: {detail}")
            }
            (false, true) => f.write_str(detail),
        }
    }
}

impl fmt::Debug for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Parts {
            param,
            path,
            keyword,
            detail,
        } = &*self.0;
        f.debug_struct("Violation")
            .field("param", param)
            .field("path", path)
            .field("keyword", keyword)
            .field("detail", detail)
            .finish()
    }
}

impl std::error::Error for Violation {}
