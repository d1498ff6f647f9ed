//! The service model: what a document's methods are, language-neutral apart from the
//! names they get in Rust (decided here, once, for the client and the server alike).
//!
//! Each method of the [`Document`] is matched with its types in the [`TypeSpace`]: its
//! params (names, types, required or optional, order), how they go on the wire
//! (`paramStructure`, `either` resolved by [`Settings::either_default`]), its result (or
//! none: a notification), its declared errors (code, message, typed `data`), and who
//! sends it ([`Direction`], from [`Settings::server_to_client`]).

use std::collections::{HashMap, HashSet};

use crate::direction::{Direction, directions};
use crate::document::{Document, ResolvedError, ResolvedMethod, ResolvedParam};
use crate::error::Diagnostic;
use crate::naming::{Namer, field_name, title_is_identifier, type_name};
use crate::openrpc::ParamStructure;
use crate::resolve::Location;
use crate::settings::{ParamsBy, Settings};
use crate::streams::{Stream, Streams, streams};
use crate::typespace::{MethodTypes, Ty, TypeId, TypeSpace};

/// Names the generated client and batch builder use for themselves, or have from the
/// traits every client has (`Clone`, `ToOwned`, `Into`, `TryInto`): a method named like
/// one of them gets another name (an inherent `clone` would hide `Clone::clone`).
const CLIENT_WORDS: &[&str] = &[
    "new",
    "inner",
    "into_inner",
    "batch",
    "send",
    "len",
    "is_empty",
    "clone",
    "clone_from",
    "clone_into",
    "to_owned",
    "into",
    "try_into",
];

/// Every method of one document, named for Rust.
#[derive(Debug)]
pub(crate) struct Services {
    /// The document's name, upper camel case (`Petstore`): `PetstoreClient`, …
    pub(crate) name: String,
    /// The document's title (`info.title`), for docs.
    pub(crate) title: String,
    /// The methods, in document order.
    pub(crate) methods: Vec<Method>,
    /// Problems found (warnings).
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// What was recognised (subscriptions), one line each.
    pub(crate) notes: Vec<String>,
}

/// One method.
#[derive(Debug)]
pub(crate) struct Method {
    /// The name on the wire, exactly as written.
    pub(crate) wire: String,
    /// The Rust function name (`eth_get_balance`).
    pub(crate) rust: String,
    /// The base of its type names (`EthGetBalance`: `EthGetBalanceParams`, …).
    pub(crate) base: String,
    /// Summary and description.
    pub(crate) docs: Option<String>,
    /// Whether the method is deprecated.
    pub(crate) deprecated: bool,
    /// The params, in order.
    pub(crate) params: Vec<Param>,
    /// Which shapes the server accepts.
    pub(crate) accepts: ParamStructure,
    /// Which shape the client sends.
    pub(crate) sends: ParamsBy,
    /// The one param is the whole params object ([`Settings::params_object`]).
    pub(crate) whole: bool,
    /// The result type; `None` for a notification.
    pub(crate) result: Option<Ty>,
    /// The declared errors, one per code.
    pub(crate) errors: Vec<DeclaredError>,
    /// Who sends it.
    pub(crate) direction: Direction,
    /// Its part in a subscription, if any.
    pub(crate) part: Part,
    /// The document marks it idempotent (`"x-idempotent": true`): safe to send again.
    pub(crate) idempotent: bool,
}

/// A method's part in subscriptions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// None: a method like any other.
    Plain,
    /// It subscribes; its items travel as the stream says.
    Subscribe(Stream),
    /// It carries a subscription's items: the runtime consumes it, so it has neither a
    /// listener method nor a push method.
    Items,
    /// It ends subscriptions: the runtime answers it (with the feed of the subscribe
    /// method named here), so the server trait has no method for it.
    Unsubscribe {
        /// The subscribe method (wire name) whose feed names it.
        subscribe: String,
    },
}

/// One param.
#[derive(Debug)]
pub(crate) struct Param {
    /// The name on the wire.
    pub(crate) wire: String,
    /// The Rust identifier.
    pub(crate) rust: String,
    /// Its type (not wrapped in `Option` for being optional).
    pub(crate) ty: Ty,
    /// Whether it must be given.
    pub(crate) required: bool,
    /// Whether it is deprecated.
    pub(crate) deprecated: bool,
    /// Summary and description.
    pub(crate) docs: Option<String>,
    /// The validation keywords of its schema.
    pub(crate) validation: crate::typespace::Validation,
    /// Declared `"x-stream": true`: the param is a stream of items of `ty`, sent as a
    /// stream id that the server pulls from the caller.
    pub(crate) stream: bool,
}

