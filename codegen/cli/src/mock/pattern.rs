//! A string matching a `pattern`: the regular expression, translated as the runtime's
//! checks translate it ([`rpcsmith_build::pattern::translate`]), is parsed (by `regex-syntax`,
//! whose syntax covers what JSON Schema documents write: classes, groups, alternation,
//! counted repetition, anchors) and walked, taking the fewest repetitions allowed (a
//! few more where the seed says so) and, in a class, an ASCII letter or digit where one
//! is allowed.

use regex_syntax::hir::{Class, Hir, HirKind};

use super::rng::Rng;

/// Longest run of one repetition generated, whatever the pattern allows.
const MAX_REPEAT: u32 = 8;

/// A string matching `pattern`; `None` when it is not a regular expression this parser
/// reads (the caller then ignores the pattern and says so).
pub(crate) fn matching(pattern: &str, rng: &mut Rng) -> Option<String> {
    // ECMA-262 read as the runtime's checks read it: `\d`, `\w`, `\s` and `.` become
    // explicit classes, so no Unicode table is needed (regex-syntax is built without).
    let translated = rpcsmith_build::pattern::translate(pattern).ok()?;
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(true)
        .build()
        .parse(&translated)
        .ok()?;
    let mut out = String::new();
    walk(&hir, rng, &mut out);
    Some(out)
}

fn walk(hir: &Hir, rng: &mut Rng, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(class) => out.push(pick(class, rng)),
        HirKind::Repetition(repetition) => {
            let min = repetition.min;
            let max = repetition.max.unwrap_or(u32::MAX).min(min.max(MAX_REPEAT));
            let extra = if max > min {
                rng.below(u64::from(max - min) + 1)
            } else {
                0
            };
            let count = min + u32::try_from(extra).unwrap_or(0);
            for _ in 0..count.max(min) {
                walk(&repetition.sub, rng, out);
            }
        }
        HirKind::Capture(capture) => walk(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().for_each(|part| walk(part, rng, out)),
        HirKind::Alternation(choices) => {
            let index = usize::try_from(rng.below(choices.len() as u64)).unwrap_or(0);
            walk(&choices[index], rng, out);
        }
    }
}

/// A character of the class: an ASCII alphanumeric one it allows (chosen by the seed),
/// else the first it allows.
fn pick(class: &Class, rng: &mut Rng) -> char {
    let candidates: Vec<char> = match class {
        Class::Unicode(class) => class
            .iter()
            .flat_map(|r| (r.start()..=r.end()).take(64))
            .filter(char::is_ascii_alphanumeric)
            .collect(),
        Class::Bytes(class) => class
            .iter()
            .flat_map(|r| (r.start()..=r.end()).take(64))
            .map(char::from)
            .filter(char::is_ascii_alphanumeric)
            .collect(),
    };
    if candidates.is_empty() {
        return match class {
            Class::Unicode(class) => class.iter().next().map_or('a', |r| r.start()),
            Class::Bytes(class) => class.iter().next().map_or('a', |r| char::from(r.start())),
        };
    }
    let index = usize::try_from(rng.below(candidates.len() as u64)).unwrap_or(0);
    candidates[index]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_patterns_give_matching_strings() {
        let felt = "^0x(0|[a-fA-F1-9]{1}[a-fA-F0-9]{0,62})$";
        for seed in 0..50 {
            let s = matching(felt, &mut Rng::new(seed)).unwrap();
            assert!(s.starts_with("0x"), "{s}");
            let digits = &s[2..];
            assert!(
                digits == "0" || (!digits.starts_with('0') && digits.len() <= 63),
                "{s}"
            );
            assert!(digits.chars().all(|c| c.is_ascii_hexdigit()), "{s}");
        }
        let version = matching("^[0-9]+\\.[0-9]+$", &mut Rng::new(1)).unwrap();
        let (major, minor) = version.split_once('.').unwrap();
        assert!(!major.is_empty() && major.chars().all(|c| c.is_ascii_digit()));
        assert!(!minor.is_empty() && minor.chars().all(|c| c.is_ascii_digit()));
        let base64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)?$";
        for seed in 0..20 {
            let s = matching(base64, &mut Rng::new(seed)).unwrap();
            assert_eq!(s.len() % 4, 0, "{s}");
            let body = s.trim_end_matches('=');
            assert!(s.len() - body.len() <= 2, "{s}");
            assert!(body.chars().all(|c| c.is_ascii_alphanumeric()), "{s}");
        }
        let date = matching("\\d{4}-\\d{2}", &mut Rng::new(3)).unwrap();
        assert_eq!(date.len(), 7, "{date}");
        assert!(date.chars().enumerate().all(|(i, c)| if i == 4 {
            c == '-'
        } else {
            c.is_ascii_digit()
        }));
        assert!(matching("(?<=a)b", &mut Rng::new(0)).is_none());
    }
}
