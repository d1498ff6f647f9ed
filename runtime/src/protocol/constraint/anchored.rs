//! A matcher for the anchored simple patterns real documents write (`^0x[0-9a-fA-F]{40}$`,
//! `^0x[0-9a-f]{0,64}$`, `^[a-z]+$`): a sequence of ASCII classes, each with a count,
//! matched in one pass without backtracking. [`Anchored::parse`] takes a pattern (in
//! `regex` syntax) only when that one pass answers exactly as the regular expression
//! does; any other pattern is left to `regex`.

/// One step of the sequence: a set of ASCII bytes (bit `b` for byte `b`, as a table by
/// byte, and as a few ranges when it is made of few) taken between `min` and `max` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    set: u128,
    table: [bool; 256],
    /// The set as lanes of ranges, when it is made of [`RANGES`] ranges at most: what
    /// whole chunks are tested with.
    lanes: Option<Lanes>,
    min: u32,
    max: u32,
}

/// How many ranges of bytes a set may be made of to be tested a chunk at a time.
const RANGES: usize = 4;

/// How many bytes are tested at once against a step's ranges.
const CHUNK: usize = 16;

/// A set of [`RANGES`] ranges (see [`ranges`]), each as a chunk's worth of copies of its
/// first byte and of its span (`last - first`): a chunk is tested lane by lane, with
/// nothing to spread first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Lanes {
    first: [[u8; CHUNK]; RANGES],
    span: [[u8; CHUNK]; RANGES],
}

impl Lanes {
    fn new(ranges: [(u8, u8); RANGES]) -> Self {
        Lanes {
            first: ranges.map(|(first, _)| [first; CHUNK]),
            span: ranges.map(|(_, span)| [span; CHUNK]),
        }
    }

    /// Whether every byte of `chunk` is in one of the ranges (no branch per byte, so
    /// that the compiler tests the chunk's bytes together).
    #[inline]
    fn all_in(&self, chunk: &[u8; CHUNK]) -> bool {
        let mut outside = 0u8;
        for (lane, &b) in chunk.iter().enumerate() {
            let mut inside = false;
            for (first, span) in self.first.iter().zip(&self.span) {
                inside |= b.wrapping_sub(first[lane]) <= span[lane];
            }
            outside |= u8::from(!inside);
        }
        outside == 0
    }
}

impl Step {
    fn new(set: u128, min: u32, max: u32) -> Self {
        let table = std::array::from_fn(|b| b < 128 && set & (1u128 << b) != 0);
        Step {
            set,
            table,
            lanes: ranges(set).map(Lanes::new),
            min,
            max,
        }
    }

    /// How many bytes at the start of `bytes` the step takes, greedily: those of its set,
    /// `max` at most. Whole chunks are tested first, the rest a byte at a time.
    fn take(&self, bytes: &[u8]) -> usize {
        if self.max == 1 {
            // A literal or a class taken once (or optional): one byte at most.
            return usize::from(bytes.first().is_some_and(|&b| self.table[usize::from(b)]));
        }
        let bytes = &bytes[..bytes.len().min(self.max as usize)];
        match &self.lanes {
            Some(lanes) if bytes.len() >= CHUNK => self.take_chunks(bytes, lanes),
            _ => self.take_bytes(bytes),
        }
    }

    /// [`take`](Step::take) on at least a chunk of bytes, the set made of `lanes`.
    #[inline(never)]
    fn take_chunks(&self, bytes: &[u8], lanes: &Lanes) -> usize {
        let (chunks, rest) = bytes.as_chunks::<CHUNK>();
        for (index, chunk) in chunks.iter().enumerate() {
            if !lanes.all_in(chunk) {
                return index * CHUNK + self.take_bytes(chunk);
            }
        }
        // Every whole chunk taken: the last `CHUNK` bytes (overlapping) settle the rest.
        if !rest.is_empty()
            && bytes
                .last_chunk::<CHUNK>()
                .is_some_and(|last| lanes.all_in(last))
        {
            return bytes.len();
        }
        chunks.len() * CHUNK + self.take_bytes(rest)
    }

