//! Which way each method goes: from the client to the server (the default), or from the
//! server to the client, as the patterns of [`Settings::server_to_client`] say.
//!
//! [`Settings::server_to_client`]: crate::Settings::server_to_client

/// Who sends a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The client calls, the server handles: `<Doc>Client` and `<Doc>Server`.
    ClientToServer,
    /// The server calls, the client handles: `<Doc>Push` and `<Doc>Listener`.
    ServerToClient,
}

/// The direction of each of `names`, in order, and the patterns that matched none of them.
pub(crate) fn directions<'p>(
    patterns: &'p [String],
    names: &[&str],
) -> (Vec<Direction>, Vec<&'p str>) {
    let directions = names
        .iter()
        .map(|name| {
            if patterns.iter().any(|p| matches(p, name)) {
                Direction::ServerToClient
            } else {
                Direction::ClientToServer
            }
        })
        .collect();
    let unmatched = patterns
        .iter()
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
            directions(&patterns, &["wallet_notify", "wallet_sessionChanged"]);
        assert_eq!(
            directions,
            [Direction::ClientToServer, Direction::ServerToClient]
        );
        assert_eq!(unmatched, ["nothing*"]);
    }
}