/// One declared error.
#[derive(Debug)]
pub(crate) struct DeclaredError {
    /// The JSON-RPC code.
    pub(crate) code: i64,
    /// The declared message.
    pub(crate) message: String,
    /// The variant name (`PetNotFound`).
    pub(crate) variant: String,
    /// The type of `data`, when the document describes it.
    pub(crate) data: Option<Ty>,
}

impl Services {
    /// The service model of `document`, whose types are `space`.
    pub(crate) fn build(document: &mut Document, space: &TypeSpace, settings: &Settings) -> Self {
        let types: HashMap<&str, &MethodTypes> = space
            .methods()
            .iter()
            .map(|m| (m.name.as_str(), m))
            .collect();
        let name = doc_name(document, settings);
        let mut names = Names {
            fns: Namer::default(),
            bases: Namer::default(),
            types: space
                .defs()
                .iter()
                .enumerate()
                .filter(|(_, d)| d.replaced_by.is_none())
                .map(|(i, d)| (d.name.clone(), TypeId(i)))
                .collect(),
        };
        for word in CLIENT_WORDS {
            names.fns.claim(word);
        }
        let wire: Vec<&str> = document.methods.iter().map(|m| m.name.as_str()).collect();
        let mut streams = streams(document, &types, space.defs(), settings);
        let (sent_by, mut diagnostics) = sent_by(document, settings, &streams, &wire);
        let mut suffixes = vec!["Client", "Batch", "Server", "Dispatcher"];
        if sent_by.iter().any(|d| d.goes(Direction::ServerToClient)) {
            suffixes.extend(["Push", "Listener", "ListenerDispatcher"]);
        }
        for suffix in suffixes {
            names.bases.claim(&format!("{name}{suffix}"));
        }
        diagnostics.append(&mut streams.diagnostics);
        let mut methods = Vec::new();
        for (m, direction) in document.methods.iter().zip(sent_by) {
            let Some(types) = types.get(m.name.as_str()) else {
                let at = &m.location;
                diagnostics.push(
                    document
                        .resolver
                        .warning_at(at, "method left out: its types could not be generated"),
                );
                continue;
            };
            let mut method = method(m, types, settings, &mut names, document, &mut diagnostics);
            method.direction = direction;
            method.part = part(&m.name, &streams, &wire);
            methods.push(method);
        }
        let title = match document.model.info.title.trim() {
            "" => name.clone(),
            title => title.to_owned(),
        };
        Services {
            name,
            title,
            methods,
            diagnostics,
            notes: streams.notes,
        }
    }
}

/// Who sends each of the methods `wire`: as the patterns of `server_to_client` and
/// `both_ways` say, and
/// the server for the notifications subscriptions share; a warning for each pattern that
/// matches no method.
fn sent_by(
    document: &Document,
    settings: &Settings,
    streams: &Streams,
    wire: &[&str],
) -> (Vec<Direction>, Vec<Diagnostic>) {
    let (mut sent_by, unmatched) =
        directions(&settings.server_to_client, &settings.both_ways, wire);
    for (direction, name) in sent_by.iter_mut().zip(wire) {
        if streams.shared.iter().any(|s| s == name) {
            *direction = Direction::ServerToClient;
        }
    }
    let diagnostics = unmatched
        .iter()
        .map(|pattern| {
            let at = Location::new(document.root, "/methods");
            let option = if settings.server_to_client.iter().any(|p| p == pattern) {
                "server_to_client"
            } else {
                "both_ways"
            };
            let message = format!("{option} pattern {pattern:?} matches no method");
            document.resolver.warning_at(&at, message)
        })
        .collect();
    (sent_by, diagnostics)
}

/// The part of the method `name` in the subscriptions `streams` (of the methods `wire`).
fn part(name: &str, streams: &Streams, wire: &[&str]) -> Part {
    if let Some(stream) = streams.by_subscribe.get(name) {
        return Part::Subscribe(stream.clone());
    }
    if streams.is_consumed(name) {
        return Part::Items;
    }
    match streams.unsubscribed_by(name, wire.iter().copied()) {
        Some(subscribe) => Part::Unsubscribe {
            subscribe: subscribe.to_owned(),
        },
        None => Part::Plain,
    }
}

