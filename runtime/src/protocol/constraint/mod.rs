//! Constraint validation: the JSON Schema keywords a Rust type does not express
//! (`minLength`, `pattern`, `minimum`, `multipleOf`, `minItems`, `uniqueItems`,
//! `minProperties`, `const`, `format`, …), checked on typed values.
//!
//! Generated code describes the keywords of each place a type is used as a static
//! [`Rules`] and implements [`Validate`] for the named types whose members carry some;
//! the checks themselves are the generic functions of this module, so generated code
//! stays a list of statics and calls. A failure is a [`Violation`]: the JSON pointer of
//! the value at fault, the keyword and its limit in the document's terms
//! (``at /amount: 5 is less than the minimum 10``). The generated dispatcher answers it
//! as `-32602` before the handler runs; a client built with
//! [`validate_params`](crate::client::Builder::validate_params) refuses to send it.
//!
//! | keyword | checked on | notes |
//! |---|---|---|
//! | `minLength`, `maxLength` | strings | counted in Unicode code points, as JSON Schema says |
//! | `pattern` | strings | ECMA-262 as translated by the generator ([`Pattern`]); searched, not anchored |
//! | `format` | strings | the [`Format`]s listed there; other formats are not checked |
//! | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` | numbers | integers compared exactly |
//! | `multipleOf` | numbers | exact for integers, to 1e-9 relative for fractions |
//! | `minItems`, `maxItems`, `uniqueItems` | arrays | equality as JSON values (object members in any order) |
//! | `minProperties`, `maxProperties` | objects | members present (an absent optional member does not count) |
//! | `patternProperties` with `additionalProperties: false` | maps | every key matches one of the patterns ([`Rules::keys`]) |
//! | `const` | any value | equality as JSON values |
//!
//! A keyword that does not apply to the value's JSON type is ignored, as JSON Schema
//! says (`minLength` on a number).

mod anchored;
mod check;
mod format;
mod pattern;
mod violation;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

pub use check::check_json;
pub use format::Format;
pub use pattern::Pattern;
pub use violation::Violation;

/// The keywords of one place a value is used: what [`Validate::validate`] checks.
///
/// Built as `static`s by generated code (`Rules::NONE.minimum(10.0).max_length(3)`),
/// or at run time by whoever reads a schema. Nested places (an array's items, a tuple's
/// elements, a map's values) have theirs inside.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rules<'a> {
    /// `minLength`, in code points.
    pub min_length: Option<u64>,
    /// `maxLength`, in code points.
    pub max_length: Option<u64>,
    /// `pattern`.
    pub pattern: Option<&'a Pattern>,
    /// `format`, when it is one checked.
    pub format: Option<Format>,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `exclusiveMinimum` (draft 6 on), or `minimum` with `exclusiveMinimum: true`.
    pub exclusive_minimum: Option<f64>,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `exclusiveMaximum` (draft 6 on), or `maximum` with `exclusiveMaximum: true`.
    pub exclusive_maximum: Option<f64>,
    /// `multipleOf` (positive).
    pub multiple_of: Option<f64>,
    /// `minItems`.
    pub min_items: Option<u64>,
    /// `maxItems`.
    pub max_items: Option<u64>,
    /// `uniqueItems: true`.
    pub unique_items: bool,
    /// `minProperties`.
    pub min_properties: Option<u64>,
    /// `maxProperties`.
    pub max_properties: Option<u64>,
    /// `const`, as JSON text.
    pub constant: Option<&'a str>,
    /// The keywords of every item of an array.
    pub items: Option<&'a Rules<'a>>,
    /// The keywords of a tuple's elements, by position.
    pub prefix_items: &'a [Rules<'a>],
    /// The keywords of every value of a map.
    pub values: Option<&'a Rules<'a>>,
    /// The pattern every key of a map matches: `patternProperties` (its patterns as
    /// one alternation) beside `additionalProperties: false`.
    pub keys: Option<&'a Pattern>,
}

impl Rules<'static> {
    /// No keyword: everything passes.
    pub const NONE: Rules<'static> = Rules {
        min_length: None,
        max_length: None,
        pattern: None,
        format: None,
        minimum: None,
        exclusive_minimum: None,
        maximum: None,
        exclusive_maximum: None,
        multiple_of: None,
        min_items: None,
        max_items: None,
        unique_items: false,
        min_properties: None,
        max_properties: None,
        constant: None,
        items: None,
        prefix_items: &[],
        values: None,
        keys: None,
    };
}

