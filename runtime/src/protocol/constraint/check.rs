//! The checks of each keyword, on the value kinds of JSON: strings, numbers, arrays,
//! objects, and any value against `const`.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Number, Value};

use super::{Format, Pattern, Rules, Validate, Violation};

/// How many characters of a string a message quotes.
const QUOTED: usize = 32;

/// A string's `minLength`, `maxLength`, `pattern` and `format`.
#[inline]
pub(super) fn string(s: &str, rules: &Rules<'_>) -> Result<(), Violation> {
    if lengths_in_doubt(s, rules) || rules.pattern.is_some() || rules.format.is_some() {
        string_more(s, rules)
    } else {
        Ok(())
    }
}

/// Whether the byte length of `s` leaves a length bound in doubt. A string has between
/// a quarter of its bytes and all of them in characters: they are counted only then.
#[inline]
fn lengths_in_doubt(s: &str, rules: &Rules<'_>) -> bool {
    let bytes = s.len() as u64;
    rules.min_length.is_some_and(|min| bytes.div_ceil(4) < min)
        || rules.max_length.is_some_and(|max| bytes > max)
}

/// [`string`] when there is more to do than comparing its byte length.
fn string_more(s: &str, rules: &Rules<'_>) -> Result<(), Violation> {
    if lengths_in_doubt(s, rules) {
        lengths(s, rules)?;
    }
    if let Some(pattern) = rules.pattern
        && !pattern.is_match(s)
    {
        return Err(unmatched(s, pattern));
    }
    if let Some(format) = rules.format
        && !format.accepts(s)
    {
        return Err(unformatted(s, format));
    }
    Ok(())
}

/// `minLength` and `maxLength`, counting the characters of `s`.
fn lengths(s: &str, rules: &Rules<'_>) -> Result<(), Violation> {
    let len = s.chars().count() as u64;
    if let Some(min) = rules.min_length.filter(|&min| len < min) {
        let detail = format!("{} is shorter than the minLength {min}", quote(s));
        return Err(Violation::new("minLength", detail));
    }
    if let Some(max) = rules.max_length.filter(|&max| len > max) {
        let detail = format!("{} is longer than the maxLength {max}", quote(s));
        return Err(Violation::new("maxLength", detail));
    }
    Ok(())
}

/// The violation of `pattern` by `s`.
#[cold]
fn unmatched(s: &str, pattern: &Pattern) -> Violation {
    let detail = format!(
        "{} does not match the pattern {:?}",
        quote(s),
        pattern.source()
    );
    Violation::new("pattern", detail)
}

/// The violation of `format` by `s`.
#[cold]
fn unformatted(s: &str, format: Format) -> Violation {
    let detail = format!("{} is not of the format {:?}", quote(s), format.name());
    Violation::new("format", detail)
}

/// `s` as a JSON string, its first [`QUOTED`] characters only.
fn quote(s: &str) -> String {
    match s.char_indices().nth(QUOTED) {
        Some((end, _)) => format!("{:?}…", &s[..end]),
        None => format!("{s:?}"),
    }
}

/// An integer's bounds and `multipleOf`, compared exactly. The passing case is a few
/// comparisons; a refused one is described by [`integer_refused`].
#[inline]
pub(super) fn integer(n: i128, rules: &Rules<'_>) -> Result<(), Violation> {
    use Ordering::{Equal, Greater, Less};
    let refused = |bound: Option<f64>, against: [Ordering; 2]| {
        bound.is_some_and(|bound| compare_integer(n, bound).is_none_or(|o| against.contains(&o)))
    };
    if refused(rules.minimum, [Less; 2])
        || refused(rules.exclusive_minimum, [Less, Equal])
        || refused(rules.maximum, [Greater; 2])
        || refused(rules.exclusive_maximum, [Greater, Equal])
        || rules.multiple_of.is_some_and(|m| !integer_multiple(n, m))
    {
        return integer_refused(n, rules);
    }
    Ok(())
}

/// The violation of an integer that [`integer`] refuses: the first keyword broken, in
/// the order the keywords are checked.
#[cold]
#[inline(never)]
fn integer_refused(n: i128, rules: &Rules<'_>) -> Result<(), Violation> {
    bounds(|| n.to_string(), rules, |bound| compare_integer(n, bound))?;
    if let Some(m) = rules.multiple_of.filter(|&m| !integer_multiple(n, m)) {
        let detail = format!("{n} is not a multiple of the multipleOf {m}");
        return Err(Violation::new("multipleOf", detail));
    }
    Ok(())
}

