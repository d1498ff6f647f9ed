//! "Did you mean": the nearest of the names a document has to one it does not, for the
//! diagnostics of a builder option or CLI flag that names something (a method) by hand.
//! The edit distance is `strsim`'s (already in every CLI user's build through clap).

/// The name among `names` nearest to `wanted` by edit distance, when it is near enough
/// to be a misspelling: at most a third of `wanted`'s length away (and at least one
/// edit). Of several as near, the first.
pub(crate) fn nearest<'a>(
    wanted: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = (wanted.chars().count() / 3).max(1);
    names
        .into_iter()
        .map(|name| (strsim::levenshtein(wanted, name), name))
        .filter(|&(distance, _)| distance <= limit)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, name)| name)
}

/// The JSON pointer among `pointers` nearest to `wanted`: one of the same parent whose
/// last segment is [`nearest`] to `wanted`'s (`/components/schemas/Mony` finds
/// `/components/schemas/Money`; another parent is never a misspelling).
pub(crate) fn nearest_pointer<'a>(
    wanted: &str,
    pointers: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let (parent, last) = wanted.rsplit_once('/')?;
    let siblings: Vec<(&'a str, &'a str)> = pointers
        .into_iter()
        .filter_map(|p| {
            p.rsplit_once('/')
                .filter(|(up, _)| *up == parent)
                .map(|(_, l)| (p, l))
        })
        .collect();
    let near = nearest(last, siblings.iter().map(|&(_, l)| l))?;
    siblings.iter().find(|&&(_, l)| l == near).map(|&(p, _)| p)
}

#[cfg(test)]
mod tests {
    use super::{nearest, nearest_pointer};

    #[test]
    fn a_misspelt_pointer_finds_its_sibling() {
        let pointers = [
            "#/components/schemas/Money",
            "#/components/schemas/Pet",
            "#/x/Mony",
        ];
        assert_eq!(
            nearest_pointer("#/components/schemas/Mony", pointers),
            Some("#/components/schemas/Money")
        );
        assert_eq!(nearest_pointer("#/components/schemas/Nope", pointers), None);
        assert_eq!(nearest_pointer("#/other/Money", pointers), None);
    }

    #[test]
    fn a_misspelling_finds_its_name_and_a_stranger_finds_none() {
        let names = ["eth_subscribe", "eth_unsubscribe", "eth_chainId"];
        assert_eq!(nearest("eth_subscibe", names), Some("eth_subscribe"));
        assert_eq!(nearest("eth_Subscribe", names), Some("eth_subscribe"));
        assert_eq!(nearest("nothing", names), None);
        assert_eq!(nearest("x", ["y"]), Some("y"));
        assert_eq!(nearest("x", ["yz"]), None);
    }
}