/// `<Doc>`: the module name if given, else the title when it reads as a name, else the
/// file name.
pub(crate) fn doc_name(document: &Document, settings: &Settings) -> String {
    type_name(&doc_words(document, settings), "Api", "Api")
}

/// The words `<Doc>` and the module name are made of: the module name if given, else
/// the title when it reads as a name, else the file name (without `-openrpc`).
pub(crate) fn doc_words(document: &Document, settings: &Settings) -> String {
    if let Some(module) = &settings.module {
        return module.clone();
    }
    let title = document.model.info.title.trim();
    if title_is_identifier(title) {
        return title.to_owned();
    }
    let path = document.resolver.display_path(document.root);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    stem.trim_end_matches("-openrpc")
        .trim_end_matches(".openrpc")
        .to_owned()
}

/// The names handed out so far in the module.
struct Names {
    /// Function names of the client, the batch builder and the server trait.
    fns: Namer,
    /// Type name bases.
    bases: Namer,
    /// The names of the types module, each with its type: a method's `<Base>Params`,
    /// `<Base>Result` and `<Base>Error` beside them must not take one of them (but the
    /// result's own type), or `use api::*; use api::types::*;` would name two items.
    types: HashMap<String, TypeId>,
}

impl Names {
    /// A free base for the method named `rust` whose types are `types`.
    fn base(&mut self, rust: &str, types: &MethodTypes) -> String {
        let wanted = type_name(rust.trim_start_matches("r#"), "T", "Method");
        loop {
            let base = self.bases.claim(&wanted);
            let result_is = |name: &str| {
                let own = self.types.get(name).map(|id| Ty::Named(*id));
                own.is_none() || own == types.result
            };
            let taken = |suffix: &str| self.types.contains_key(&format!("{base}{suffix}"));
            let params_free = types.params.is_empty() || !taken("Params");
            let free = match &types.result {
                None => params_free,
                Some(_) => {
                    params_free
                        && (types.errors.is_empty() || !taken("Error"))
                        && result_is(&format!("{base}Result"))
                }
            };
            if free {
                return base;
            }
        }
    }
}

fn method(
    m: &ResolvedMethod,
    types: &MethodTypes,
    settings: &Settings,
    names: &mut Names,
    document: &Document,
    diagnostics: &mut Vec<Diagnostic>,
) -> Method {
    let rust = names.fns.claim(&field_name(&m.name));
    let base = names.base(&rust, types);
    let whole = params_object(m, settings, document, diagnostics);
    let params = method_params(m, types, whole, document, diagnostics);
    let sends = match m.param_structure {
        _ if whole => ParamsBy::Name,
        ParamStructure::ByName => ParamsBy::Name,
        ParamStructure::ByPosition => ParamsBy::Position,
        ParamStructure::Either => settings.either_default,
    };
    Method {
        wire: m.name.clone(),
        rust,
        base,
        docs: docs(m.summary.as_deref(), m.description.as_deref()),
        deprecated: m.deprecated,
        params,
        accepts: m.param_structure,
        sends,
        whole,
        result: types.result.clone(),
        errors: errors(&m.errors, types, document, diagnostics),
        direction: Direction::ClientToServer,
        part: Part::Plain,
        idempotent: idempotent(m, document, diagnostics),
    }
}