/// Whether the integer `n` is a multiple of `m`: exactly when `m` is an integer.
#[inline]
fn integer_multiple(n: i128, m: f64) -> bool {
    if let Some(small) = small_integer(m)
        && small != 0
    {
        // `wrapping_rem`: `i64::MIN % -1` is 0, not an overflow.
        return match i64::try_from(n) {
            Ok(n) => n.wrapping_rem(small) == 0,
            Err(_) => n.wrapping_rem(i128::from(small)) == 0,
        };
    }
    if m.fract() == 0.0 && m.abs() < 1e38 && m != 0.0 {
        n % (m as i128) == 0
    } else {
        multiple(n as f64, m)
    }
}

/// `x` as an `i64` when it is an integer well inside that type's range (the cheap
/// conversion; larger ones go through `i128`).
#[inline]
fn small_integer(x: f64) -> Option<i64> {
    let small = x as i64;
    (x.abs() < 9.0e18 && small as f64 == x).then_some(small)
}

/// A number with a fraction's bounds and `multipleOf`.
pub(super) fn fraction(x: f64, rules: &Rules<'_>) -> Result<(), Violation> {
    // Written as the runtime writes it: `0`, not `0.0`.
    let shown = || match crate::protocol::number::integral(x) {
        Some(n) => n.to_string(),
        None => Number::from_f64(x).map_or_else(|| x.to_string(), |n| n.to_string()),
    };
    bounds(shown, rules, |bound| x.partial_cmp(&bound))?;
    if let Some(m) = rules.multiple_of.filter(|&m| !multiple(x, m)) {
        let detail = format!("{} is not a multiple of the multipleOf {m}", shown());
        return Err(Violation::new("multipleOf", detail));
    }
    Ok(())
}

/// A JSON number, exactly when it is an integer.
pub(super) fn number(n: &Number, rules: &Rules<'_>) -> Result<(), Violation> {
    if let Some(i) = n.as_i64() {
        integer(i128::from(i), rules)
    } else if let Some(u) = n.as_u64() {
        integer(i128::from(u), rules)
    } else {
        fraction(n.as_f64().unwrap_or(f64::NAN), rules)
    }
}

/// How `n` compares with a bound: exactly when the bound is an integer in range.
#[inline]
fn compare_integer(n: i128, bound: f64) -> Option<Ordering> {
    if let Some(small) = small_integer(bound) {
        Some(n.cmp(&i128::from(small)))
    } else if bound.fract() == 0.0 && bound.abs() < 1e38 {
        Some(n.cmp(&(bound as i128)))
    } else {
        (n as f64).partial_cmp(&bound)
    }
}

