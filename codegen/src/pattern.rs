//! `pattern`s: ECMA-262 regular expressions, as JSON Schema defines them, translated to
//! the syntax of the `regex` crate (the engine of the runtime's checks, built without its
//! Unicode tables) where they mean the same, refused where they cannot.
//!
//! What changes in translation:
//!
//! | ECMA-262 | becomes | why |
//! |---|---|---|
//! | `.` | `[^\n\r\u{2028}\u{2029}]` | ECMA's dot stops at every line terminator, `regex`'s at `\n` only |
//! | `\d`, `\w` (and `\D`, `\W`), `\b`, `\B` | `[0-9]`, `[0-9A-Za-z_]`, `(?-u:\b)` | ASCII in ECMA; Unicode in `regex`, whose tables are not built |
//! | `\s`, `\S` | the class of ECMA's white space and line terminators (Unicode spaces, `\u{feff}`) | |
//! | `\uXXXX`, a surrogate pair `\uD83D\uDE00` | `\u{XXXX}`, the pair's code point | |
//! | `\cX`, `\0` | the control character | |
//! | `[\b]` | `\x{8}` (backspace) | |
//! | an escaped punctuation mark (`\/`, `\-`), and `[`, `&`, `~` in a class | the character by its code | `regex` refuses some escapes and reads `[`, `&&`, `~~` in classes as set operations |
//! | `{` that begins no `{n}`, `{n,}` or `{n,m}` | `\{` | ECMA reads it as a literal |
//! | `(?<name>` | `(?P<name>` | |
//! | `[^]` | `(?s:.)`: any character | |
//!
//! Outside the subset, and refused (the generator
//! warns and generates no check): lookahead and lookbehind (`(?=`, `(?!`, `(?<=`,
//! `(?<!`), backreferences (`\1`, `\k<name>`), Unicode property escapes (`\p{L}`), a
//! lone surrogate, `\S` inside a class, and whatever `regex` does not compile.

/// The pattern in `regex`'s syntax, meaning what ECMA-262 reads in `pattern`.
///
/// # Errors
///
/// A [`PatternError`] saying why the pattern is outside the supported subset (a
/// lookaround, a backreference, …).
pub fn translate(pattern: &str) -> Result<String, PatternError> {
    to_regex(pattern).map_err(|reason| PatternError { reason })
}

/// Why a `pattern` cannot be translated: it is outside the supported ECMA-262 subset.
/// `Display` says what was met, such as ``a lookahead `(?=…)`/`(?!…)` ``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    reason: String,
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl std::error::Error for PatternError {}

fn to_regex(pattern: &str) -> Result<String, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => i = escape(&chars, i, in_class, &mut out)?,
            '[' if !in_class => {
                if chars.get(i) == Some(&'^') && chars.get(i + 1) == Some(&']') {
                    out.push_str("(?s:.)");
                    i += 2;
                    continue;
                }
                if chars.get(i) == Some(&']') {
                    return Err("an empty class `[]` (matches nothing)".to_owned());
                }
                in_class = true;
                out.push('[');
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '[' | '&' | '~' if in_class => push_code(c, &mut out),
            '.' if !in_class => out.push_str(r"[^\n\r\x{2028}\x{2029}]"),
            '(' if !in_class => i = group(&chars, i, &mut out)?,
            '{' if !in_class && !quantifier(&chars[i..]) => out.push_str(r"\{"),
            '}' if !in_class && !closes_quantifier(&chars[..i - 1]) => out.push_str(r"\}"),
            _ => out.push(c),
        }
    }
    regex::Regex::new(&out).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().last().unwrap_or(&text).trim().to_owned();
        format!("not compiled by the engine ({first})")
    })?;
    Ok(out)
}

/// ECMA's `\d` and `\w`, as class members.
const DIGIT: &str = "0-9";
const WORD: &str = "0-9A-Za-z_";

/// ECMA's white space and line terminators, as class members.
const SPACE: &str = r"\t\n\x{b}\x{c}\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}";

