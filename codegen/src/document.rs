//! A loaded document: the typed model, the resolver holding every file it reaches, the
//! warnings, and its methods with every `$ref` around them resolved.
//!
//! The resolved views keep schemas as [`Location`]s: read them with
//! [`Resolver::get`](crate::Resolver::get) and follow their `$ref`s with
//! [`Resolver::deref`](crate::Resolver::deref).

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Diagnostic;
use crate::openrpc::{ErrorObject, Example, Extensions, Link, OpenRpc, ParamStructure, Tag};
use crate::resolve::{FileId, Location, Resolver};

/// One OpenRPC document, loaded, validated and resolved.
#[derive(Debug)]
pub struct Document {
    /// The typed model of the root document, as written (references unresolved).
    pub model: OpenRpc,
    /// Every file read, and `$ref` resolution between them.
    pub resolver: Resolver,
    /// The root document's file.
    pub root: FileId,
    /// The methods, in document order, with their references resolved.
    pub methods: Vec<ResolvedMethod>,
    /// The warnings found (validation and resolution), in the order found.
    pub warnings: Vec<Diagnostic>,
    /// How many distinct `$ref`s (in every file reached) were resolved.
    pub ref_count: usize,
}

/// A method with its params, result, errors, tags and examples resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedMethod {
    /// Where the method object is (after following a `$ref` in `methods`).
    pub location: Location,
    /// The wire name.
    pub name: String,
    /// A short summary.
    pub summary: Option<String>,
    /// A longer description.
    pub description: Option<String>,
    /// How params are sent.
    pub param_structure: ParamStructure,
    /// The params, in order (a duplicate name is dropped, with a warning).
    pub params: Vec<ResolvedParam>,
    /// The result; `None` for a notification.
    pub result: Option<ResolvedParam>,
    /// The declared application errors.
    pub errors: Vec<ResolvedError>,
    /// The tags.
    pub tags: Vec<Tag>,
    /// The examples.
    pub examples: Vec<ResolvedExamplePairing>,
    /// The links to other methods.
    pub links: Vec<ResolvedLink>,
    /// Whether the method is deprecated.
    pub deprecated: bool,
    /// The method's `x-…` members (`x-subscription` …).
    pub extensions: Extensions,
}

/// A param or result: a content descriptor, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedParam {
    /// Where it is used (`/methods/3/params/0`).
    pub site: Location,
    /// Where the content descriptor is (the site, or the target of its `$ref`).
    pub location: Location,
    /// Its name.
    pub name: String,
    /// A short summary.
    pub summary: Option<String>,
    /// A longer description.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
    /// Whether it is deprecated.
    pub deprecated: bool,
    /// Where its schema is (`location` + `/schema`); it may itself be a `$ref`.
    pub schema: Location,
}

/// A declared error, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedError {
    /// Where it is used.
    pub site: Location,
    /// Where the error object is (`/components/errors/NotFound` when by reference).
    pub location: Location,
    /// The error object.
    pub error: ErrorObject,
}

/// A link, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedLink {
    /// Where it is used.
    pub site: Location,
    /// Where the link object is.
    pub location: Location,
    /// The link object.
    pub link: Link,
}

/// An example pairing, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedExamplePairing {
    /// Where the pairing is.
    pub location: Location,
    /// Its name.
    pub name: String,
    /// The example params, in order.
    pub params: Vec<ResolvedExample>,
    /// The example result.
    pub result: Option<ResolvedExample>,
}

/// An example value, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedExample {
    /// Where the example object is.
    pub location: Location,
    /// The example object.
    pub example: Example,
}

/// Builds the resolved views; problems become diagnostics (the caller collects them).
pub(crate) struct Builder<'a> {
    pub(crate) resolver: &'a mut Resolver,
    pub(crate) problems: Vec<Diagnostic>,
}

