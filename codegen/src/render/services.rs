//! View structs of the client and the server: every decision about their Rust text.

use serde::Serialize;

use super::checks::{Checks, ImplView};
use super::rust::{Spelling, doc_attrs, doc_text, string_literal, ty_expr};
use crate::direction::Direction;
use crate::openrpc::ParamStructure;
use crate::service::{DeclaredError, Method, Param, Part, Services};
use crate::settings::{ParamsBy, Settings};
use crate::typespace::{Ty, TypeDef, Validation};

/// The client and server of one document, for one direction of its methods (or, for
/// what both directions share, all of them).
#[derive(Debug, Serialize)]
pub(crate) struct ServicesView {
    /// The sender: `<Doc>Client`, or `<Doc>Push` for server→client methods.
    pub(crate) client_name: String,
    /// `<Doc>Batch`.
    pub(crate) batch_name: String,
    /// The handler trait: `<Doc>Server`, or `<Doc>Listener`.
    pub(crate) server_name: String,
    /// `<Doc>Dispatcher`, or `<Doc>ListenerDispatcher`.
    pub(crate) dispatcher_name: String,
    /// The title shown in docs.
    pub(crate) title: String,
    /// Emit the client.
    pub(crate) client: bool,
    /// Emit the server.
    pub(crate) server: bool,
    /// The sender of these methods (`client_name`) is emitted too: a method's docs are
    /// written once, on the sender, and the batch builder and the handler trait link there.
    pub(crate) sender: bool,
    /// Give every handler trait method a default body answering `-32601`.
    pub(crate) partial: bool,
    /// The client→server methods (`<Doc>Client`, `<Doc>Server`), not the server→client
    /// ones (`<Doc>Push`, `<Doc>Listener`): their docs differ.
    pub(crate) forward: bool,
    /// Emit the typed batch builder.
    pub(crate) batch: bool,
    /// Emit `DOCUMENT`, and have the dispatcher answer `rpc.discover` with it.
    pub(crate) discover: bool,
    /// The document answered on `rpc.discover`, as a Rust string literal.
    pub(crate) document: String,
    pub(crate) has_methods: bool,
    /// Some method subscribes (the batch builder leaves it out, and says so).
    pub(crate) has_subscribe: bool,
    /// The wire names (Rust string literals) of the methods marked `x-idempotent`, for
    /// the client's `IDEMPOTENT`; empty emits none.
    pub(crate) idempotent: Vec<String>,
    pub(crate) methods: Vec<MethodView>,
}

/// What the templates render for one document.
#[derive(Debug)]
pub(crate) struct Views {
    /// Every method, in document order: the params, results and errors both directions
    /// share.
    pub(crate) shared: ServicesView,
    /// The client→server methods: `<Doc>Client` and `<Doc>Server`. `None` when every
    /// method goes the other way.
    pub(crate) forward: Option<ServicesView>,
    /// The server→client methods: `<Doc>Push` and `<Doc>Listener`. `None` when there
    /// are none.
    pub(crate) reverse: Option<ServicesView>,
}