impl<'a> Rules<'a> {
    /// With `minLength`.
    #[must_use]
    pub const fn min_length(mut self, value: u64) -> Self {
        self.min_length = Some(value);
        self
    }

    /// With `maxLength`.
    #[must_use]
    pub const fn max_length(mut self, value: u64) -> Self {
        self.max_length = Some(value);
        self
    }

    /// With `minimum`.
    #[must_use]
    pub const fn minimum(mut self, value: f64) -> Self {
        self.minimum = Some(value);
        self
    }

    /// With `exclusiveMinimum`.
    #[must_use]
    pub const fn exclusive_minimum(mut self, value: f64) -> Self {
        self.exclusive_minimum = Some(value);
        self
    }

    /// With `maximum`.
    #[must_use]
    pub const fn maximum(mut self, value: f64) -> Self {
        self.maximum = Some(value);
        self
    }

    /// With `exclusiveMaximum`.
    #[must_use]
    pub const fn exclusive_maximum(mut self, value: f64) -> Self {
        self.exclusive_maximum = Some(value);
        self
    }

    /// With `multipleOf`.
    #[must_use]
    pub const fn multiple_of(mut self, value: f64) -> Self {
        self.multiple_of = Some(value);
        self
    }

    /// With `minItems`.
    #[must_use]
    pub const fn min_items(mut self, value: u64) -> Self {
        self.min_items = Some(value);
        self
    }

    /// With `maxItems`.
    #[must_use]
    pub const fn max_items(mut self, value: u64) -> Self {
        self.max_items = Some(value);
        self
    }

    /// With `minProperties`.
    #[must_use]
    pub const fn min_properties(mut self, value: u64) -> Self {
        self.min_properties = Some(value);
        self
    }

    /// With `maxProperties`.
    #[must_use]
    pub const fn max_properties(mut self, value: u64) -> Self {
        self.max_properties = Some(value);
        self
    }

    /// With `format`.
    #[must_use]
    pub const fn format(mut self, value: Format) -> Self {
        self.format = Some(value);
        self
    }

    /// With `pattern`.
    #[must_use]
    pub const fn pattern(mut self, pattern: &'a Pattern) -> Self {
        self.pattern = Some(pattern);
        self
    }

    /// With `uniqueItems: true`.
    #[must_use]
    pub const fn unique_items(mut self) -> Self {
        self.unique_items = true;
        self
    }

    /// With `const`, as JSON text.
    #[must_use]
    pub const fn constant(mut self, json: &'a str) -> Self {
        self.constant = Some(json);
        self
    }

    /// With the rules of every item of an array.
    #[must_use]
    pub const fn items(mut self, rules: &'a Rules<'a>) -> Self {
        self.items = Some(rules);
        self
    }

    /// With the rules of a tuple's elements, by position.
    #[must_use]
    pub const fn prefix_items(mut self, rules: &'a [Rules<'a>]) -> Self {
        self.prefix_items = rules;
        self
    }

    /// With the rules of every value of a map.
    #[must_use]
    pub const fn values(mut self, rules: &'a Rules<'a>) -> Self {
        self.values = Some(rules);
        self
    }

    /// With the pattern every key of a map matches.
    #[must_use]
    pub const fn keys(mut self, pattern: &'a Pattern) -> Self {
        self.keys = Some(pattern);
        self
    }
}

impl Rules<'_> {
    /// The rules of an array's item (or a map's value) when none are written.
    fn or_none<'b>(rules: Option<&'b Rules<'b>>) -> &'b Rules<'b> {
        rules.unwrap_or(&Rules::NONE)
    }
}

/// A value whose constraints can be checked against the [`Rules`] of where it is used.
///
/// Implemented here for the types generated code uses (strings, numbers, `Option`,
/// `Vec`, arrays, tuples, maps, `serde_json::Value`), and by generated code for its
/// named types (which check their members with the rules of each member). The provided
/// method checks `rules` against the value's JSON form: what a named type with no
/// constrained member needs (`const`, `minProperties` at a use site).
pub trait Validate: Serialize {
    /// Checks the value against `rules` and its members against theirs.
    ///
    /// # Errors
    ///
    /// The first [`Violation`] found, with the JSON pointer of the value at fault.
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::whole(self, rules)
    }

    /// The value itself when it is a JSON string: two such values are equal as JSON
    /// exactly when their texts are, so `uniqueItems` compares them without
    /// serialising. `None` (the default) compares the items' JSON forms.
    #[doc(hidden)]
    fn as_json_str(&self) -> Option<&str> {
        None
    }
}