/// Whether `x / m` is an integer, to a relative 1e-9 (decimal fractions such as `0.1`
/// have no exact binary form).
fn multiple(x: f64, m: f64) -> bool {
    if m <= 0.0 || !m.is_finite() {
        return true;
    }
    let q = x / m;
    (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
}

/// The four bounds, `cmp` comparing the value with a bound; `shown` writes the value
/// (only for a message).
fn bounds(
    shown: impl Fn() -> String,
    rules: &Rules<'_>,
    cmp: impl Fn(f64) -> Option<Ordering>,
) -> Result<(), Violation> {
    use Ordering::{Greater, Less};
    let checks: [(&'static str, Option<f64>, &[Ordering], &str); 4] = [
        ("minimum", rules.minimum, &[Less], "is less than"),
        (
            "exclusiveMinimum",
            rules.exclusive_minimum,
            &[Less, Ordering::Equal],
            "is not greater than",
        ),
        ("maximum", rules.maximum, &[Greater], "is greater than"),
        (
            "exclusiveMaximum",
            rules.exclusive_maximum,
            &[Greater, Ordering::Equal],
            "is not less than",
        ),
    ];
    for (keyword, bound, refused, words) in checks {
        let Some(bound) = bound else { continue };
        // A NaN compares with nothing: refused by every bound.
        if cmp(bound).is_none_or(|o| refused.contains(&o)) {
            let detail = format!("{} {words} the {keyword} {bound}", shown());
            return Err(Violation::new(keyword, detail));
        }
    }
    Ok(())
}

/// An array's `minItems` and `maxItems`.
#[inline]
pub(super) fn counts(len: usize, rules: &Rules<'_>) -> Result<(), Violation> {
    let len = len as u64;
    if rules.min_items.is_some_and(|min| len < min) || rules.max_items.is_some_and(|max| len > max)
    {
        return counts_refused(len, rules);
    }
    Ok(())
}

/// The violation of `minItems` or `maxItems` by `len` items.
#[cold]
#[inline(never)]
fn counts_refused(len: u64, rules: &Rules<'_>) -> Result<(), Violation> {
    if let Some(min) = rules.min_items.filter(|&min| len < min) {
        let detail = format!("{len} items, fewer than the minItems {min}");
        return Err(Violation::new("minItems", detail));
    }
    if let Some(max) = rules.max_items.filter(|&max| len > max) {
        let detail = format!("{len} items, more than the maxItems {max}");
        return Err(Violation::new("maxItems", detail));
    }
    Ok(())
}

/// An object's `minProperties` and `maxProperties`.
pub(super) fn properties(len: usize, rules: &Rules<'_>) -> Result<(), Violation> {
    let len = len as u64;
    if let Some(min) = rules.min_properties.filter(|&min| len < min) {
        let detail = format!("{len} members, fewer than the minProperties {min}");
        return Err(Violation::new("minProperties", detail));
    }
    if let Some(max) = rules.max_properties.filter(|&max| len > max) {
        let detail = format!("{len} members, more than the maxProperties {max}");
        return Err(Violation::new("maxProperties", detail));
    }
    Ok(())
}

/// A map's keys against [`Rules::keys`]: the first key no pattern matches is refused
/// under `additionalProperties` (the keyword that refuses it in JSON Schema).
pub(super) fn keys<'k>(
    keys: impl Iterator<Item = &'k String>,
    rules: &Rules<'_>,
) -> Result<(), Violation> {
    let Some(pattern) = rules.keys else {
        return Ok(());
    };
    match keys.into_iter().find(|k| !pattern.is_match(k)) {
        Some(key) => {
            let detail = format!(
                "the member {} matches no patternProperties ({:?}) and additionalProperties is false",
                quote(key),
                pattern.source()
            );
            Err(Violation::new("additionalProperties", detail).at_key(key))
        }
        None => Ok(()),
    }
}

/// A typed array: its counts, `uniqueItems`, then each item, then `const`.
#[inline]
pub(super) fn items<T: Validate>(items: &[T], rules: &Rules<'_>) -> Result<(), Violation> {
    counts(items.len(), rules)?;
    if rules.unique_items {
        unique_items(items)?;
    }
    if rules.prefix_items.is_empty() {
        // Every item under the same rules (an array's `items`): read once.
        let inner = Rules::or_none(rules.items);
        for (index, item) in items.iter().enumerate() {
            item.validate(inner).map_err(|v| v.at_index(index))?;
        }
    } else {
        for (index, item) in items.iter().enumerate() {
            let inner = rules
                .prefix_items
                .get(index)
                .or(rules.items)
                .unwrap_or(&Rules::NONE);
            item.validate(inner).map_err(|v| v.at_index(index))?;
        }
    }
    constant(items, rules)
}

/// A typed array's `uniqueItems`: strings compared as they are (a few in place, nothing
/// allocated), other items through their canonical JSON texts.
#[inline]
fn unique_items<T: Validate>(items: &[T]) -> Result<(), Violation> {
    if !items.iter().all(|item| item.as_json_str().is_some()) {
        return unique(items.iter().map(|item| canonical_of(item)));
    }
    if items.len() > FEW {
        return unique(items.iter().filter_map(Validate::as_json_str));
    }
    for (index, item) in items.iter().enumerate() {
        let text = item.as_json_str();
        if let Some(first) = items[..index].iter().position(|t| t.as_json_str() == text) {
            return Err(equal_items(first, index));
        }
    }
    Ok(())
}

/// A tuple's `uniqueItems`, through its JSON form.
pub(super) fn unique_serialized<T: Serialize + ?Sized>(
    value: &T,
    rules: &Rules<'_>,
) -> Result<(), Violation> {
    if !rules.unique_items {
        return Ok(());
    }
    match serde_json::to_value(value) {
        Ok(Value::Array(items)) => unique(items.iter().map(canonical)),
        _ => Ok(()),
    }
}

/// `uniqueItems` over the items' canonical texts (or the strings themselves, for items
/// that are strings): the first two equal are named. A few items are compared with each
/// other, more through a hash map.
fn unique<K: Eq + std::hash::Hash>(texts: impl Iterator<Item = K>) -> Result<(), Violation> {
    let equal = |first: usize, index: usize| Err(equal_items(first, index));
    let mut few: Vec<K> = Vec::new();
    let mut many: HashMap<K, usize> = HashMap::new();
    for (index, text) in texts.enumerate() {
        if index < FEW {
            if let Some(first) = few.iter().position(|t| *t == text) {
                return equal(first, index);
            }
            few.push(text);
            continue;
        }
        if index == FEW {
            many.extend(few.drain(..).enumerate().map(|(i, t)| (t, i)));
        }
        if let Some(first) = many.insert(text, index) {
            return equal(first, index);
        }
    }
    Ok(())
}

/// How many items `uniqueItems` compares with each other (more go through a hash map).
const FEW: usize = 16;

/// The violation of `uniqueItems` by the items `first` and `index`.
fn equal_items(first: usize, index: usize) -> Violation {
    let detail = format!("items {first} and {index} are equal, against uniqueItems");
    Violation::new("uniqueItems", detail)
}

/// `const`: the value's JSON form equals the constant's.
#[inline]
pub(super) fn constant<T: Serialize + ?Sized>(
    value: &T,
    rules: &Rules<'_>,
) -> Result<(), Violation> {
    match rules.constant {
        Some(constant) => constant_of(value, constant),
        None => Ok(()),
    }
}

/// `const` when it is written: serialises the value and compares.
fn constant_of<T: Serialize + ?Sized>(value: &T, constant: &str) -> Result<(), Violation> {
    let expected = serde_json::from_str::<Value>(constant)
        .map_or_else(|_| constant.to_owned(), |v| canonical(&v));
    let found = canonical_of(value);
    if found == expected {
        return Ok(());
    }
    let shown = if found.chars().count() > QUOTED {
        "the value".to_owned()
    } else {
        found
    };
    Err(Violation::new(
        "const",
        format!("{shown} is not the const {constant}"),
    ))
}

/// The keywords of a whole value checked through its JSON form (a named type's use
/// site: `const`, `minProperties`, …); nothing is serialised when none is written.
#[inline]
pub(super) fn whole<T: Serialize + ?Sized>(value: &T, rules: &Rules<'_>) -> Result<(), Violation> {
    let top = Rules {
        items: None,
        prefix_items: &[],
        values: None,
        keys: None,
        ..*rules
    };
    if top.constant.is_none()
        && top.min_properties.is_none()
        && top.max_properties.is_none()
        && !has_scalar_keywords(&top)
        && top.min_items.is_none()
        && top.max_items.is_none()
        && !top.unique_items
    {
        return Ok(());
    }
    whole_json(value, &top)
}

/// [`whole`] when some keyword is written: through the value's JSON form.
fn whole_json<T: Serialize + ?Sized>(value: &T, top: &Rules<'_>) -> Result<(), Violation> {
    match serde_json::to_value(value) {
        Ok(json) => super::check_json(&json, top),
        Err(_) => Ok(()),
    }
}

fn has_scalar_keywords(rules: &Rules<'_>) -> bool {
    rules.min_length.is_some()
        || rules.max_length.is_some()
        || rules.pattern.is_some()
        || rules.format.is_some()
        || rules.minimum.is_some()
        || rules.exclusive_minimum.is_some()
        || rules.maximum.is_some()
        || rules.exclusive_maximum.is_some()
        || rules.multiple_of.is_some()
}

/// Checks any JSON value against `rules`: the keywords that apply to its JSON type,
/// its items or members against theirs, then `const`. What a `serde_json::Value` field
/// is checked with, and what the mock checks each schema node's keywords with.
///
/// # Errors
///
/// The first [`Violation`] found, with the JSON pointer of the value at fault.
pub fn check_json(value: &Value, rules: &Rules<'_>) -> Result<(), Violation> {
    match value {
        Value::String(s) => string(s, rules)?,
        Value::Number(n) => number(n, rules)?,
        Value::Array(values) => {
            counts(values.len(), rules)?;
            if rules.unique_items {
                unique(values.iter().map(canonical))?;
            }
            for (index, item) in values.iter().enumerate() {
                let inner = rules.prefix_items.get(index).or(rules.items);
                if let Some(inner) = inner {
                    check_json(item, inner).map_err(|v| v.at_index(index))?;
                }
            }
        }
        Value::Object(members) => {
            properties(members.len(), rules)?;
            keys(members.keys(), rules)?;
            if let Some(inner) = rules.values {
                for (key, member) in members {
                    check_json(member, inner).map_err(|v| v.at_key(key))?;
                }
            }
        }
        Value::Null | Value::Bool(_) => {}
    }
    constant(value, rules)
}

/// The canonical JSON text of a serialisable value (see [`canonical`]): its text as
/// written when that can be written only one way (a string, an integer, a literal).
fn canonical_of<T: Serialize + ?Sized>(value: &T) -> String {
    match serde_json::to_string(value) {
        Ok(text) if text.starts_with('"') || one_way(&text) => text,
        _ => serde_json::to_value(value).map_or_else(|e| e.to_string(), |v| canonical(&v)),
    }
}

/// Whether a JSON text that is not a string is an integer or a literal.
fn one_way(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    matches!(text, "true" | "false" | "null")
        || (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// A JSON text equal for values JSON Schema calls equal: object members sorted, an
/// integral number written as an integer (`1.0` is `1`).
fn canonical(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < 1e18 => {
                out.push_str(&(f as i64).to_string());
            }
            _ => out.push_str(&n.to_string()),
        },
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, member)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(member, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