/// The escape after a `\` at `i`; returns where the pattern goes on.
fn escape(chars: &[char], i: usize, in_class: bool, out: &mut String) -> Result<usize, String> {
    let Some(&c) = chars.get(i) else {
        return Err("a `\\` at the end".to_owned());
    };
    let next = i + 1;
    match c {
        't' | 'n' | 'r' | 'f' => {
            out.push('\\');
            out.push(c);
        }
        'v' => out.push_str(r"\x{b}"),
        'd' | 'w' => {
            let class = if c == 'd' { DIGIT } else { WORD };
            if in_class {
                out.push_str(class);
            } else {
                out.push_str(&format!("[{class}]"));
            }
        }
        // A nested class: `regex` reads `[a[^0-9]]` as a union.
        'D' => out.push_str(&format!("[^{DIGIT}]")),
        'W' => out.push_str(&format!("[^{WORD}]")),
        'b' if in_class => out.push_str(r"\x{8}"),
        'b' => out.push_str(r"(?-u:\b)"),
        'B' => out.push_str(r"(?-u:\B)"),
        's' if in_class => out.push_str(SPACE),
        's' => out.push_str(&format!("[{SPACE}]")),
        'S' if in_class => return Err("`\\S` inside a class".to_owned()),
        'S' => out.push_str(&format!("[^{SPACE}]")),
        '0' if !chars.get(next).is_some_and(char::is_ascii_digit) => out.push_str(r"\x{0}"),
        '1'..='9' => return Err(format!("a backreference `\\{c}`")),
        'k' if chars.get(next) == Some(&'<') => {
            return Err("a named backreference `\\k<…>`".to_owned());
        }
        'p' | 'P' => return Err(format!("a Unicode property escape `\\{c}{{…}}`")),
        'c' => match chars.get(next).filter(|l| l.is_ascii_alphabetic()) {
            Some(letter) => {
                push_code(char::from(*letter as u8 % 32), out);
                return Ok(next + 1);
            }
            None => return Err("`\\c` without a control letter".to_owned()),
        },
        'x' => {
            let code = hex(chars, next, 2).ok_or("`\\x` without two hex digits")?;
            out.push_str(&format!(r"\x{{{code:x}}}"));
            return Ok(next + 2);
        }
        'u' => return unicode(chars, next, out),
        _ if c.is_ascii_alphanumeric() => return Err(format!("an unknown escape `\\{c}`")),
        _ => push_code(c, out),
    }
    Ok(next)
}

/// `\uXXXX` (a surrogate pair as one code point) or `\u{X…}`, after the `u` at `i`.
fn unicode(chars: &[char], i: usize, out: &mut String) -> Result<usize, String> {
    if chars.get(i) == Some(&'{') {
        let end = chars[i..].iter().position(|&c| c == '}').map(|p| i + p);
        let code = end.and_then(|end| hex(chars, i + 1, end - i - 1));
        return match (code.and_then(char::from_u32), end) {
            (Some(c), Some(end)) => {
                push_code(c, out);
                Ok(end + 1)
            }
            _ => Err("a `\\u{…}` that is no code point".to_owned()),
        };
    }
    let high = hex(chars, i, 4).ok_or("`\\u` without four hex digits")?;
    if (0xD800..0xDC00).contains(&high)
        && chars.get(i + 4) == Some(&'\\')
        && chars.get(i + 5) == Some(&'u')
        && let Some(low) = hex(chars, i + 6, 4).filter(|l| (0xDC00..0xE000).contains(l))
    {
        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        push_code(char::from_u32(code).ok_or("a bad surrogate pair")?, out);
        return Ok(i + 10);
    }
    let c = char::from_u32(high).ok_or("a lone surrogate `\\u` escape")?;
    push_code(c, out);
    Ok(i + 4)
}

/// The group opened by a `(` before `i`: lookarounds refused, `(?<name>` renamed.
fn group(chars: &[char], i: usize, out: &mut String) -> Result<usize, String> {
    let ahead: String = chars[i..].iter().take(3).collect();
    if ahead.starts_with("?=") || ahead.starts_with("?!") {
        return Err("a lookahead `(?=…)`/`(?!…)`".to_owned());
    }
    if ahead.starts_with("?<=") || ahead.starts_with("?<!") {
        return Err("a lookbehind `(?<=…)`/`(?<!…)`".to_owned());
    }
    if ahead.starts_with("?<") {
        out.push_str("(?P<");
        return Ok(i + 2);
    }
    out.push('(');
    Ok(i)
}

