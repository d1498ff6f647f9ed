//! Scopes granted to a caller, and the rule that maps each method to the scope it needs.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::protocol::{ErrorObject, code};

use super::super::context::Context;
use super::Rule;

/// The scopes granted to a caller: what an OAuth 2.0 access token's `scope` lists
/// (space-separated). An authentication middleware puts them in the call's extensions
/// (`cx.extensions_mut().insert(scopes)`), or a tower layer in the HTTP request's
/// extensions; [`Scopes::of`] finds them in either.
///
/// ```
/// use rpcsmith::server::access::Scopes;
///
/// let scopes = Scopes::parse("pets:read  pets:write");
/// assert!(scopes.contains("pets:write"));
/// assert!(!scopes.contains("admin"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scopes(BTreeSet<Box<str>>);

impl Scopes {
    /// The scopes of a space-separated list (RFC 6749, 3.3); empty entries are skipped.
    pub fn parse(list: &str) -> Self {
        list.split(' ').filter(|scope| !scope.is_empty()).collect()
    }

    /// Whether `scope` is granted.
    pub fn contains(&self, scope: &str) -> bool {
        self.0.contains(scope)
    }

    /// The scopes granted to a call's caller: from the call's extensions, else from
    /// the transport's ([`Metadata::extensions`](crate::server::Metadata::extensions));
    /// `None` when nothing granted any.
    pub fn of(context: &Context) -> Option<&Scopes> {
        context
            .extensions()
            .get::<Scopes>()
            .or_else(|| context.metadata().extensions.get::<Scopes>())
    }
}

impl<S: Into<Box<str>>> FromIterator<S> for Scopes {
    fn from_iter<I: IntoIterator<Item = S>>(scopes: I) -> Self {
        Scopes(scopes.into_iter().map(Into::into).collect())
    }
}

/// What a method needs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Need {
    /// Nothing: anyone may call it.
    Open,
    /// This scope.
    Scope(Box<str>),
    /// It is not open to anyone.
    Nothing,
}

/// A [`Rule`] that maps each method to the scope its caller must have (see
/// [`Scopes`]). Methods not named are refused unless
/// [`open_unlisted`](Self::open_unlisted) says otherwise, so a method added to the
/// document later is closed until given a scope; `rpc.*` names are methods like the
/// others (name `rpc.discover` [`open`](Self::open) to let anyone read the document,
/// and, where clients pull subscriptions over plain HTTP, `rpc.stream.next` and
/// `rpc.stream.cancel`: a stream's id is only known to whom its subscribe call was
/// allowed).
///
/// A refusal reads, in the document's terms:
///
/// | case | answer |
/// |---|---|
/// | the caller lacks the scope | `-32016` `addPet requires scope pets:write`, `data: {"method":"addPet","scope":"pets:write"}` |
/// | a method not named | `-32016` `addPet is not open to any caller`, `data: {"method":"addPet"}` |
///
/// ```
/// use rpcsmith::server::access::{Access, RequiredScopes};
///
/// let access = Access::new(
///     RequiredScopes::new()
///         .open("rpc.discover")
///         .method("listPets", "pets:read")
///         .method("addPet", "pets:write"),
/// );
/// ```
#[derive(Debug, Clone)]
pub struct RequiredScopes {
    methods: HashMap<Box<str>, Need>,
    unlisted: Need,
}

impl RequiredScopes {
    /// A rule naming no method yet: every call is refused.
    pub fn new() -> Self {
        RequiredScopes {
            methods: HashMap::new(),
            unlisted: Need::Nothing,
        }
    }

    /// `method` needs `scope`.
    pub fn method(mut self, method: &str, scope: &str) -> Self {
        self.methods
            .insert(method.into(), Need::Scope(scope.into()));
        self
    }

    /// Anyone may call `method`.
    pub fn open(mut self, method: &str) -> Self {
        self.methods.insert(method.into(), Need::Open);
        self
    }

    /// Anyone may call the methods not named (the rule then only guards those given a
    /// scope).
    pub fn open_unlisted(mut self) -> Self {
        self.unlisted = Need::Open;
        self
    }
}

impl Default for RequiredScopes {
    fn default() -> Self {
        Self::new()
    }
}

/// The `data` of a refusal.
#[derive(Serialize)]
struct Refusal<'a> {
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'a str>,
}

impl Rule for RequiredScopes {
    fn check(&self, context: &Context) -> Result<(), ErrorObject> {
        let method = context.method();
        match self.methods.get(method).unwrap_or(&self.unlisted) {
            Need::Open => Ok(()),
            Need::Scope(scope) if Scopes::of(context).is_some_and(|s| s.contains(scope)) => Ok(()),
            Need::Scope(scope) => Err(ErrorObject::with_data(
                code::ACCESS_DENIED,
                format!("{method} requires scope {scope}"),
                &Refusal {
                    method,
                    scope: Some(scope),
                },
            )),
            Need::Nothing => Err(ErrorObject::with_data(
                code::ACCESS_DENIED,
                format!("{method} is not open to any caller"),
                &Refusal {
                    method,
                    scope: None,
                },
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::Metadata;

    fn call(method: &str, scopes: Option<&str>) -> Result<(), (i64, String, String)> {
        let rule = RequiredScopes::new()
            .open("rpc.discover")
            .method("addPet", "pets:write");
        let mut cx = Context::new(method, None, Metadata::default());
        if let Some(scopes) = scopes {
            cx.extensions_mut().insert(Scopes::parse(scopes));
        }
        rule.check(&cx).map_err(|e| {
            let data = e
                .data
                .as_deref()
                .map(|d| d.get().to_owned())
                .unwrap_or_default();
            (e.code, e.message.into_owned(), data)
        })
    }

    #[test]
    fn methods_need_their_scope_and_unlisted_ones_are_closed() {
        assert_eq!(call("addPet", Some("pets:read pets:write")), Ok(()));
        assert_eq!(call("rpc.discover", None), Ok(()));
        assert_eq!(
            call("addPet", Some("pets:read")),
            Err((
                code::ACCESS_DENIED,
                "addPet requires scope pets:write".into(),
                r#"{"method":"addPet","scope":"pets:write"}"#.into()
            ))
        );
        assert_eq!(
            call("addPet", None).map_err(|e| e.1),
            Err("addPet requires scope pets:write".into())
        );
        assert_eq!(
            call("deletePet", Some("pets:write")),
            Err((
                code::ACCESS_DENIED,
                "deletePet is not open to any caller".into(),
                r#"{"method":"deletePet"}"#.into()
            ))
        );
    }

    #[test]
    fn scopes_from_the_transport_count_too() {
        let mut meta = Metadata::default();
        meta.extensions.insert(Scopes::parse("pets:write"));
        let cx = Context::new("addPet", None, meta);
        let rule = RequiredScopes::new().method("addPet", "pets:write");
        assert_eq!(rule.check(&cx).map_err(|e| e.code), Ok(()));
    }
}