/// One method.
#[derive(Debug, Serialize)]
pub(crate) struct MethodView {
    /// The wire name as a Rust string literal.
    pub(crate) wire: String,
    /// The wire name for docs (backticks made safe).
    pub(crate) shown: String,
    pub(crate) rust: String,
    pub(crate) docs: Vec<String>,
    /// Whether the method is deprecated.
    pub(crate) deprecated: bool,
    pub(crate) params: Vec<ParamView>,
    pub(crate) has_params: bool,
    /// Some param is a stream (`"x-stream": true`).
    pub(crate) has_streams: bool,
    /// Whether this view's dispatcher writes the params' `decode` (`has_params`, except in
    /// the listener for a method the server dispatcher also handles).
    pub(crate) decode: bool,
    /// `<Method>Params`.
    pub(crate) params_name: String,
    /// The params struct's `Validate` impl: the dispatcher checks the params before the
    /// handler runs, the client before sending when asked to.
    pub(crate) check: Option<ImplView>,
    pub(crate) has_check: bool,
    /// Serialize the params struct by name (else by position).
    pub(crate) by_name: bool,
    /// Serialize the params by position as a tuple of references (the same JSON array):
    /// every param is always sent and there are at most 16 (serde's largest tuple). The
    /// client and the batch then send the tuple of their arguments, not the struct.
    pub(crate) tuple: bool,
    /// The number of params that are always sent by position.
    pub(crate) fixed_len: usize,
    /// The lengths of the positional array when an optional param after the fixed part
    /// is given, the last param first: the array runs up to the last one given. (The
    /// built-in template hands the params to `serialize_by_position!`, which computes the
    /// same; this, `fixed_len` and a param's `index` stay for a user's copy of `params.hbs`.)
    pub(crate) lengths: Vec<Length>,
    /// The `Structure` variant the server accepts: `ByName`, `ByPosition` or `Either`;
    /// `Whole` when the one param is the whole params object.
    pub(crate) structure: &'static str,
    /// The one param is the whole params object: the params struct is transparent.
    pub(crate) whole: bool,
    pub(crate) is_notification: bool,
    /// `<Method>Result`.
    pub(crate) result_name: String,
    pub(crate) result_ty: String,
    /// The result is the type of the same name in `types`: re-exported, not aliased, so
    /// that `use api::*; use api::types::*;` names one item, never two.
    pub(crate) result_reexported: bool,
    pub(crate) has_errors: bool,
    /// `<Method>Error`.
    pub(crate) error_name: String,
    /// The declared error type: `<Method>Error` or `Infallible`.
    pub(crate) error_ty: String,
    pub(crate) errors: Vec<ErrorView>,
    /// The method subscribes: the client returns a `Subscription<{{item_ty}}>`, the
    /// server trait `Items<{{item_ty}}>`, and `feed` is its items' way.
    pub(crate) is_subscribe: bool,
    pub(crate) subscribe: SubscribeView,
    /// The method ends subscriptions: the runtime answers it, the server trait has no
    /// method for it.
    pub(crate) is_unsubscribe: bool,
    pub(crate) unsubscribe: UnsubscribeView,
}

/// How a subscribe method's items travel: the `static` Feed both sides read.
#[derive(Debug, Default, Serialize)]
pub(crate) struct SubscribeView {
    /// The item type.
    pub(crate) item_ty: String,
    /// The static's name (`STARKNET_SUBSCRIBE_NEW_HEADS_FEED`).
    pub(crate) feed: String,
    /// Always pulled: `Feed::pull()`; else `Feed::push(notification, id, item)`.
    pub(crate) pull: bool,
    /// The notification, the id param and the item param, as string literals.
    pub(crate) notification: String,
    pub(crate) id_param: String,
    pub(crate) item_param: String,
    /// The shown names, for docs.
    pub(crate) notification_shown: String,
    pub(crate) by_position: bool,
    /// The unsubscribe method and its id param as string literals, and whether the id
    /// goes by position.
    pub(crate) has_unsubscribe: bool,
    pub(crate) unsubscribe: String,
    pub(crate) unsubscribe_param: String,
    pub(crate) unsubscribe_by_position: bool,
    /// The document does not list the unsubscribe method (jsonrpsee's name): the
    /// dispatcher answers it with this subscription's feed (the first subscription of
    /// that name does).
    pub(crate) answers_unsubscribe: bool,
    pub(crate) integer_ids: bool,
    /// The end notification, as a string literal.
    pub(crate) has_end: bool,
    pub(crate) end: String,
    /// The code the unsubscribe method answers for an unknown id (its single declared
    /// error), which the client reads as `false`.
    pub(crate) has_unknown_id: bool,
    pub(crate) unknown_id: i64,
}

/// How the runtime answers an unsubscribe method.
#[derive(Debug, Default, Serialize)]
pub(crate) struct UnsubscribeView {
    /// The feed static of a subscription it ends.
    pub(crate) feed: String,
    /// An unknown id is answered with the method's single declared error (else `false`):
    /// its code, and its message as a string literal.
    pub(crate) has_unknown: bool,
    pub(crate) unknown_code: i64,
    pub(crate) unknown_message: String,
}

/// The positional length when the param `rust` is given.
#[derive(Debug, Serialize)]
pub(crate) struct Length {
    pub(crate) rust: String,
    pub(crate) count: usize,
}

/// One param.
#[derive(Debug, Serialize)]
pub(crate) struct ParamView {
    pub(crate) rust: String,
    /// The wire name, as a Rust string literal.
    pub(crate) wire: String,
    pub(crate) docs: Vec<String>,
    /// The wire name as a string literal when the by-name field is named otherwise.
    pub(crate) rename: Option<String>,
    /// Whether the param may be absent (the by-name field is then left out when `None`).
    pub(crate) optional: bool,
    /// The field and argument type (`Option<T>` when optional).
    pub(crate) ty: String,
    pub(crate) index: usize,
    /// Sent by position only when a later param is present.
    pub(crate) conditional: bool,
    /// A stream param (`"x-stream": true`): `ty` is `__rt::Streamed<item>`; the client
    /// hosts it before sending, the server's arm binds it to the caller.
    pub(crate) stream: bool,
}

