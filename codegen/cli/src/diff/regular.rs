//! Whether one `pattern` lets through all the strings another does: both are read as
//! regular languages (an NFA each, built from `regex-syntax`'s parse of the pattern as
//! [`rpcsmith_build::pattern::translate`] gives it) and walked together, state sets against state
//! sets, looking for a string the first accepts and the second refuses.
//!
//! JSON Schema's `pattern` is a search: a pattern not anchored by `^` matches anywhere,
//! so it is read with any text before it, and any after it. `$` anywhere (`^0x(0|[1-9]$)`
//! ends only its own branch) is a move into an "at the end" mode in which no character
//! may follow. A `^` other than at the start of the pattern (or of each of its top-level
//! branches), lookarounds and backreferences are outside what is decided, and so are
//! patterns whose automata grow past [`MAX_STATES`]: the direction is then unknown.
//!
//! Written here rather than taken from a crate: the automata crates at hand
//! (`regex-automata`) build DFAs to match, not to compare two languages; the product
//! walk is the ~150 lines below.

use std::collections::{BTreeSet, HashSet, VecDeque};

use regex_syntax::hir::{Class, Hir, HirKind, Look, Repetition};

/// The most NFA states built for one pattern (a `{1,64}` of a class is 65).
const MAX_STATES: usize = 20_000;
/// The most pairs of state sets visited in one comparison.
const MAX_PAIRS: usize = 100_000;

/// How the strings two patterns allow compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inclusion {
    /// The same strings.
    Same,
    /// The new pattern allows fewer (all of them allowed before).
    Narrower,
    /// The new pattern allows more (all the old ones too).
    Wider,
    /// Each allows some string the other refuses.
    Neither,
}

/// How `new` compares with `old`; `Err` says why it cannot be decided.
pub(crate) fn compare(old: &str, new: &str) -> Result<Inclusion, String> {
    let (a, b) = (Nfa::new(old)?, Nfa::new(new)?);
    let old_in_new = includes(&a, &b)?;
    let new_in_old = includes(&b, &a)?;
    Ok(match (old_in_new, new_in_old) {
        (true, true) => Inclusion::Same,
        (true, false) => Inclusion::Wider,
        (false, true) => Inclusion::Narrower,
        (false, false) => Inclusion::Neither,
    })
}

/// A transition: on any character in the ranges, on none (ε), or on none while
/// entering the "at the end" mode (`$`).
enum Edge {
    On(Vec<(u32, u32)>, usize),
    Free(usize),
    End(usize),
}

/// A state of the automaton, and whether the end of the text was asserted on the way to
/// it (no character may then be read).
type At = (usize, bool);

/// A Thompson NFA with one start and one accepting state.
struct Nfa {
    edges: Vec<Vec<Edge>>,
    start: usize,
    accept: usize,
}

impl Nfa {
    fn new(pattern: &str) -> Result<Nfa, String> {
        let translated = rpcsmith_build::pattern::translate(pattern)?;
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(&translated)
            .map_err(|e| e.to_string())?;
        let branches: Vec<Hir> = match hir.kind() {
            HirKind::Alternation(branches) => branches.clone(),
            _ => vec![hir.clone()],
        };
        let anchored = |h: &Hir| match h.kind() {
            HirKind::Concat(parts) => {
                matches!(
                    parts.first().map(Hir::kind),
                    Some(HirKind::Look(Look::Start))
                )
            }
            HirKind::Look(Look::Start) => true,
            _ => false,
        };
        let starts = branches.iter().all(anchored);
        let mut nfa = Nfa {
            edges: Vec::new(),
            start: 0,
            accept: 0,
        };
        let start = nfa.state()?;
        let from = match starts {
            true => start,
            false => nfa.any_run(start)?,
        };
        let end = nfa.state()?;
        for branch in &branches {
            let parts: Vec<Hir> = match branch.kind() {
                HirKind::Concat(parts) => parts.clone(),
                _ => vec![branch.clone()],
            };
            let mut at = from;
            for part in &parts[usize::from(starts)..] {
                at = nfa.build(part, at)?;
            }
            nfa.edges[at].push(Edge::Free(end));
        }
        nfa.start = start;
        nfa.accept = nfa.any_run(end)?;
        Ok(nfa)
    }

