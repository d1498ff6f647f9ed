//! Which way each method goes: from the client to the server (the default), from the
//! server to the client, or either way, as the patterns of [`Settings::server_to_client`]
//! and [`Settings::both_ways`] say.
//!
//! [`Settings::server_to_client`]: crate::Settings::server_to_client
//! [`Settings::both_ways`]: crate::Settings::both_ways

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The client calls, the server handles: `<Doc>Client` and `<Doc>Server`.
    ClientToServer,
    /// The server calls, the client handles: `<Doc>Push` and `<Doc>Listener`.
    ServerToClient,
    /// Either side calls and handles (MCP's `ping`, progress and cancellation): all four.
    Both,
}

impl Direction {
    /// Whether a method going this way has items on the side of `side` (one of the two
    /// single directions).
    pub(crate) fn goes(self, side: Direction) -> bool {
        self == Direction::Both || self == side
    }
}

/// The direction of each of `names`, in order (a name matched by `both` goes both ways,
/// else one matched by `reverse` from the server to the client), and the patterns of
/// either list that matched none of them.
pub(crate) fn directions<'p>(
    reverse: &'p [String],
    both: &'p [String],
    names: &[&str],
) -> (Vec<Direction>, Vec<&'p str>) {
    let any = |patterns: &[String], name: &str| patterns.iter().any(|p| matches(p, name));
    let directions = names
        .iter()
        .map(|name| {
            if any(both, name) {
                Direction::Both
            } else if any(reverse, name) {
                Direction::ServerToClient
            } else {
                Direction::ClientToServer
            }
        })
        .collect();
    let unmatched = reverse
        .iter()
        .chain(both)
        .filter(|p| !names.iter().any(|name| matches(p, name)))
        .map(String::as_str)
        .collect();
    (directions, unmatched)
}

/// Whether `name` matches `pattern`, in which `*` matches any run of characters (none
/// too) and every other character itself.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let (pattern, name) = (pattern.as_bytes(), name.as_bytes());
    // The classic greedy match: on a mismatch, let the last `*` take one more byte.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    star = Some((star_p, star_n + 1));
                    p = star_p + 1;
                    n = star_n + 1;
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_matches_any_run() {
        let cases = [
            ("*", "", true),
            ("*", "anything", true),
            (
                "starknet_subscription*",
                "starknet_subscriptionNewHeads",
                true,
            ),
            (
                "starknet_subscription*",
                "starknet_subscribeNewHeads",
                false,
            ),
            ("starknet_subscription*", "starknet_subscription", true),
            ("wallet_notify", "wallet_notify", true),
            ("wallet_notify", "wallet_notifyX", false),
            ("*Changed", "wallet_sessionChanged", true),
            ("*Changed", "wallet_sessionChangedNot", false),
            ("a*b*c", "a_x_b_y_c", true),
            ("a*b*c", "a_x_c_y_b", false),
            ("a**", "a", true),
            ("$/*", "$/progress", true),
            ("", "", true),
            ("", "a", false),
            ("é*", "éclair", true),
        ];
        for (pattern, name, expected) in cases {
            assert_eq!(matches(pattern, name), expected, "{pattern:?} {name:?}");
        }
    }

    #[test]
    fn directions_and_unmatched_patterns() {
        let patterns = vec!["*Changed".to_owned(), "nothing*".to_owned()];
        let (directions, unmatched) =
            directions(&patterns, &[], &["wallet_notify", "wallet_sessionChanged"]);
        assert_eq!(
            directions,
            [Direction::ClientToServer, Direction::ServerToClient]
        );
        assert_eq!(unmatched, ["nothing*"]);
    }

    #[test]
    fn both_ways_wins_over_server_to_client_and_counts_as_either_side() {
        let reverse = vec!["notifications/*".to_owned()];
        let both = vec![
            "ping".to_owned(),
            "notifications/progress".to_owned(),
            "none".to_owned(),
        ];
        let names = [
            "ping",
            "notifications/progress",
            "notifications/message",
            "tools/call",
        ];
        let (directions, unmatched) = directions(&reverse, &both, &names);
        assert_eq!(
            directions,
            [
                Direction::Both,
                Direction::Both,
                Direction::ServerToClient,
                Direction::ClientToServer
            ]
        );
        assert_eq!(unmatched, ["none"]);
        assert!(Direction::Both.goes(Direction::ClientToServer));
        assert!(Direction::Both.goes(Direction::ServerToClient));
        assert!(!Direction::ServerToClient.goes(Direction::ClientToServer));
    }
}