/// The number written by `len` hex digits at `i`.
fn hex(chars: &[char], i: usize, len: usize) -> Option<u32> {
    let digits: String = chars.get(i..i + len)?.iter().collect();
    if len == 0 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(&digits, 16).ok()
}

/// The character by its code, so no engine reads it as syntax.
fn push_code(c: char, out: &mut String) {
    out.push_str(&format!(r"\x{{{:x}}}", u32::from(c)));
}

/// Whether the text after a `{` makes a quantifier: `n}`, `n,}`, `n,m}`.
fn quantifier(after: &[char]) -> bool {
    let text: String = after.iter().take_while(|&&c| c != '}').collect();
    if text.len() == after.len() {
        return false;
    }
    let mut parts = text.splitn(2, ',');
    let low = parts.next().unwrap_or("");
    let high = parts.next();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    digits(low) && high.is_none_or(|h| h.is_empty() || digits(h))
}

/// Whether the `}` after `before` closes a quantifier.
fn closes_quantifier(before: &[char]) -> bool {
    match before.iter().rposition(|&c| c == '{') {
        Some(open) => {
            let escaped = open > 0 && before[open - 1] == '\\';
            let mut inside = before[open + 1..].to_vec();
            inside.push('}');
            !escaped && quantifier(&inside)
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::translate;

    fn matches(pattern: &str, text: &str) -> bool {
        let translated = translate(pattern).unwrap();
        regex::Regex::new(&translated).unwrap().is_match(text)
    }

    #[test]
    fn real_patterns_translate_and_match_as_ecma_reads_them() {
        assert!(matches("^0x[a-fA-F0-9]{1,64}$", "0xdeadBEEF"));
        assert!(!matches("^0x[a-fA-F0-9]{1,64}$", "0x"));
        assert!(matches("^0x([1-9a-f]+[0-9a-f]*|0)$", "0x0"));
        assert!(matches(r"^\d+$", "123"));
        // ECMA's \d is ASCII: an Arabic-Indic digit is not one.
        assert!(!matches(r"^\d+$", "\u{0663}"));
        assert!(matches(r"^\/path\-x$", "/path-x"));
        assert!(matches(r"^a.b$", "a\u{e9}b"));
        assert!(!matches(r"^a.b$", "a\rb"));
        assert!(matches(r"^\s$", "\u{a0}"));
        assert!(matches(r"^\u00e9\uD83D\uDE00$", "\u{e9}\u{1F600}"));
        assert!(matches(r"^[a-z[]+$", "a[b"));
        assert!(matches(r"^[&~]+$", "&~"));
        assert!(matches("^a{$", "a{"));
        assert!(matches("^{x}$", "{x}"));
        assert!(matches("^a{2}$", "aa"));
        assert!(matches("^(?<hex>[0-9a-f]+)$", "ff"));
        assert!(matches("^[^]$", "\n"));
        assert!(matches(r"^\w+\b-[\d\W]+$", "ab_9-1-"));
        assert!(!matches(r"^\w$", "\u{e9}"));
        assert!(matches(r"^\D\W$", "a-"));
    }

    #[test]
    fn patterns_outside_the_subset_say_why() {
        let cases = [
            ("^(?!0x)", "a lookahead `(?=…)`/`(?!…)`"),
            ("(?<=a)b", "a lookbehind `(?<=…)`/`(?<!…)`"),
            (r"(a)\1", "a backreference `\\1`"),
            (r"(?<x>a)\k<x>", "a named backreference `\\k<…>`"),
            (r"^\p{L}+$", "a Unicode property escape `\\p{…}`"),
            (r"\uD800", "a lone surrogate `\\u` escape"),
            (r"[\S]", "`\\S` inside a class"),
        ];
        for (pattern, why) in cases {
            let err = translate(pattern).unwrap_err();
            assert_eq!(err.to_string(), why, "{pattern}");
        }
        assert!(
            translate("(")
                .unwrap_err()
                .to_string()
                .starts_with("not compiled by the engine (")
        );
    }
}