    fn state(&mut self) -> Result<usize, String> {
        if self.edges.len() >= MAX_STATES {
            return Err(format!("more than {MAX_STATES} automaton states"));
        }
        self.edges.push(Vec::new());
        Ok(self.edges.len() - 1)
    }

    /// Any text (`[\s\S]*`) after `from`; the state it ends in.
    fn any_run(&mut self, from: usize) -> Result<usize, String> {
        let end = self.state()?;
        self.edges[from].push(Edge::Free(end));
        self.edges[end].push(Edge::On(vec![(0, char::MAX as u32)], end));
        Ok(end)
    }

    /// Adds `hir` after state `from`; the state it ends in.
    fn build(&mut self, hir: &Hir, from: usize) -> Result<usize, String> {
        match hir.kind() {
            HirKind::Empty => Ok(from),
            HirKind::Literal(literal) => {
                let text = std::str::from_utf8(&literal.0).map_err(|e| e.to_string())?;
                let mut at = from;
                for c in text.chars() {
                    let next = self.state()?;
                    self.edges[at].push(Edge::On(vec![(c as u32, c as u32)], next));
                    at = next;
                }
                Ok(at)
            }
            HirKind::Class(class) => {
                let ranges = match class {
                    Class::Unicode(c) => c
                        .iter()
                        .map(|r| (r.start() as u32, r.end() as u32))
                        .collect(),
                    Class::Bytes(c) => c
                        .iter()
                        .map(|r| (u32::from(r.start()), u32::from(r.end())))
                        .collect(),
                };
                let next = self.state()?;
                self.edges[from].push(Edge::On(ranges, next));
                Ok(next)
            }
            HirKind::Look(Look::End) => {
                let next = self.state()?;
                self.edges[from].push(Edge::End(next));
                Ok(next)
            }
            HirKind::Look(_) => Err("a `^` or a word boundary inside the pattern".to_owned()),
            HirKind::Capture(capture) => self.build(&capture.sub, from),
            HirKind::Concat(parts) => parts.iter().try_fold(from, |at, part| self.build(part, at)),
            HirKind::Alternation(branches) => {
                let end = self.state()?;
                for branch in branches {
                    let last = self.build(branch, from)?;
                    self.edges[last].push(Edge::Free(end));
                }
                Ok(end)
            }
            HirKind::Repetition(repetition) => self.repeat(repetition, from),
        }
    }

    /// Adds `repetition` (`x{min,max}`, `x*`) after state `from`: `min` copies, then
    /// each optional one (or a loop, unbounded); the state it ends in.
    fn repeat(&mut self, repetition: &Repetition, from: usize) -> Result<usize, String> {
        let mut at = from;
        for _ in 0..repetition.min {
            at = self.build(&repetition.sub, at)?;
        }
        match repetition.max {
            None => {
                let end = self.build(&repetition.sub, at)?;
                self.edges[end].push(Edge::Free(at));
                self.edges[at].push(Edge::Free(end));
                let out = self.state()?;
                self.edges[end].push(Edge::Free(out));
                Ok(out)
            }
            Some(max) => {
                let out = self.state()?;
                for _ in repetition.min..max {
                    self.edges[at].push(Edge::Free(out));
                    at = self.build(&repetition.sub, at)?;
                }
                self.edges[at].push(Edge::Free(out));
                Ok(out)
            }
        }
    }

    /// The states reachable from `states` by ε moves.
    fn closure(&self, states: impl IntoIterator<Item = At>) -> BTreeSet<At> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<At> = states.into_iter().collect();
        while let Some((s, ended)) = stack.pop() {
            if !seen.insert((s, ended)) {
                continue;
            }
            for edge in &self.edges[s] {
                match edge {
                    Edge::Free(t) => stack.push((*t, ended)),
                    Edge::End(t) => stack.push((*t, true)),
                    Edge::On(..) => {}
                }
            }
        }
        seen
    }

    /// The states after reading `c` from `states` (none from those past the end).
    fn step(&self, states: &BTreeSet<At>, c: u32) -> BTreeSet<At> {
        let next = states
            .iter()
            .filter(|(_, ended)| !ended)
            .flat_map(|&(s, _)| &self.edges[s])
            .filter_map(|edge| match edge {
                Edge::On(ranges, t) if ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) => {
                    Some((*t, false))
                }
                _ => None,
            });
        self.closure(next)
    }

    /// Whether the text read so far is accepted.
    fn accepts(&self, states: &BTreeSet<At>) -> bool {
        states.iter().any(|&(s, _)| s == self.accept)
    }

    /// Every range start and every end + 1: characters between two of them behave alike.
    fn cuts(&self, out: &mut BTreeSet<u32>) {
        for edge in self.edges.iter().flatten() {
            if let Edge::On(ranges, _) = edge {
                for &(lo, hi) in ranges {
                    out.insert(lo);
                    out.insert(hi.saturating_add(1));
                }
            }
        }
    }
}

