//! Names from where a schema sits: `#/components/schemas/BLOCK_HEADER` → `BlockHeader`,
//! the result of method `eth_getBlockByHash` → `EthGetBlockByHashResult`, property
//! `parentHash` of `BlockHeader` → `BlockHeaderParentHash`.

use std::borrow::Cow;

use serde_json::Value;

use crate::naming::{title_is_identifier, type_name};
use crate::pointer;
use crate::resolve::{FileId, Location, Resolver};

/// Rank of a name taken from a component key (best).
const RANK_COMPONENT: u8 = 0;
/// Rank of a name taken from a `title`.
const RANK_TITLE: u8 = 1;
/// Rank of a name taken from the schema's place.
pub(super) const RANK_PLACE: u8 = 2;
/// Rank of a place name qualified by whose it is (a file, a component holding
/// `definitions`): taken only where the plain name is another's.
pub(super) const RANK_QUALIFIED: u8 = 3;
/// Rank of a place name that only numbers a variant or names its JSON type (last resort).
const RANK_VARIANT: u8 = 4;

/// Whether the schema at `at` is a named component (`components/schemas/X`,
/// `components/contentDescriptors/X/schema`, `definitions/X`, `$defs/X`).
pub(super) fn is_component(at: &Location) -> bool {
    let Some(tokens) = pointer::tokens(&at.pointer) else {
        return false;
    };
    match tokens.as_slice() {
        [.., c, s, _] if c == "components" && s == "schemas" => true,
        [.., c, s, _, last]
            if c == "components" && s == "contentDescriptors" && last == "schema" =>
        {
            true
        }
        [.., d, _] if d == "definitions" || d == "$defs" => true,
        _ => false,
    }
}

/// Whether the schema at `at` is a content descriptor's (`components/contentDescriptors/
/// X/schema`): its name is a param's, so a `$ref` there needs no alias of its own.
pub(super) fn is_descriptor_schema(at: &Location) -> bool {
    pointer::tokens(&at.pointer).is_some_and(|tokens| {
        matches!(tokens.as_slice(), [.., c, s, _, last]
            if c == "components" && s == "contentDescriptors" && last == "schema")
    })
}

/// Name candidates for the schema at `at`, best first, as `(rank, name)`.
pub(super) fn candidates(
    resolver: &Resolver,
    root: FileId,
    at: &Location,
    schema: &Value,
) -> Vec<(u8, String)> {
    let mut out = Vec::with_capacity(2);
    if let Some(parent) = at
        .parent()
        .filter(|p| at.pointer.ends_with("/type") && is_component(p))
    {
        let (place, _) = place_name(resolver, &parent);
        out.push((RANK_COMPONENT, place));
    }
    let (place, numbered) = place_name(resolver, at);
    if is_component(at) {
        out.push((RANK_COMPONENT, place.clone()));
    }
    let qualified = |by: String| {
        let name = type_name(&format!("{by} {place}"), "T", "Type");
        (RANK_QUALIFIED, name)
    };
    if let Some(owner) = definitions_owner(at) {
        // Inside a definition inside a component (schemars' `definitions`): when its name
        // is taken, the component's key says whose it is.
        out.push(qualified(owner));
    }
    let foreign = at.file != root && at.pointer.starts_with("/components/");
    if let Some(file) = file_word(resolver, at).filter(|_| foreign) {
        // Two files of a document may each have a component of one key (Canton's
        // `Wallet`): the file's name says which one a type is.
        out.push(qualified(file));
    }
    let title = schema.get("title").and_then(Value::as_str);
    if let Some(title) = title.filter(|t| title_is_identifier(t)) {
        out.push((RANK_TITLE, type_name(title, "T", "Type")));
    }
    let union = ["oneOf", "anyOf"]
        .into_iter()
        .find(|k| schema.get(*k).is_some());
    if let (Some(union), Some(base)) = (union, place.strip_suffix("Kind")) {
        // A union that is one member of an `allOf` (Starknet's `EVENT`): `EventKind`,
        // else, where a component has that name, `EventOneOf`.
        if is_all_of_member(at) {
            out.push((
                RANK_VARIANT,
                type_name(&format!("{base} {union}"), "T", "Type"),
            ));
        }
    }
    out.push((if numbered { RANK_VARIANT } else { RANK_PLACE }, place));
    out
}

/// Whether `at` is a member of an `allOf` (`…/allOf/1`).
fn is_all_of_member(at: &Location) -> bool {
    let mut parts = at.pointer.rsplit('/');
    let index = parts.next().is_some_and(|n| n.parse::<usize>().is_ok());
    index && parts.next() == Some("allOf")
}

