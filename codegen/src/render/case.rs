//! A struct's field renames written once: when most of its members are spelled by one of
//! serde's `rename_all` rules from their Rust names (`camelCase` `parent_hash` →
//! `parentHash`), the struct says so in one attribute and only the other fields keep a
//! `rename` of their own (fewer attributes for serde to parse). The rules are applied
//! exactly as serde applies them to a field (serde_derive's `RenameRule::apply_to_field`).

/// A `rename_all` rule generated code may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    Camel,
    Pascal,
    Kebab,
}

impl Case {
    /// The rule's name in `#[serde(rename_all = ..)]`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Case::Camel => "camelCase",
            Case::Pascal => "PascalCase",
            Case::Kebab => "kebab-case",
        }
    }

    /// The member name serde gives a field named `field` (without `r#`) under this rule.
    pub(crate) fn apply(self, field: &str) -> String {
        match self {
            Case::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Case::Camel => {
                let pascal = Case::Pascal.apply(field);
                let mut chars = pascal.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            Case::Kebab => field.replace('_', "-"),
        }
    }
}

/// The member name serde gives the field `rust` (a Rust field name, maybe `r#`-escaped)
/// under `rule`, or as it is without one.
pub(crate) fn serde_spelling(rust: &str, rule: Option<Case>) -> String {
    let bare = rust.trim_start_matches("r#");
    rule.map_or_else(|| bare.to_owned(), |r| r.apply(bare))
}

/// The rule that spares a struct's fields the most `rename`s, if one spares at least two
/// (the struct's own attribute costs about one): `fields` are each field's Rust name, as
/// the view claimed it, and its wire name.
pub(crate) fn rule_for(fields: &[(String, &str)]) -> Option<Case> {
    let renames = |rule: Option<Case>| {
        fields
            .iter()
            .filter(|(rust, wire)| serde_spelling(rust, rule) != *wire)
            .count()
    };
    let plain = renames(None);
    [Case::Camel, Case::Pascal, Case::Kebab]
        .into_iter()
        .map(|rule| (plain.saturating_sub(renames(Some(rule))), rule))
        .filter(|(spared, _)| *spared >= 2)
        .max_by_key(|(spared, rule)| (*spared, std::cmp::Reverse(*rule as u8)))
        .map(|(_, rule)| rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_spell_as_serde_does() {
        assert_eq!(Case::Camel.apply("parent_hash"), "parentHash");
        assert_eq!(Case::Camel.apply("sha3_uncles"), "sha3Uncles");
        assert_eq!(Case::Pascal.apply("include_messages"), "IncludeMessages");
        assert_eq!(Case::Pascal.apply("self_"), "Self");
        assert_eq!(Case::Kebab.apply("max_age"), "max-age");
        assert_eq!(serde_spelling("r#type", Some(Case::Pascal)), "Type");
        assert_eq!(serde_spelling("r#type", None), "type");
    }
}