impl Validate for String {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::string(self, rules)?;
        check::constant(self, rules)
    }

    #[inline]
    fn as_json_str(&self) -> Option<&str> {
        Some(self)
    }
}

impl Validate for bool {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::constant(self, rules)
    }
}

impl Validate for () {}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl Validate for $t {
            #[inline]
            fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
                check::integer(i128::from(*self), rules)?;
                check::constant(self, rules)
            }
        }
    )*};
}
integers!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Validate for i128 {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::integer(*self, rules)?;
        check::constant(self, rules)
    }
}

impl Validate for u128 {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        match i128::try_from(*self) {
            Ok(n) => check::integer(n, rules)?,
            // Beyond i128: compared as a float (no document bounds such a number exactly).
            Err(_) => check::fraction(*self as f64, rules)?,
        }
        check::constant(self, rules)
    }
}

impl Validate for f64 {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::fraction(*self, rules)?;
        check::constant(self, rules)
    }
}

impl Validate for serde_json::Number {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::number(self, rules)?;
        check::constant(self, rules)
    }
}

impl Validate for Value {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check_json(self, rules)
    }
}

impl Validate for serde_json::Map<String, Value> {
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::properties(self.len(), rules)?;
        check::keys(self.keys(), rules)?;
        let inner = Rules::or_none(rules.values);
        for (key, value) in self {
            check_json(value, inner).map_err(|v| v.at_key(key))?;
        }
        check::constant(self, rules)
    }
}

impl<T: Validate> Validate for Option<T> {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        match self {
            Some(value) => value.validate(rules),
            None => Ok(()),
        }
    }
}

impl<T: Validate> Validate for Box<T> {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        (**self).validate(rules)
    }
}

impl<T: Validate> Validate for Vec<T> {
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::items(self, rules)
    }
}

impl<T: Validate, const N: usize> Validate for [T; N]
where
    [T; N]: Serialize,
{
    #[inline]
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::items(self, rules)
    }
}

impl<T: Validate> Validate for BTreeMap<String, T> {
    fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
        check::properties(self.len(), rules)?;
        check::keys(self.keys(), rules)?;
        let inner = Rules::or_none(rules.values);
        for (key, value) in self {
            value.validate(inner).map_err(|v| v.at_key(key))?;
        }
        check::constant(self, rules)
    }
}

macro_rules! tuples {
    ($(($($t:ident $i:tt),+))*) => {$(
        impl<$($t: Validate),+> Validate for ($($t,)+) {
            fn validate(&self, rules: &Rules<'_>) -> Result<(), Violation> {
                let count = [$($i),+].len();
                check::counts(count, rules)?;
                $(
                    let inner = rules.prefix_items.get($i).unwrap_or(&Rules::NONE);
                    self.$i.validate(inner).map_err(|v| v.at_index($i))?;
                )+
                check::unique_serialized(self, rules)?;
                check::constant(self, rules)
            }
        }
    )*};
}
tuples! {
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
}

/// Checks a named type's member: `value` against `rules`, the path of a violation
/// starting with the member's wire name. What generated `Validate` impls call.
///
/// # Errors
///
/// The member's [`Violation`], under `key`.
#[inline]
pub fn member<T: Validate + ?Sized>(
    value: &T,
    key: &'static str,
    rules: &Rules<'_>,
) -> Result<(), Violation> {
    value.validate(rules).map_err(|v| v.at_key(key))
}

/// Checks the param `name` of a call: `value` against `rules`, a violation naming the
/// param. What generated params checks call.
///
/// # Errors
///
/// The param's [`Violation`], naming it.
#[inline]
pub fn param<T: Validate + ?Sized>(
    value: &T,
    name: &'static str,
    rules: &Rules<'_>,
) -> Result<(), Violation> {
    value.validate(rules).map_err(|v| v.param(name))
}