impl Builder<'_> {
    /// Every method of the root document.
    pub(crate) fn methods(&mut self, root: FileId) -> Vec<ResolvedMethod> {
        let count = self.resolver.array_len(&Location::new(root, "/methods"));
        let methods = Location::new(root, "/methods");
        (0..count)
            .filter_map(|i| self.method(&methods.index(i)))
            .collect()
    }

    fn method(&mut self, site: &Location) -> Option<ResolvedMethod> {
        let location = self.follow(site)?;
        let head: MethodHead = self.read(&location)?;
        let result = match self.resolver.get(&location.key("result")) {
            Some(_) => Some(self.param(&location.key("result"))?),
            None => None,
        };
        Some(ResolvedMethod {
            params: self.each(&location.key("params"), Self::param),
            errors: self.each(&location.key("errors"), Self::error),
            tags: self.each(&location.key("tags"), |b, at| {
                b.follow_read(at).map(|(_, t)| t)
            }),
            examples: self.each(&location.key("examples"), Self::pairing),
            links: self.each(&location.key("links"), Self::link),
            extensions: self.extensions(&location),
            location,
            name: head.name,
            summary: head.summary,
            description: head.description,
            param_structure: head.param_structure,
            result,
            deprecated: head.deprecated,
        })
    }

    fn param(&mut self, site: &Location) -> Option<ResolvedParam> {
        let (location, head) = self.follow_read::<DescriptorHead>(site)?;
        Some(ResolvedParam {
            site: site.clone(),
            schema: location.key("schema"),
            location,
            name: head.name,
            summary: head.summary,
            description: head.description,
            required: head.required,
            deprecated: head.deprecated,
        })
    }

    fn error(&mut self, site: &Location) -> Option<ResolvedError> {
        let (location, error) = self.follow_read(site)?;
        let site = site.clone();
        Some(ResolvedError {
            site,
            location,
            error,
        })
    }

    fn link(&mut self, site: &Location) -> Option<ResolvedLink> {
        let (location, link) = self.follow_read(site)?;
        let site = site.clone();
        Some(ResolvedLink {
            site,
            location,
            link,
        })
    }

    fn pairing(&mut self, site: &Location) -> Option<ResolvedExamplePairing> {
        let location = self.follow(site)?;
        let head: PairingHead = self.read(&location)?;
        let result = match self.resolver.get(&location.key("result")) {
            Some(_) => Some(self.example(&location.key("result"))?),
            None => None,
        };
        Some(ResolvedExamplePairing {
            params: self.each(&location.key("params"), Self::example),
            location,
            name: head.name,
            result,
        })
    }

    fn example(&mut self, site: &Location) -> Option<ResolvedExample> {
        let (location, example) = self.follow_read(site)?;
        Some(ResolvedExample { location, example })
    }

    /// Applies `item` to every element of the array at `at` (none if absent).
    fn each<T>(
        &mut self,
        at: &Location,
        item: impl Fn(&mut Self, &Location) -> Option<T>,
    ) -> Vec<T> {
        let count = self.resolver.array_len(at);
        (0..count)
            .filter_map(|i| item(self, &at.index(i)))
            .collect()
    }

    fn follow(&mut self, site: &Location) -> Option<Location> {
        match self.resolver.deref(site) {
            Ok(location) => Some(location),
            Err(d) => {
                self.problems.push(d);
                None
            }
        }
    }

    fn follow_read<T: DeserializeOwned>(&mut self, site: &Location) -> Option<(Location, T)> {
        let location = self.follow(site)?;
        let value = self.read(&location)?;
        Some((location, value))
    }

    fn read<T: DeserializeOwned>(&mut self, at: &Location) -> Option<T> {
        let value = self.resolver.get(at)?;
        match T::deserialize(value) {
            Ok(v) => Some(v),
            Err(e) => {
                self.problems
                    .push(self.resolver.error_at(at, format!("cannot read: {e}")));
                None
            }
        }
    }

    fn extensions(&self, at: &Location) -> Extensions {
        let Some(object) = self.resolver.get(at).and_then(Value::as_object) else {
            return Extensions::new();
        };
        object
            .iter()
            .filter(|(k, _)| k.starts_with("x-"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

/// The members of a method read without copying its params' schemas.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct MethodHead {
    name: String,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    param_structure: ParamStructure,
    #[serde(default)]
    deprecated: bool,
}

/// The members of a content descriptor read without copying its schema.
#[derive(serde::Deserialize)]
struct DescriptorHead {
    name: String,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    deprecated: bool,
}

#[derive(serde::Deserialize)]
struct PairingHead {
    #[serde(default)]
    name: String,
}
