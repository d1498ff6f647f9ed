//! The statics of a module's constraint checks: each `Rules`, `Pattern` and tuple of
//! `Rules` the checks name is written once at the root of the generated module
//! (`templates/module.hbs`), whatever number of fields and params name it.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::Serialize;

use super::rust::string_literal;
use crate::pattern::translate;
use crate::typespace::Validation;

/// The runtime's checked `format`s, by document name, and their `Format` variants.
pub(super) const FORMATS: &[(&str, &str)] = &[
    ("date-time", "DateTime"),
    ("date", "Date"),
    ("time", "Time"),
    ("uuid", "Uuid"),
    ("ipv4", "Ipv4"),
    ("ipv6", "Ipv6"),
    ("email", "Email"),
    ("uri", "Uri"),
];

/// The runtime's module, as generated code names it (`use ::rpcsmith::__private as __rt`).
pub(super) const RT: &str = "__rt";

/// One `static` of a check: a `Rules` or a `Pattern`.
#[derive(Debug, Serialize)]
pub(crate) struct StaticView {
    pub(crate) name: String,
    pub(crate) ty: String,
    pub(crate) value: String,
}

/// The document's statics, written once at the root of the generated module and named
/// `R0`, `P1`, … in order; a static equal to one already written is that one (a pattern
/// or `Rules` used by many fields is built once, not per impl).
#[derive(Default)]
pub(super) struct Pool {
    list: Vec<StaticView>,
    /// By `(type, value)`: the name of the static written for it.
    names: HashMap<(String, String), String>,
}

/// The pool as one function names it: through `super::` from the types module, as it is
/// from the root.
pub(super) struct Statics<'p> {
    pub(super) pool: &'p RefCell<Pool>,
    pub(super) prefix: &'static str,
}

impl Statics<'_> {
    /// A `Rules` static for `v`; its name as this function writes it.
    pub(super) fn rules(&mut self, v: &Validation) -> String {
        let name = self.pool.borrow_mut().rules(v);
        format!("{}{name}", self.prefix)
    }
}

impl Pool {
    /// The statics written so far, in order, leaving none.
    pub(super) fn take(&mut self) -> Vec<StaticView> {
        std::mem::take(&mut self.list)
    }

    /// The static `letter`N of type `ty` and value `value`, or the one written before
    /// with both; its name.
    fn add(&mut self, letter: char, ty: String, value: String) -> String {
        let key = (ty, value);
        if let Some(name) = self.names.get(&key) {
            return name.clone();
        }
        let name = format!("{letter}{}", self.list.len());
        self.names.insert(key.clone(), name.clone());
        let (ty, value) = key;
        self.list.push(StaticView {
            name: name.clone(),
            ty,
            value,
        });
        name
    }

    /// A `Rules` static for `v` (and its nested ones first); its name.
    fn rules(&mut self, v: &Validation) -> String {
        let value = self.rules_expr(v);
        self.add('R', format!("{RT}::Rules<'static>"), value)
    }

    /// A `Pattern` static for `pattern` (none when it is outside the supported subset);
    /// its name.
    fn pattern(&mut self, pattern: &str) -> Option<String> {
        let regex = translate(pattern).ok()?;
        let value = format!(
            "{RT}::Pattern::new({}, {})",
            string_literal(pattern),
            string_literal(&regex)
        );
        Some(self.add('P', format!("{RT}::Pattern"), value))
    }

    /// The constant expression of the `Rules` of `v`; its patterns and nested rules
    /// become statics first.
    fn rules_expr(&mut self, v: &Validation) -> String {
        let mut calls = own_keywords(v);
        for (method, pattern) in [("pattern", &v.pattern), ("keys", &v.keys)] {
            if let Some(name) = pattern.as_deref().and_then(|p| self.pattern(p)) {
                calls.push((method, format!("&{name}")));
            }
        }
        for (method, nested) in [("items", &v.items), ("values", &v.values)] {
            if let Some(nested) = nested {
                let inner = self.rules(nested);
                calls.push((method, format!("&{inner}")));
            }
        }
        if !v.prefix_items.is_empty() {
            let elements: Vec<String> = v.prefix_items.iter().map(|e| self.rules_expr(e)).collect();
            let name = self.add(
                'T',
                format!("[{RT}::Rules<'static>; {}]", elements.len()),
                format!("[{}]", elements.join(", ")),
            );
            calls.push(("prefix_items", format!("&{name}")));
        }
        let mut text = format!("{RT}::Rules::NONE");
        for (method, arg) in calls {
            text.push_str(&format!(".{method}({arg})"));
        }
        text
    }
}

/// The builder calls (`(method, argument)`) of the keywords of `v` that need no static:
/// counts, bounds, `uniqueItems`, a checked `format`, `const`.
fn own_keywords(v: &Validation) -> Vec<(&'static str, String)> {
    let mut calls = Vec::new();
    let counts = [
        ("min_length", v.min_length),
        ("max_length", v.max_length),
        ("min_items", v.min_items),
        ("max_items", v.max_items),
        ("min_properties", v.min_properties),
        ("max_properties", v.max_properties),
    ];
    for (method, n) in counts {
        if let Some(n) = n {
            calls.push((method, n.to_string()));
        }
    }
    let bounds = [
        ("minimum", v.minimum),
        ("exclusive_minimum", v.exclusive_minimum),
        ("maximum", v.maximum),
        ("exclusive_maximum", v.exclusive_maximum),
        ("multiple_of", v.multiple_of.filter(|m| *m > 0.0)),
    ];
    for (method, x) in bounds {
        if let Some(x) = x.filter(|x| x.is_finite()) {
            calls.push((method, format!("{x:?}")));
        }
    }
    if v.unique_items {
        calls.push(("unique_items", String::new()));
    }
    if let Some(format) = &v.format
        && let Some((_, variant)) = FORMATS.iter().find(|(name, _)| name == format)
    {
        calls.push(("format", format!("{RT}::Format::{variant}")));
    }
    if let Some(constant) = &v.constant {
        calls.push(("constant", string_literal(&constant.to_string())));
    }
    calls
}