/// The name of the file `at` is in, without its extension and an `openrpc` word
/// (`openrpc-user-api.json` → `user api`).
fn file_word(resolver: &Resolver, at: &Location) -> Option<String> {
    let stem = resolver.display_path(at.file).file_stem()?.to_str()?;
    let words: Vec<&str> = stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("openrpc"))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// The key of the component whose `definitions`/`$defs` `at` sits in, if it does.
fn definitions_owner(at: &Location) -> Option<String> {
    let tokens = pointer::tokens(&at.pointer)?;
    let at_components = tokens.iter().position(|t| t == "components")?;
    let inside = tokens
        .get(at_components + 3)
        .is_some_and(|t| t == "definitions" || t == "$defs");
    (inside && tokens.len() > at_components + 4).then(|| tokens[at_components + 2].to_string())
}

/// What one step along a pointer contributes to a name.
enum Step {
    /// Start over from this name (a component, a method).
    Reset(String),
    /// Append this word.
    Push(String),
    /// Start over from an owner's name, then append this word (a property of an inline
    /// object with a title: `Block object` / `transactions` → `BlockObjectTransactions`).
    Owned(String, String),
    /// Append a variant number (a last-resort name).
    Numbered(String),
    /// Nothing.
    Skip,
}

/// The name of a place, and whether it had to number a variant.
fn place_name(resolver: &Resolver, at: &Location) -> (String, bool) {
    let tokens: Vec<Cow<'_, str>> = pointer::tokens(&at.pointer).unwrap_or_default();
    let mut parts: Vec<String> = Vec::new();
    let mut numbered = false;
    let mut i = 0;
    while i < tokens.len() {
        let (step, width) = step(resolver, at, &tokens, i);
        match step {
            Step::Reset(name) => parts = vec![name],
            Step::Owned(owner, word) => parts = vec![owner, word],
            Step::Push(word) => parts.push(word),
            Step::Numbered(word) => {
                parts.push(word);
                numbered = true;
            }
            Step::Skip => {}
        }
        i += width;
    }
    let joined: String = parts.iter().map(|p| type_name(p, "T", "")).collect();
    (type_name(&joined, "T", "Type"), numbered)
}