/// Checks a named type's own keywords against its JSON form (`const`, `minProperties`
/// at a use site), before its members; cheap when `rules` has none of them.
///
/// # Errors
///
/// The [`Violation`] of the whole value.
#[inline]
pub fn whole<T: Serialize + ?Sized>(value: &T, rules: &Rules<'_>) -> Result<(), Violation> {
    check::whole(value, rules)
}

/// The first [`Violation`] of `checks`, in order: what a generated `Validate` returns
/// from its list of checks (`__validate!`).
///
/// Every check is made before this is called (they are independent and have no
/// effects; on a value that passes, every one is made anyway): the same answer as a
/// `?` after each, but one expression for the compiler to check instead of a `?` (a
/// `match`, a trait call and a return) per check, which cost a module of 86 such impls
/// about 160 million compiler instructions (BENCHMARKS.md, "Issue 30: D09's compile
/// cost").
///
/// # Errors
///
/// The first violation of `checks`.
#[inline]
pub fn first_violation<const N: usize>(
    checks: [Result<(), Violation>; N],
) -> Result<(), Violation> {
    for check in checks {
        check?;
    }
    Ok(())
}

/// Implements [`Validate`] on a generated type whose check is a straight list of calls
/// (no match on an enum's variants), the calls made in the order listed, the first
/// [`Violation`] returned ([`first_violation`]):
///
/// - a method's params struct: `param(field, "name", RULES)` per checked param
///   ([`param`]: the field against `RULES`, a violation naming the param); the rules the
///   impl is called with are not read (params are never a member of anything);
/// - a named type: `whole` first ([`whole`]: its own keywords at the use site), then
///   `whole(RULES)` for the keywords of its own schema, `member(field, "key", RULES)` per
///   checked member ([`member`]) and `validate(field, RULES)` per flattened part or a
///   newtype's value (`0`), in that order.
///
/// `RULES` is a path to a [`Rules`] (a static of the generated module, or
/// `Rules::NONE`). Like `__serialize_by_position!`, it saves generated text (about nine
/// lines of each impl), not compile work: the impl is the one a template wrote out.
///
/// ```
/// use rpcsmith::__private as __rt;
///
/// #[derive(serde::Serialize)]
/// pub struct Transfer {
///     pub to: String,
/// }
/// static ADDRESS: __rt::Rules<'static> = __rt::Rules::NONE.min_length(3);
/// __rt::validate!(Transfer, whole, member(to, "to", ADDRESS));
///
/// #[derive(serde::Serialize)]
/// pub struct SendParams {
///     pub transfer: Transfer,
///     pub memo: String,
/// }
/// __rt::validate!(SendParams, param(transfer, "transfer", __rt::Rules::NONE));
///
/// use __rt::Validate as _;
/// let params = SendParams { transfer: Transfer { to: "ab".into() }, memo: String::new() };
/// let violation = params.validate(&__rt::Rules::NONE).unwrap_err();
/// assert_eq!((violation.param_name(), violation.pointer()), (Some("transfer"), "/to".to_owned()));
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __validate {
    (
        $name:ident, whole
        $(, whole($own:path))?
        $(, member($member:tt, $key:literal, $member_rules:path))*
        $(, validate($part:tt, $part_rules:path))*
        $(,)?
    ) => {
        impl $crate::__private::Validate for $name {
            #[inline]
            fn validate(
                &self,
                rules: &$crate::__private::Rules<'_>,
            ) -> ::std::result::Result<(), $crate::__private::Violation> {
                $crate::__private::first_violation([
                    $crate::__private::whole(self, rules),
                    $( $crate::__private::whole(self, &$own), )?
                    $( $crate::__private::member(&self.$member, $key, &$member_rules), )*
                    $( $crate::__private::Validate::validate(&self.$part, &$part_rules), )*
                ])
            }
        }
    };
    ($name:ident $(, param($field:tt, $param:literal, $rules:path))+ $(,)?) => {
        impl $crate::__private::Validate for $name {
            #[inline]
            fn validate(
                &self,
                _: &$crate::__private::Rules<'_>,
            ) -> ::std::result::Result<(), $crate::__private::Violation> {
                $crate::__private::first_violation([
                    $( $crate::__private::param(&self.$field, $param, &$rules), )+
                ])
            }
        }
    };
}

#[cfg(test)]
mod tests;
