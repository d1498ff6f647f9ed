//! The `format`s checked: a conservative few, each by its RFC's grammar.

use std::net::{Ipv4Addr, Ipv6Addr};

/// A `format` that is checked. Formats not listed here are annotations only (JSON
/// Schema lets a validator ignore them), as are these where a schema applies them to
/// something other than a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// `date-time`: RFC 3339 `date-time` (`2024-02-29T12:00:00.5+01:00`; `T`/`Z` in either
    /// case; a leap second `60` accepted).
    DateTime,
    /// `date`: RFC 3339 `full-date`, with the days of each month (leap years too).
    Date,
    /// `time`: RFC 3339 `full-time`, offset required (`12:00:00Z`).
    Time,
    /// `uuid`: RFC 4122 text, `8-4-4-4-12` hexadecimal digits in either case.
    Uuid,
    /// `ipv4`: dotted decimal, four octets, no leading zeros.
    Ipv4,
    /// `ipv6`: RFC 4291 text (no zone).
    Ipv6,
    /// `email`, minimally: one `@` with text on each side, no whitespace, a domain
    /// without empty labels.
    Email,
    /// `uri`, minimally: an RFC 3986 scheme, `:`, then no whitespace or control
    /// characters.
    Uri,
}

impl Format {
    /// The checked format of this name, `None` for any other.
    pub fn from_name(name: &str) -> Option<Format> {
        Some(match name {
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "uuid" => Format::Uuid,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "email" => Format::Email,
            "uri" => Format::Uri,
            _ => return None,
        })
    }

    /// The name the document writes.
    pub fn name(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Time => "time",
            Format::Uuid => "uuid",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Email => "email",
            Format::Uri => "uri",
        }
    }

    /// Whether `text` is of this format.
    pub fn accepts(self, text: &str) -> bool {
        match self {
            Format::DateTime => date_time(text),
            Format::Date => date(text),
            Format::Time => time(text),
            Format::Uuid => uuid(text),
            Format::Ipv4 => text.parse::<Ipv4Addr>().is_ok(),
            Format::Ipv6 => text.parse::<Ipv6Addr>().is_ok(),
            Format::Email => email(text),
            Format::Uri => uri(text),
        }
    }
}

/// `len` ASCII digits at the start of `text`, as a number, and the rest.
fn digits(text: &str, len: usize) -> Option<(u32, &str)> {
    let head = text.get(..len)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &text[len..]))
}

fn date_time(text: &str) -> bool {
    match text.find(['T', 't']) {
        Some(at) => date(&text[..at]) && time(&text[at + 1..]),
        None => false,
    }
}

fn date(text: &str) -> bool {
    let parts = digits(text, 4).and_then(|(year, rest)| {
        let (month, rest) = digits(rest.strip_prefix('-')?, 2)?;
        let (day, rest) = digits(rest.strip_prefix('-')?, 2)?;
        rest.is_empty().then_some((year, month, day))
    });
    let Some((year, month, day)) = parts else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn time(text: &str) -> bool {
    let clock = digits(text, 2).and_then(|(hour, rest)| {
        let (minute, rest) = digits(rest.strip_prefix(':')?, 2)?;
        let (second, rest) = digits(rest.strip_prefix(':')?, 2)?;
        (hour < 24 && minute < 60 && second <= 60).then_some(rest)
    });
    let Some(mut rest) = clock else {
        return false;
    };
    if let Some(fraction) = rest.strip_prefix('.') {
        let count = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if count == 0 {
            return false;
        }
        rest = &fraction[count..];
    }
    if rest == "Z" || rest == "z" {
        return true;
    }
    let offset = rest
        .strip_prefix(['+', '-'])
        .and_then(|r| digits(r, 2))
        .and_then(|(hour, r)| Some((hour, digits(r.strip_prefix(':')?, 2)?)));
    matches!(offset, Some((hour, (minute, ""))) if hour < 24 && minute < 60)
}

fn uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    let lengths = [8, 4, 4, 4, 12];
    groups.len() == lengths.len()
        && groups
            .iter()
            .zip(lengths)
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && !local.contains('@')
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
        && !domain.is_empty()
        && domain.split('.').all(|label| !label.is_empty())
}

fn uri(text: &str) -> bool {
    let Some((scheme, rest)) = text.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.chars().any(|c| c.is_whitespace() || c.is_control())
}