/// One declared error.
#[derive(Debug, Serialize)]
pub(crate) struct ErrorView {
    pub(crate) variant: String,
    /// The variant's doc as a string literal, when `declared_errors!`'s own ("`code`:
    /// message", and a paragraph for the data) would read otherwise: a message not on
    /// one trimmed line.
    pub(crate) doc: Option<String>,
    pub(crate) code: i64,
    /// The declared message, as a Rust string literal.
    pub(crate) message: String,
    pub(crate) has_data: bool,
    pub(crate) data_ty: String,
}

/// The views of `services`, whose types are `defs`; `document` is the JSON answered on
/// `rpc.discover`.
///
/// The client→server items are left out only when every method goes the other way (a
/// document of what the client serves): a document without server→client methods always
/// has its `<Doc>Client` and `<Doc>Server`, even empty.
pub(crate) fn services_views(
    services: &Services,
    defs: &[TypeDef],
    settings: &Settings,
    checks: Option<&Checks<'_>>,
    document: &str,
) -> Views {
    let (client, server, partial) = (settings.client, settings.server, settings.partial);
    let title = literal_text(&services.title);
    let view = |direction: Option<Direction>| {
        let methods: Vec<MethodView> = services
            .methods
            .iter()
            .filter(|m| direction.is_none_or(|d| m.direction.goes(d)))
            // The runtime consumes the notifications carrying a subscription's items.
            .filter(|m| direction.is_none() || m.part != Part::Items)
            .map(|m| {
                let mut view = method(m, services, defs, checks);
                // A method either side sends has one params `decode`: the server
                // dispatcher's when both dispatchers are emitted.
                let twice = client && server && m.direction == Direction::Both;
                view.decode =
                    view.has_params && !(twice && direction == Some(Direction::ServerToClient));
                view
            })
            .collect();
        let role = Role::of(&services.name, direction);
        let idempotent = services
            .methods
            .iter()
            .filter(|m| {
                m.idempotent && role.forward && direction.is_some_and(|d| m.direction.goes(d))
            })
            .map(|m| string_literal(&m.wire))
            .collect();
        ServicesView {
            idempotent,
            forward: role.forward,
            client_name: role.client_name,
            batch_name: role.batch_name,
            server_name: role.server_name,
            dispatcher_name: role.dispatcher_name,
            title: title.clone(),
            client,
            server,
            sender: if role.forward { client } else { server },
            partial,
            batch: role.forward,
            discover: role.forward,
            document: string_literal(document),
            has_methods: !methods.is_empty(),
            has_subscribe: methods.iter().any(|m| m.is_subscribe),
            methods,
        }
    };
    let reverse = Some(view(Some(Direction::ServerToClient))).filter(|v| v.has_methods);
    let forward =
        Some(view(Some(Direction::ClientToServer))).filter(|v| v.has_methods || reverse.is_none());
    Views {
        shared: view(None),
        forward,
        reverse,
    }
}

/// The names of one direction's items.
struct Role {
    /// Client→server (or every method, for what both share).
    forward: bool,
    client_name: String,
    batch_name: String,
    server_name: String,
    dispatcher_name: String,
}

impl Role {
    fn of(name: &str, direction: Option<Direction>) -> Role {
        let forward = direction != Some(Direction::ServerToClient);
        let (client, server, dispatcher) = if forward {
            ("Client", "Server", "Dispatcher")
        } else {
            ("Push", "Listener", "ListenerDispatcher")
        };
        Role {
            forward,
            client_name: format!("{name}{client}"),
            batch_name: format!("{name}Batch"),
            server_name: format!("{name}{server}"),
            dispatcher_name: format!("{name}{dispatcher}"),
        }
    }
}

/// `text` made safe to appear inside a Rust string literal, in backticks in docs.
fn literal_text(text: &str) -> String {
    let literal = string_literal(&text.replace('`', "'"));
    literal[1..literal.len() - 1].to_owned()
}

