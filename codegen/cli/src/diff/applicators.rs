//! Comparing the keywords that apply other schemas to the same value or its parts:
//! `multipleOf`, `not`, `if`/`then`/`else`, `patternProperties` and tuple `items`.

use super::finding::Kind;
use super::regular::{self, Inclusion};
use super::schema::{Change, Places, Walk};
use crate::shape::{Additional, Shape};

impl Walk<'_, '_> {
    /// `multipleOf` a → b: narrowed when b is a multiple of a, widened when a is one of b.
    pub(super) fn multiple_of(&mut self, o: &Shape, n: &Shape, path: &str) {
        let places = (o.place("multipleOf"), n.place("multipleOf"));
        let change = match (o.multiple_of, n.multiple_of) {
            (None, None) => return,
            (Some(a), Some(b)) if a == b => return,
            (None, Some(_)) => Change::Narrowed,
            (Some(_), None) => Change::Widened,
            (Some(a), Some(b)) if whole(b / a) => Change::Narrowed,
            (Some(a), Some(b)) if whole(a / b) => Change::Widened,
            _ => Change::Changed,
        };
        let show = |m: Option<f64>| m.map_or("(none)".to_owned(), |m| m.to_string());
        let message = format!(
            "multipleOf {} → {}",
            show(o.multiple_of),
            show(n.multiple_of)
        );
        self.change(Kind::FormatChanged, change, message, places, path);
    }

    /// `not`, `if`/`then`/`else`, `patternProperties`, tuple `items`.
    pub(super) fn applicators(&mut self, o: &Shape, n: &Shape, path: &str) {
        self.not(o, n, path);
        self.conditional(o, n, path);
        self.pattern_properties(o, n, path);
        self.tuple(o, n, path);
    }

    /// `not`: what it refuses; a wider `not` lets fewer values through.
    fn not(&mut self, o: &Shape, n: &Shape, path: &str) {
        let places = (o.place("not"), n.place("not"));
        match (&o.not, &n.not) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                let (a, b) = (a.clone(), b.clone());
                self.negated = !self.negated;
                self.schema(&a, &b, &format!("{path}!not"));
                self.negated = !self.negated;
            }
            (None, Some(_)) => {
                let message = "`not` added: values it matches are refused".to_owned();
                self.change(
                    Kind::ApplicatorChanged,
                    Change::Narrowed,
                    message,
                    places,
                    path,
                );
            }
            (Some(_), None) => {
                let message = "`not` removed: values it matched are allowed".to_owned();
                self.change(
                    Kind::ApplicatorChanged,
                    Change::Widened,
                    message,
                    places,
                    path,
                );
            }
        }
    }

    /// `if`/`then`/`else`: with the same `if`, `then` and `else` are compared as schemas;
    /// a condition added narrows, removed widens, changed is of unknown direction.
    fn conditional(&mut self, o: &Shape, n: &Shape, path: &str) {
        let [oi, ot, oe] = o.conditional.clone();
        let [ni, nt, ne] = n.conditional.clone();
        let places = (o.place("if"), n.place("if"));
        match (&oi, &ni) {
            (None, None) => return,
            (None, Some(_)) => return self.presence("`if`/`then`/`else`", true, places, path),
            (Some(_), None) => return self.presence("`if`/`then`/`else`", false, places, path),
            (Some(a), Some(b)) => {
                let (va, vb) = (self.diff.old.get(a).cloned(), self.diff.new.get(b).cloned());
                if va != vb {
                    let message = "`if` condition changed".to_owned();
                    return self.undecided(message, places, path);
                }
            }
        }
        for (keyword, a, b) in [("then", ot, nt), ("else", oe, ne)] {
            let places = (o.place(keyword), n.place(keyword));
            match (a, b) {
                (Some(a), Some(b)) => self.schema(&a, &b, &format!("{path}!{keyword}")),
                (None, Some(_)) => self.presence(&format!("`{keyword}`"), true, places, path),
                (Some(_), None) => self.presence(&format!("`{keyword}`"), false, places, path),
                (None, None) => {}
            }
        }
    }

    /// An applicator `what` added (it constrains: narrowed) or removed (widened).
    fn presence(&mut self, what: &str, added: bool, places: Places, path: &str) {
        let (change, word) = match added {
            true => (Change::Narrowed, "added"),
            false => (Change::Widened, "removed"),
        };
        let message = format!("{what} {word}");
        self.change(Kind::ApplicatorChanged, change, message, places, path);
    }

    /// `patternProperties`: the same pattern's schemas compared; a pattern added
    /// constrains the members it matches (narrowed) unless other members were refused
    /// (then it lets them in: widened), and the reverse for one removed.
    fn pattern_properties(&mut self, o: &Shape, n: &Shape, path: &str) {
        for (pattern, a) in &o.pattern_properties {
            let member = format!("{path}.<{pattern}>");
            match n.pattern_properties.get(pattern) {
                Some(b) => self.schema(a, b, &member),
                None => {
                    let renamed = n
                        .pattern_properties
                        .iter()
                        .filter(|(p, _)| !o.pattern_properties.contains_key(*p))
                        .find(|(p, _)| regular::compare(pattern, p) == Ok(Inclusion::Same));
                    if let Some((_, b)) = renamed {
                        self.schema(a, b, &member);
                        continue;
                    }
                    let change = match n.additional {
                        Additional::Forbidden => Change::Narrowed,
                        _ => Change::Widened,
                    };
                    let message = format!("member pattern `{pattern}` removed");
                    let places = (a.clone(), n.place("patternProperties"));
                    self.change(Kind::ApplicatorChanged, change, message, places, &member);
                }
            }
        }
        for (pattern, b) in &n.pattern_properties {
            let same =
                |p: &String| p == pattern || regular::compare(p, pattern) == Ok(Inclusion::Same);
            if o.pattern_properties.keys().any(same) {
                continue;
            }
            let change = match o.additional {
                Additional::Forbidden => Change::Widened,
                _ => Change::Narrowed,
            };
            let message = format!("member pattern `{pattern}` added");
            let places = (o.place("patternProperties"), b.clone());
            self.change(
                Kind::ApplicatorChanged,
                change,
                message,
                places,
                &format!("{path}.<{pattern}>"),
            );
        }
    }

    /// Tuple `items`: each position's schemas compared; a position added constrains it
    /// (narrowed), one removed frees it (widened).
    fn tuple(&mut self, o: &Shape, n: &Shape, path: &str) {
        let (Some(a), Some(b)) = (&o.tuple, &n.tuple) else {
            return;
        };
        for (i, (a, b)) in a.iter().zip(b).enumerate() {
            self.schema(a, b, &format!("{path}[{i}]"));
        }
        let places = (o.place("items"), n.place("items"));
        let (was, is) = (a.len(), b.len());
        if was != is {
            let change = if is > was {
                Change::Narrowed
            } else {
                Change::Widened
            };
            let message = format!("tuple items: {was} positions → {is}");
            self.change(Kind::TupleChanged, change, message, places, path);
        }
    }
}

/// Whether `x` is a whole number (within rounding).
fn whole(x: f64) -> bool {
    x.is_finite() && (x - x.round()).abs() < 1e-9
}