/// The params of `m`, named clear of the generated code's own (`cx`, `self_`); `whole`
/// when its one param is its whole params object.
fn method_params(
    m: &ResolvedMethod,
    types: &MethodTypes,
    whole: bool,
    document: &Document,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Param> {
    let mut args = Namer::default();
    args.claim("cx");
    args.claim("self_");
    m.params
        .iter()
        .zip(&types.params)
        .map(|(p, t)| {
            let stream = stream_param(m, p, whole, document, diagnostics);
            Param {
                wire: p.name.clone(),
                rust: args.claim(&field_name(&p.name)),
                ty: t.ty.clone(),
                // The params object itself: always sent (`{}` when it has nothing to say).
                required: p.required || whole,
                deprecated: p.deprecated,
                docs: docs(p.summary.as_deref(), p.description.as_deref()),
                // A stream's schema is its items': its id is not checked against it.
                validation: if stream {
                    crate::typespace::Validation::default()
                } else {
                    t.validation.clone()
                },
                stream,
            }
        })
        .collect()
}

/// Whether the settings make `m`'s one param its whole params object. A method named
/// exactly that has not exactly one param is a warning; one a `*` pattern matches is
/// left as it is.
fn params_object(
    m: &ResolvedMethod,
    settings: &Settings,
    document: &Document,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let named = settings
        .params_object
        .iter()
        .any(|p| crate::direction::matches(p, &m.name));
    if !named || m.params.len() == 1 {
        return named;
    }
    if !settings.params_object.contains(&m.name) {
        return false;
    }
    let message = format!(
        "the params-object override names `{}`, which has {} params, not one: ignored",
        m.name,
        m.params.len()
    );
    diagnostics.push(
        document
            .resolver
            .warning_at(&m.location.key("params"), message),
    );
    false
}

/// The method extension that marks a method idempotent.
const IDEMPOTENT: &str = "x-idempotent";

/// What an `x-idempotent` value says: `None` when it is not a boolean.
pub(crate) fn idempotent_value(value: &serde_json::Value) -> Option<bool> {
    value.as_bool()
}

/// Whether `m` is marked `"x-idempotent": true`; a value other than a boolean is
/// ignored with a warning.
fn idempotent(m: &ResolvedMethod, document: &Document, diagnostics: &mut Vec<Diagnostic>) -> bool {
    match m.extensions.get(IDEMPOTENT).map(idempotent_value) {
        None => false,
        Some(Some(marked)) => marked,
        Some(None) => {
            let mut site = m.location.clone();
            site.pointer = crate::pointer::push(&site.pointer, IDEMPOTENT);
            let message = format!("`{IDEMPOTENT}` must be true or false; ignored");
            diagnostics.push(document.resolver.warning_at(&site, message));
            false
        }
    }
}

/// The param extension that declares a stream param.
const STREAM: &str = "x-stream";

/// What an `x-stream` value says: `None` when it is not a boolean.
pub(crate) fn stream_value(value: &serde_json::Value) -> Option<bool> {
    value.as_bool()
}

/// Whether `p`, a param of `m`, is declared `"x-stream": true`. A value other than a
/// boolean, or a stream where none can go (an optional param, the whole params object,
/// a notification, whose caller is not waiting while the server pulls), is ignored with
/// a warning.
fn stream_param(
    m: &ResolvedMethod,
    p: &ResolvedParam,
    whole: bool,
    document: &Document,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let site = p.location.key(STREAM);
    let Some(value) = document.resolver.get(&site) else {
        return false;
    };
    let refused = match stream_value(value) {
        None => "must be true or false",
        Some(false) => return false,
        Some(true) if m.result.is_none() => "needs a method with a result (not a notification)",
        Some(true) if !p.required => "needs a required param",
        Some(true) if whole => "cannot be the whole params object",
        Some(true) => return true,
    };
    let message = format!("`{STREAM}` {refused}; the param is sent as a plain value");
    diagnostics.push(document.resolver.warning_at(&site, message));
    false
}

/// The declared errors, one per code (a later one with the same code is left out, with a
/// warning), named after their component key or their message.
fn errors(
    declared: &[ResolvedError],
    types: &MethodTypes,
    document: &Document,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<DeclaredError> {
    let mut codes = HashSet::new();
    let mut variants = Namer::default();
    let mut out = Vec::new();
    for e in declared {
        let code = &e.error.code;
        let data = types
            .errors
            .iter()
            .find(|(c, _)| c == code)
            .and_then(|(_, d)| d.as_ref());
        if !codes.insert(*code) {
            let message = format!("error code {code} is declared twice: the second is left out");
            diagnostics.push(document.resolver.warning_at(&e.site, message));
            continue;
        }
        let from_key = e
            .location
            .pointer
            .strip_prefix("/components/errors/")
            .filter(|k| !k.contains('/'));
        let hint = from_key.unwrap_or(&e.error.message);
        let fallback = format!("Code{}", code.unsigned_abs());
        out.push(DeclaredError {
            code: *code,
            message: e.error.message.clone(),
            variant: variants.claim(&type_name(hint, "E", &fallback)),
            data: data.cloned(),
        });
    }
    out
}

fn docs(summary: Option<&str>, description: Option<&str>) -> Option<String> {
    let summary = summary.map(str::trim).filter(|s| !s.is_empty());
    let description = description.map(str::trim).filter(|s| !s.is_empty());
    match (summary, description) {
        (Some(s), Some(d)) if s != d => Some(format!("{s}\n\n{d}")),
        (Some(s), _) => Some(s.to_owned()),
        (None, d) => d.map(str::to_owned),
    }
}