    /// How many bytes at the start of `bytes` are of the set, one at a time.
    fn take_bytes(&self, bytes: &[u8]) -> usize {
        bytes
            .iter()
            .take_while(|&&b| self.table[usize::from(b)])
            .count()
    }
}

/// The set `set` as [`RANGES`] ranges `(first, last - first)`, the last ones repeated;
/// `None` when it is made of more (or is empty).
fn ranges(set: u128) -> Option<[(u8, u8); RANGES]> {
    let mut runs: Vec<(u8, u8)> = Vec::new();
    for b in 0..128u8 {
        if set & (1u128 << b) == 0 {
            continue;
        }
        match runs.last_mut() {
            Some((first, span)) if *first + *span + 1 == b => *span += 1,
            _ => runs.push((b, 0)),
        }
    }
    (!runs.is_empty() && runs.len() <= RANGES)
        .then(|| std::array::from_fn(|i| runs[i.min(runs.len() - 1)]))
}

/// The largest count a pattern may write to be taken here (a larger one goes to `regex`,
/// which may refuse it by its size limit).
const MOST: u32 = 1000;

/// A pattern `^…$` of ASCII literals and classes with counts, possibly ending with one
/// group of alternatives (`^0x(0|[1-9a-f][0-9a-f]*)$`): each alternative is the prefix
/// followed by the branch, a sequence of steps matched greedily (each step takes as many
/// bytes of its set as its `max` allows). Only built (see [`Anchored::parse`]) when, in
/// every alternative, the set of a step with a choice of counts shares no byte with the
/// steps that could take the next byte, so that taking fewer could never match: greedy is
/// then exact, and the pattern matches when one alternative does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Anchored {
    alternatives: Vec<Vec<Step>>,
}

impl Anchored {
    /// The matcher of `regex` (a pattern in `regex` syntax), when it has the shape this
    /// matcher answers exactly; `None` for any other.
    pub(super) fn parse(regex: &str) -> Option<Self> {
        let body = regex.strip_prefix('^')?.strip_suffix('$')?;
        let (prefix, rest) = sequence(body.as_bytes())?;
        let alternatives = match rest {
            [] => vec![prefix],
            [b'(', rest @ ..] => {
                let mut rest = rest.strip_prefix(b"?:").unwrap_or(rest);
                let mut alternatives = Vec::new();
                loop {
                    let (branch, after) = sequence(rest)?;
                    alternatives.push([prefix.as_slice(), &branch].concat());
                    match after {
                        [b'|', after @ ..] => rest = after,
                        [b')'] => break,
                        _ => return None,
                    }
                }
                alternatives
            }
            _ => return None,
        };
        alternatives
            .iter()
            .all(|steps| greedy_is_exact(steps))
            .then_some(Anchored { alternatives })
    }

    /// Whether the whole of `text` matches.
    pub(super) fn is_match(&self, text: &str) -> bool {
        self.alternatives
            .iter()
            .any(|steps| matches(steps, text.as_bytes()))
    }
}

/// The steps at the start of `bytes` (literals and classes with their counts), and what
/// follows them (the end, or a byte that is neither). `None` for a class or count
/// outside the subset.
fn sequence(mut bytes: &[u8]) -> Option<(Vec<Step>, &[u8])> {
    let mut steps = Vec::new();
    loop {
        let (set, rest) = match bytes {
            [b'[', rest @ ..] => class(rest)?,
            [b, rest @ ..] if b.is_ascii_alphanumeric() => (1u128 << b, rest),
            _ => return Some((steps, bytes)),
        };
        let (min, max, rest) = count(rest)?;
        steps.push(Step::new(set, min, max));
        bytes = rest;
    }
}