fn method(
    m: &Method,
    services: &Services,
    defs: &[TypeDef],
    checks: Option<&Checks<'_>>,
) -> MethodView {
    let shown = literal_text(&m.wire);
    let mut text = m.docs.clone().unwrap_or_default();
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(&format!("Calls `{}`.", m.wire.replace('`', "'")));
    let fixed_len = m
        .params
        .iter()
        .rposition(|p| p.required)
        .map_or(0, |i| i + 1);
    let params: Vec<ParamView> = m
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| param(p, i, fixed_len, defs))
        .collect();
    let lengths = params
        .iter()
        .rev()
        .filter(|p| p.conditional)
        .map(|p| Length {
            rust: p.rust.clone(),
            count: p.index + 1,
        })
        .collect();
    let params_len = params.len();
    let check = checks.and_then(|c| params_checks(c, m));
    let errors: Vec<ErrorView> = m.errors.iter().map(|e| error(e, defs)).collect();
    let has_errors = !errors.is_empty() && m.result.is_some();
    let error_name = format!("{}Error", m.base);
    let subscribe = subscribe(m, services, defs);
    let unsubscribe = unsubscribe(m, services);
    let result_name = format!("{}Result", m.base);
    let result_ty = m.result.as_ref().map_or_else(
        || "()".to_owned(),
        |t| ty_expr(t, Spelling::beside_types(defs)),
    );
    MethodView {
        wire: string_literal(&m.wire),
        shown,
        rust: m.rust.clone(),
        docs: doc_attrs(&text),
        deprecated: m.deprecated,
        has_params: !params.is_empty(),
        has_streams: params.iter().any(|p| p.stream),
        decode: !params.is_empty(),
        has_check: check.is_some(),
        check,
        lengths,
        params,
        params_name: format!("{}Params", m.base),
        by_name: m.sends == ParamsBy::Name,
        tuple: m.sends != ParamsBy::Name
            && fixed_len == params_len
            && (1..=16).contains(&params_len),
        fixed_len,
        whole: m.whole,
        structure: match m.accepts {
            _ if m.whole => "Whole",
            ParamStructure::ByName => "ByName",
            ParamStructure::ByPosition => "ByPosition",
            ParamStructure::Either => "Either",
        },
        is_notification: m.result.is_none(),
        result_reexported: result_ty == format!("types::{result_name}"),
        result_name,
        result_ty,
        error_ty: if has_errors {
            error_name.clone()
        } else {
            "::std::convert::Infallible".to_owned()
        },
        has_errors,
        error_name,
        errors,
        is_subscribe: subscribe.is_some(),
        subscribe: subscribe.unwrap_or_default(),
        is_unsubscribe: unsubscribe.is_some(),
        unsubscribe: unsubscribe.unwrap_or_default(),
    }
}

/// The name of the static Feed of the subscribe method `m`.
fn feed_name(m: &Method) -> String {
    format!(
        "{}_FEED",
        m.rust.trim_start_matches("r#").to_ascii_uppercase()
    )
}

fn subscribe(m: &Method, services: &Services, defs: &[TypeDef]) -> Option<SubscribeView> {
    let Part::Subscribe(stream) = &m.part else {
        return None;
    };
    let unsubscribe = stream.unsubscribe.as_ref();
    let listed = unsubscribe.and_then(|u| services.methods.iter().find(|x| x.wire == u.method));
    let unsubscribe_by_position = unsubscribe.is_some_and(|u| u.positional)
        || listed.is_some_and(|u| u.sends == ParamsBy::Position);
    let unknown = listed.and_then(|u| unknown_id(u));
    Some(SubscribeView {
        item_ty: ty_expr(&stream.item, Spelling::beside_types(defs)),
        feed: feed_name(m),
        pull: stream.pull,
        notification: string_literal(&stream.notification),
        id_param: string_literal(&stream.id_param),
        item_param: string_literal(&stream.item_param),
        notification_shown: literal_text(&stream.notification),
        by_position: stream.by_position,
        has_unsubscribe: unsubscribe.is_some(),
        unsubscribe: unsubscribe.map_or_else(String::new, |u| string_literal(&u.method)),
        unsubscribe_param: unsubscribe.map_or_else(String::new, |u| string_literal(&u.param)),
        unsubscribe_by_position,
        answers_unsubscribe: unsubscribe.is_some_and(|u| first_unlisted(m, &u.method, services)),
        integer_ids: stream.integer_ids,
        has_end: stream.end.is_some(),
        end: stream
            .end
            .as_deref()
            .map_or_else(String::new, string_literal),
        has_unknown_id: unknown.is_some(),
        unknown_id: unknown.map_or(0, |e| e.code),
    })
}

/// The error an unsubscribe method answers for an unknown id: its single declared
/// error, if it declares exactly one.
fn unknown_id(unsubscribe: &Method) -> Option<&DeclaredError> {
    match unsubscribe.errors.as_slice() {
        [only] => Some(only),
        _ => None,
    }
}