/// Whether every string `a` accepts, `b` accepts too.
fn includes(a: &Nfa, b: &Nfa) -> Result<bool, String> {
    let mut cuts = BTreeSet::new();
    a.cuts(&mut cuts);
    b.cuts(&mut cuts);
    let start = (a.closure([(a.start, false)]), b.closure([(b.start, false)]));
    let mut seen: HashSet<(BTreeSet<At>, BTreeSet<At>)> = HashSet::new();
    let mut queue = VecDeque::from([start]);
    while let Some((sa, sb)) = queue.pop_front() {
        if a.accepts(&sa) && !b.accepts(&sb) {
            return Ok(false);
        }
        if !seen.insert((sa.clone(), sb.clone())) {
            continue;
        }
        if seen.len() > MAX_PAIRS {
            return Err(format!("more than {MAX_PAIRS} states compared"));
        }
        for &c in &cuts {
            let na = a.step(&sa, c);
            if na.is_empty() {
                continue;
            }
            queue.push_back((na, b.step(&sb, c)));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::{Inclusion, compare};

    #[test]
    fn widened_hex_length_is_wider_and_the_reverse_narrower() {
        let (old, new) = ("^0x[a-fA-F0-9]{1,63}$", "^0x[a-fA-F0-9]{1,64}$");
        assert_eq!(compare(old, new), Ok(Inclusion::Wider));
        assert_eq!(compare(new, old), Ok(Inclusion::Narrower));
        assert_eq!(compare(old, old), Ok(Inclusion::Same));
    }

    #[test]
    fn classes_alternatives_and_search_semantics() {
        assert_eq!(compare("^[0-9]+$", "^[0-9a-f]+$"), Ok(Inclusion::Wider));
        assert_eq!(
            compare("^[0-9]+\\.[0-9]+$", "^[0-9]+\\.[0-9]+(\\.[0-9]+)?$"),
            Ok(Inclusion::Wider)
        );
        assert_eq!(compare("^a$", "^b$"), Ok(Inclusion::Neither));
        // Not anchored: `abc` anywhere; `^abc` is a part of those.
        assert_eq!(compare("abc", "^abc"), Ok(Inclusion::Narrower));
        assert_eq!(
            compare("^(0x)?[0-9]{2}$", "^0x[0-9]{2}$|^[0-9]{2}$"),
            Ok(Inclusion::Same)
        );
        // Starknet v0.10.0's STORAGE_KEY: the `$` ends the second branch only, so
        // `0x0` may be followed by anything; FELT allows `0xa…`, STORAGE_KEY does not.
        let felt = "^0x(0|[a-fA-F1-9]{1}[a-fA-F0-9]{0,62})$";
        let storage_key = "^0x(0|[0-7]{1}[a-fA-F0-9]{0,62}$)";
        assert_eq!(compare(felt, storage_key), Ok(Inclusion::Neither));
        let tidy = "^0x(0|[1-7]{1}[a-fA-F0-9]{0,62})$";
        assert_eq!(compare(felt, tidy), Ok(Inclusion::Narrower));
        assert_eq!(compare("^\\d{3}$", "^[0-9]{3}$"), Ok(Inclusion::Same));
    }

    #[test]
    fn what_is_not_decided_says_why() {
        assert!(compare("^(?=a)a$", "^a$").is_err());
        assert!(compare("^a\\bb$", "^ab$").is_err());
        assert!(compare("a|^b", "^b").is_err());
    }
}