/// Whether every step with a choice of counts shares no byte with any later step up to
/// (and including) the first that must take at least one.
fn greedy_is_exact(steps: &[Step]) -> bool {
    steps.iter().enumerate().all(|(index, step)| {
        step.min == step.max
            || steps[index + 1..]
                .iter()
                .scan(false, |done, next| {
                    (!*done).then(|| {
                        *done = next.min > 0;
                        next
                    })
                })
                .all(|next| next.set & step.set == 0)
    })
}

/// Whether the whole of `text` matches `steps`, each taking greedily.
fn matches(steps: &[Step], mut rest: &[u8]) -> bool {
    for step in steps {
        let taken = step.take(rest);
        if (taken as u64) < u64::from(step.min) {
            return false;
        }
        rest = &rest[taken..];
    }
    rest.is_empty()
}

/// A class `[…]` of ASCII alphanumerics and ranges of them (after its `[`): its set and
/// what follows its `]`. `None` for anything else (negation, escapes, `-` alone, empty).
fn class(mut bytes: &[u8]) -> Option<(u128, &[u8])> {
    let mut set = 0u128;
    loop {
        match bytes {
            [b']', rest @ ..] if set != 0 => return Some((set, rest)),
            [low, b'-', high, rest @ ..]
                if low.is_ascii_alphanumeric() && high.is_ascii_alphanumeric() =>
            {
                if low > high {
                    return None;
                }
                set |= (*low..=*high).fold(0u128, |set, b| set | 1u128 << b);
                bytes = rest;
            }
            [b, rest @ ..] if b.is_ascii_alphanumeric() => {
                set |= 1u128 << b;
                bytes = rest;
            }
            _ => return None,
        }
    }
}

/// The count after an item (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, or none: once) and
/// what follows it. `None` for a lazy or possessive count, or one past [`MOST`].
fn count(bytes: &[u8]) -> Option<(u32, u32, &[u8])> {
    let (min, max, rest) = match bytes {
        [b'*', rest @ ..] => (0, u32::MAX, rest),
        [b'+', rest @ ..] => (1, u32::MAX, rest),
        [b'?', rest @ ..] => (0, 1, rest),
        [b'{', rest @ ..] => braces(rest)?,
        _ => return Some((1, 1, bytes)),
    };
    if matches!(rest.first(), Some(b'?' | b'+' | b'*' | b'{')) {
        return None;
    }
    Some((min, max, rest))
}

/// `n}`, `n,}` or `n,m}` (after the `{`).
fn braces(bytes: &[u8]) -> Option<(u32, u32, &[u8])> {
    let (min, rest) = number(bytes)?;
    let (max, rest) = match rest {
        [b'}', rest @ ..] => (min, rest),
        [b',', b'}', rest @ ..] => (u32::MAX, rest),
        [b',', rest @ ..] => match number(rest)? {
            (max, [b'}', rest @ ..]) if max >= min => (max, rest),
            _ => return None,
        },
        _ => return None,
    };
    Some((min, max, rest))
}