/// Whether the unsubscribe method `name` is no method of the document and `m` is the
/// first subscription (in document order) it ends: the one whose dispatcher arm
/// answers it.
fn first_unlisted(m: &Method, name: &str, services: &Services) -> bool {
    if services.methods.iter().any(|x| x.wire == name) {
        return false;
    }
    let first = services.methods.iter().find(|x| match &x.part {
        Part::Subscribe(s) => s.unsubscribe.as_ref().is_some_and(|u| u.method == name),
        _ => false,
    });
    first.is_some_and(|x| x.wire == m.wire)
}

fn unsubscribe(m: &Method, services: &Services) -> Option<UnsubscribeView> {
    let Part::Unsubscribe { subscribe } = &m.part else {
        return None;
    };
    let of = services.methods.iter().find(|x| &x.wire == subscribe)?;
    let unknown = unknown_id(m);
    Some(UnsubscribeView {
        feed: feed_name(of),
        has_unknown: unknown.is_some(),
        unknown_code: unknown.map_or(0, |e| e.code),
        unknown_message: unknown.map_or_else(String::new, |e| string_literal(&e.message)),
    })
}

/// The checks of the params of `m`, as the body of its params struct's impl.
fn params_checks(checks: &Checks<'_>, m: &Method) -> Option<ImplView> {
    let types: Vec<Ty> = m
        .params
        .iter()
        .map(|p| {
            if p.required {
                p.ty.clone()
            } else {
                p.ty.clone().optional()
            }
        })
        .collect();
    let list: Vec<(&str, &str, &Ty, &Validation)> = m
        .params
        .iter()
        .zip(&types)
        .map(|(p, ty)| (p.rust.as_str(), p.wire.as_str(), ty, &p.validation))
        .collect();
    checks.params_impl(&list)
}

fn param(p: &Param, index: usize, fixed_len: usize, defs: &[TypeDef]) -> ParamView {
    let ty = if p.required {
        p.ty.clone()
    } else {
        p.ty.clone().optional()
    };
    let renamed = p.rust.trim_start_matches("r#") != p.wire;
    let mut text = p
        .docs
        .clone()
        .unwrap_or_else(|| format!("The `{}` param.", p.wire.replace('`', "'")));
    if p.deprecated {
        text.push_str("\n\nDeprecated.");
    }
    let mut ty = ty_expr(&ty, Spelling::beside_types(defs));
    if p.stream {
        ty = format!("__rt::Streamed<{ty}>");
    }
    ParamView {
        rust: p.rust.clone(),
        wire: string_literal(&p.wire),
        docs: doc_attrs(&text),
        rename: renamed.then(|| string_literal(&p.wire)),
        optional: !p.required,
        ty,
        index,
        conditional: index >= fixed_len,
        stream: p.stream,
    }
}

fn error(e: &DeclaredError, defs: &[TypeDef]) -> ErrorView {
    let mut docs = format!("`{}`: {}", e.code, e.message.trim());
    if e.data.is_some() {
        docs.push_str("\n\nCarries the error's `data`.");
    }
    let plain = e.message.trim() == e.message && !e.message.contains(char::is_control);
    ErrorView {
        variant: e.variant.clone(),
        doc: (!plain).then(|| string_literal(&doc_text(&docs))),
        code: e.code,
        message: string_literal(&e.message),
        has_data: e.data.is_some(),
        data_ty: e.data.as_ref().map_or_else(String::new, |t: &Ty| {
            ty_expr(t, Spelling::beside_types(defs))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(message: &str, data: Option<Ty>) -> ErrorView {
        let e = DeclaredError {
            code: -32001,
            message: message.to_owned(),
            variant: "Busy".to_owned(),
            data,
        };
        error(&e, &[])
    }

    #[test]
    fn a_variant_is_worded_by_the_macro_unless_its_message_is_not_one_trimmed_line() {
        assert_eq!(declared("busy", None).doc, None);
        assert_eq!(declared("busy", Some(Ty::Bool)).doc, None);
        assert_eq!(
            declared(" busy\n    try later ", None).doc.as_deref(),
            Some(r#"" `-32001`: busy\n    try later""#)
        );
        assert_eq!(
            declared("busy\nnow", Some(Ty::Bool)).doc.as_deref(),
            Some(r#"" `-32001`: busy\n now\n\n Carries the error's `data`.""#)
        );
    }
}