/// The step at `tokens[i]`, and how many tokens it takes.
fn step(resolver: &Resolver, at: &Location, tokens: &[Cow<'_, str>], i: usize) -> (Step, usize) {
    let root = Location::root(at.file);
    let t = tokens[i].as_ref();
    let next = tokens.get(i + 1).map(AsRef::as_ref);
    let last = i + 2 == tokens.len();
    let word = |w: &str| Step::Push(w.to_owned());
    match (t, next) {
        ("components", Some(_)) if i + 2 < tokens.len() => {
            (Step::Reset(tokens[i + 2].to_string()), 3)
        }
        ("definitions" | "$defs", Some(key)) => (Step::Reset(key.to_owned()), 2),
        ("methods", Some(_)) => {
            let name = name_at(resolver, &root, &tokens[..i + 2]);
            (Step::Reset(name.unwrap_or_else(|| "Method".into())), 2)
        }
        ("params", Some(_)) => {
            let name = name_at(resolver, &root, &tokens[..i + 2]);
            (Step::Push(name.unwrap_or_else(|| "Param".into())), 2)
        }
        ("errors", Some(n)) => {
            let code = code_at(resolver, &root, &tokens[..i + 2]).unwrap_or_else(|| n.to_owned());
            (Step::Push(format!("Error {code}")), 2)
        }
        ("properties", Some(key)) => match owner_title(resolver, &root, &tokens[..i]) {
            Some(owner) => (Step::Owned(owner, key.to_owned()), 2),
            None => (word(key), 2),
        },
        ("oneOf" | "anyOf", Some(_)) if tokens.get(i + 2).is_some_and(|t| t == "properties") => {
            tagged_branch(resolver, &root, &tokens[..i + 2], tokens.get(i + 3))
        }
        // The one branch of a union (beside `null` ones) is the union: its name.
        ("oneOf" | "anyOf", Some(_)) if lone_branch(resolver, &root, &tokens[..i + 2]) => {
            (Step::Skip, 2)
        }
        ("oneOf" | "anyOf", Some(n)) => (branch(resolver, &root, &tokens[..i + 2], n, last), 2),
        ("oneOf" | "anyOf", None) => match owner_title(resolver, &root, &tokens[..i]) {
            // A union beside an object's members: that object's kind (`TransactionKind`).
            Some(owner) => (Step::Owned(owner, "Kind".to_owned()), 1),
            None => (word("Kind"), 1),
        },
        ("type", _) => (word("Kind"), 1),
        ("allOf", Some(_)) if last => (word("Kind"), 2),
        ("allOf", Some(_)) => (Step::Skip, 2),
        ("items" | "prefixItems", Some(n)) if n.parse::<usize>().is_ok() => {
            let list = tokens[..=i].iter().fold(root.clone(), |l, t| l.key(t));
            match resolver.get(&list) {
                // A list of one schema describes every item (Lotus' `items: [{…}]`).
                Some(Value::Array(one)) if one.len() == 1 => (word("Item"), 2),
                _ => (Step::Push(format!("Item{n}")), 2),
            }
        }
        ("items", _) => (word("Item"), 1),
        ("additionalProperties", _) => (word("Value"), 1),
        ("patternProperties", Some(_)) => (word("Value"), 2),
        ("result", _) => (word("Result"), 1),
        ("data", _) => (word("Data"), 1),
        ("schema", _) => (root_title(resolver, &root, &tokens[..=i]), 1),
        (other, _) => (word(other), 1),
    }
}

/// The step for a member of an inline branch of a sum: the branch's tag value when it
/// has one (a required string constant other than `member`), taking the member too
/// when the tag is all else the branch has (serde's adjacent `content`: `Command`'s
/// `{"kind": "turn", "data": {…}}` → `CommandTurn`); else nothing (`{"rect": {…}}` →
/// `ShapeRect`, the member naming it).
fn tagged_branch(
    resolver: &Resolver,
    root: &Location,
    branch: &[Cow<'_, str>],
    member: Option<&Cow<'_, str>>,
) -> (Step, usize) {
    let at = branch.iter().fold(root.clone(), |l, t| l.key(t));
    let schema = resolver.get(&at);
    let props = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let required = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array);
    let Some(props) = props else {
        return (Step::Skip, 2);
    };
    let tag = required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find_map(|k| {
            let value = props.get(k)?.get("const")?.as_str()?;
            (Some(k) != member.map(AsRef::as_ref)).then_some((k, value))
        });
    match tag {
        Some((_, value)) if props.len() == 2 && member.is_some() => {
            (Step::Push(value.to_owned()), 4)
        }
        Some((_, value)) => (Step::Push(value.to_owned()), 2),
        None => match number_tag(props) {
            Some(words) => (Step::Push(words), 2),
            None => (Step::Skip, 2),
        },
    }
}

/// A member of a branch that is a number constant, as words (`code 3`, `code minus
/// 32015`): what tells apart branches that carry one (execution-apis' call errors).
fn number_tag(props: &serde_json::Map<String, Value>) -> Option<String> {
    props.iter().find_map(|(key, p)| {
        let n = p.get("const")?.as_i64()?;
        Some(if n < 0 {
            format!("{key} minus {}", n.unsigned_abs())
        } else {
            format!("{key} {n}")
        })
    })
}

/// A content descriptor's schema that is a root schema of its own (`$schema`, as
/// schemars' `schema_for!` writes one) names what is inside it by its `title`
/// (`Command`'s variant payload `CommandTurn`, not `RobotCommandCommandTurn`).
fn root_title(resolver: &Resolver, root: &Location, tokens: &[Cow<'_, str>]) -> Step {
    let at = tokens.iter().fold(root.clone(), |l, t| l.key(t));
    let schema = resolver.get(&at);
    let title = schema
        .filter(|s| s.get("$schema").is_some())
        .and_then(|s| s.get("title"))
        .and_then(Value::as_str)
        .filter(|t| title_is_identifier(t));
    match title {
        Some(title) => Step::Reset(title.to_owned()),
        None => Step::Skip,
    }
}

/// Whether the branch at the pointer made of `tokens` is the only one of its union that
/// is not `null`.
fn lone_branch(resolver: &Resolver, root: &Location, tokens: &[Cow<'_, str>]) -> bool {
    let list = tokens[..tokens.len() - 1]
        .iter()
        .fold(root.clone(), |l, t| l.key(t));
    let Some(Value::Array(branches)) = resolver.get(&list) else {
        return false;
    };
    let not_null = |b: &&Value| b.get("type").and_then(Value::as_str) != Some("null");
    branches.iter().filter(not_null).count() == 1
}

/// The step for branch `n` of a union (the pointer made of `tokens`): its `title`, else
/// (the last step) its first property, else its JSON type; a number only when the branch
/// says nothing of itself.
fn branch(
    resolver: &Resolver,
    root: &Location,
    tokens: &[Cow<'_, str>],
    n: &str,
    last: bool,
) -> Step {
    let at = tokens.iter().fold(root.clone(), |l, t| l.key(t));
    let schema = resolver.get(&at);
    let title = schema
        .and_then(|s| s.get("title"))
        .and_then(Value::as_str)
        .filter(|t| title_is_identifier(t));
    if let Some(title) = title {
        return Step::Push(title.to_owned());
    }
    let props = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    if let Some(tag) = props.and_then(number_tag) {
        return Step::Push(tag);
    }
    if let Some(w) = last.then(|| branch_word(resolver, &at)).flatten() {
        return Step::Push(w);
    }
    match schema.and_then(|s| s.get("type")).and_then(Value::as_str) {
        Some(ty) if ty != "object" && ty != "null" => Step::Numbered(ty.to_owned()),
        _ => Step::Numbered(format!("Variant{}", n.parse::<usize>().unwrap_or(0) + 1)),
    }
}

/// A word for an inline object branch of a sum: its first required property (else its
/// first property): `BlockId` branch `{"block_hash": …}` → `BlockIdBlockHash`.
fn branch_word(resolver: &Resolver, at: &Location) -> Option<String> {
    let schema = resolver.get(at)?;
    let props = schema.get("properties")?.as_object()?;
    let required = schema.get("required").and_then(Value::as_array);
    let first_required = required.and_then(|r| {
        r.iter()
            .filter_map(Value::as_str)
            .find(|k| props.contains_key(*k))
    });
    first_required
        .or_else(|| props.keys().next().map(String::as_str))
        .map(str::to_owned)
}

/// The title of the inline object schema at the pointer made of `tokens`, when it is one
/// a name can be made of: a property's type is then named from what owns it, not from
/// the method that reached it first. The owner of a union's branch is the union (the
/// branches share their members), else the branch when it has a title of its own; a
/// component owner keeps its key (`Reset` already).
fn owner_title(resolver: &Resolver, root: &Location, tokens: &[Cow<'_, str>]) -> Option<String> {
    let title_at = |tokens: &[Cow<'_, str>]| {
        let at = tokens.iter().fold(root.clone(), |l, t| l.key(t));
        if is_component(&at) {
            return None;
        }
        let title = resolver.get(&at)?.get("title")?.as_str()?;
        title_is_identifier(title).then(|| without_filler(title))
    };
    match tokens {
        [rest @ .., union, n]
            if matches!(union.as_ref(), "oneOf" | "anyOf" | "allOf")
                && n.parse::<usize>().is_ok() =>
        {
            if is_component(&rest.iter().fold(root.clone(), |l, t| l.key(t))) {
                return None;
            }
            title_at(rest).or_else(|| title_at(tokens))
        }
        _ => title_at(tokens),
    }
}

/// Words a title adds to say it is a title (`Block object`, `Transaction information`),
/// left out where the title names what a member belongs to (`BlockTransactions`,
/// `TransactionKind`, not `BlockObjectTransactions`).
const FILLER: &[&str] = &["object", "information", "info"];

/// `title` without a trailing [`FILLER`] word (kept when it is the only word).
fn without_filler(title: &str) -> String {
    let words: Vec<&str> = title.split_whitespace().collect();
    match words.split_last() {
        Some((last, rest))
            if !rest.is_empty() && FILLER.contains(&last.to_ascii_lowercase().as_str()) =>
        {
            rest.join(" ")
        }
        _ => title.trim().to_owned(),
    }
}

/// The `name` member of the object at the pointer made of `tokens` (a method, a param).
fn name_at(resolver: &Resolver, root: &Location, tokens: &[Cow<'_, str>]) -> Option<String> {
    let at = tokens.iter().fold(root.clone(), |l, t| l.key(t));
    let value = resolver.get(&at)?;
    if let Some(name) = value.get("name").and_then(Value::as_str) {
        return Some(name.to_owned());
    }
    let reference = value.get("$ref")?.as_str()?;
    reference.rsplit('/').next().map(str::to_owned)
}

/// The `code` of the error object at the pointer made of `tokens`.
fn code_at(resolver: &Resolver, root: &Location, tokens: &[Cow<'_, str>]) -> Option<String> {
    let at = tokens.iter().fold(root.clone(), |l, t| l.key(t));
    let value = resolver.get(&at)?;
    if let Some(code) = value.get("code").and_then(Value::as_i64) {
        return Some(if code < 0 {
            format!("minus {}", -code)
        } else {
            code.to_string()
        });
    }
    let reference = value.get("$ref")?.as_str()?;
    reference.rsplit('/').next().map(str::to_owned)
}