/// A decimal number up to [`MOST`], and what follows it.
fn number(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let (text, rest) = bytes.split_at(digits);
    let value = std::str::from_utf8(text).ok()?.parse::<u32>().ok()?;
    (value <= MOST).then_some((value, rest))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use regex::Regex;

    use super::{Anchored, Lanes, Step, ranges};

    /// Texts near `anchored`'s matches: each alternative's steps taken a count around
    /// their bounds, with bytes of their sets, now and then another byte.
    fn near(anchored: &Anchored, seed: u64, out: &mut Vec<String>) {
        let mut state = seed | 1;
        let mut next = move |bound: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % bound.max(1)
        };
        const OTHERS: &[char] = &['0', 'x', 'g', 'G', 'Z', '-', '\n', '\u{e9}', '\u{663}'];
        for steps in &anchored.alternatives {
            for _ in 0..64 {
                let mut text = String::new();
                for &Step { set, min, max, .. } in steps {
                    let high = u64::from(max.min(min.saturating_add(3))) + 1;
                    let low = u64::from(min.saturating_sub(1));
                    let times = low + next(high - low + 1);
                    let members: Vec<u8> = (0..128u8).filter(|b| set & 1 << b != 0).collect();
                    for _ in 0..times {
                        if next(40) == 0 {
                            text.push(OTHERS[next(OTHERS.len() as u64) as usize]);
                        } else {
                            text.push(char::from(members[next(members.len() as u64) as usize]));
                        }
                    }
                }
                out.push(text);
            }
        }
    }

    /// Checks `anchored` against the regular expression `regex` on texts near its
    /// matches and on `extra`.
    fn same_answers(regex: &str, anchored: &Anchored, seed: u64, extra: &[&str]) {
        let compiled = Regex::new(regex).expect("the regex compiles");
        let mut texts: Vec<String> = extra.iter().map(|t| (*t).to_owned()).collect();
        near(anchored, seed, &mut texts);
        for text in &texts {
            assert_eq!(
                anchored.is_match(text),
                compiled.is_match(text),
                "{regex} on {text:?}"
            );
        }
    }

    #[test]
    fn takes_the_simple_shapes_and_leaves_the_rest_to_regex() {
        for taken in [
            "^0x[0-9a-fA-F]{40}$",
            "^0x[0-9a-f]{0,64}$",
            "^0x[0-9a-f]*$",
            "^0x(0|[1-9a-f][0-9a-f]*)$",
            "^0x(?:0|[1-9a-f][0-9a-f]{0,15})$",
            "^0x1$",
            "^[A-Za-z0-9]{1,6}$",
            "^(0|[1-9][0-9]*)$",
            "^$",
        ] {
            assert!(Anchored::parse(taken).is_some(), "{taken}");
        }
        for left in [
            // Overlapping sets: greedy would not be exact.
            "^0x([1-9a-f]+[0-9a-f]*|0)$",
            "^[a]+[a-z]{2,}$",
            "^a*a$",
            // Outside the subset.
            "0x[0-9a-f]*$",
            "^0x[0-9a-f]*",
            "^[^a]$",
            "^a.b$",
            r"^[a-f\d]{64}$",
            "^[0-9a-f]*?$",
            "^(ab)*$",
            "^(?i)ab$",
            "^a{2000}$",
            "^[]a]$",
            "^a$$",
            "^vm execution error.*",
        ] {
            assert_eq!(Anchored::parse(left), None, "{left}");
        }
    }

    /// Long texts go through the chunked test of a step's ranges: every length around
    /// the chunk size and its multiples, all bytes of the set or one outside at each
    /// position, answer as the regex does (sets of few ranges and of many).
    #[test]
    fn answers_as_regex_on_long_texts() {
        for (regex, prefix, members) in [
            ("^0x[0-9a-fA-F]{40}$", "0x", "0123456789abcdefABCDEF"),
            ("^0x[0-9a-f]{0,64}$", "0x", "0123456789abcdef"),
            ("^[a-f0-9]*$", "", "abcdef0123456789"),
            ("^[a-z]{16}$", "", "abcdefghijklmnopqrstuvwxyz"),
            ("^[0-9]{17,33}x$", "", "0123456789"),
            ("^[acegikmoqsuwy]*z$", "", "acegikmoqsuwy"),
            ("^[A-Z]+[0-9]{20}$", "AB", "0123456789"),
        ] {
            let anchored = Anchored::parse(regex).expect("taken");
            let compiled = Regex::new(regex).expect("the regex compiles");
            let members = members.as_bytes();
            for len in 0..80 {
                let body: Vec<u8> = (0..len).map(|i| members[i % members.len()]).collect();
                let mut texts = vec![body.clone()];
                for at in 0..len {
                    for outside in [b'g', b'-', b'Z', b'x', b'z'] {
                        let mut text = body.clone();
                        text[at] = outside;
                        texts.push(text);
                    }
                }
                for text in texts {
                    let text = format!("{prefix}{}", String::from_utf8(text).expect("ASCII"));
                    assert_eq!(
                        anchored.is_match(&text),
                        compiled.is_match(&text),
                        "{regex} on {text:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn sets_of_few_ranges_are_tested_by_chunks() {
        let address = Anchored::parse("^0x[0-9a-fA-F]{40}$").expect("taken");
        let hex = &address.alternatives[0][2];
        let expected = [(b'0', 9), (b'A', 5), (b'a', 5), (b'a', 5)];
        assert_eq!(ranges(hex.set), Some(expected));
        assert_eq!(hex.lanes, Some(Lanes::new(expected)));
        let scattered = Anchored::parse("^[acegikmoqsuwy]*$").expect("taken");
        assert_eq!(scattered.alternatives[0][0].lanes, None);
    }

    #[test]
    fn answers_as_regex_on_the_corpus_patterns() {
        let Some(corpus) = rpcsmith_corpus::dir() else {
            return;
        };
        let mut patterns = Vec::new();
        collect_patterns(&corpus, &mut patterns);
        patterns.sort();
        patterns.dedup();
        let mut taken = 0;
        for (seed, pattern) in patterns.iter().enumerate() {
            if Regex::new(pattern).is_err() {
                continue;
            }
            if let Some(anchored) = Anchored::parse(pattern) {
                taken += 1;
                same_answers(pattern, &anchored, seed as u64 + 7, &["", "0x", "0x0"]);
            }
        }
        assert!(
            taken >= 10,
            "only {taken} of {} corpus patterns taken",
            patterns.len()
        );
    }

    fn collect_patterns(path: &std::path::Path, out: &mut Vec<String>) {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).expect("the corpus reads");
            for entry in entries.flatten() {
                collect_patterns(&entry.path(), out);
            }
        } else if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(path).expect("a corpus file reads");
            if let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) {
                walk(&json, out);
            }
        }
    }

    fn walk(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(members) => {
                if let Some(serde_json::Value::String(p)) = members.get("pattern") {
                    out.push(p.clone());
                }
                members.values().for_each(|v| walk(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }

    /// An item of a generated pattern: a literal or class, then a count.
    fn item() -> impl Strategy<Value = String> {
        let atom = prop::sample::select(vec![
            "0",
            "x",
            "a",
            "[0-9]",
            "[a-f]",
            "[0-9a-f]",
            "[1-9a-f]",
            "[A-Fa-f0-9]",
            "[xy]",
        ]);
        let count = prop::sample::select(vec![
            "", "*", "+", "?", "{2}", "{0,3}", "{1,}", "{2,4}", "{0}",
        ]);
        (atom, count).prop_map(|(a, c)| format!("{a}{c}"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any pattern of the subset the matcher takes answers as the regex does, on
        /// texts near its matches and on arbitrary short texts.
        #[test]
        fn answers_as_regex_on_generated_patterns(
            prefix in prop::collection::vec(item(), 0..4),
            branches in prop::collection::vec(prop::collection::vec(item(), 0..3), 0..3),
            seed in any::<u64>(),
            texts in prop::collection::vec("[0-9a-gxyA-F\u{e9}]{0,8}", 8),
        ) {
            let mut regex = format!("^{}", prefix.concat());
            if !branches.is_empty() {
                let alternatives: Vec<String> = branches.iter().map(|b| b.concat()).collect();
                regex.push_str(&format!("({})", alternatives.join("|")));
            }
            regex.push('$');
            if let Some(anchored) = Anchored::parse(&regex) {
                let extra: Vec<&str> = texts.iter().map(String::as_str).collect();
                same_answers(&regex, &anchored, seed, &extra);
            }
        }
    }
}
