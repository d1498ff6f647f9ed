//! The requests of a streaming service: `POST` (answered as JSON or as an event
//! stream), `GET` (the session's standalone stream, or a resumed one), `DELETE`.

use super::super::written::Data;
use super::events::{EventStream, Stop};
use super::log::Close;
use super::log::Refused;
use super::rules::{Calls, Carries, carries, initialised, parse_event_id};
use super::session::Session;
use super::table::Full;
use super::{Sse, Streaming};
use crate::http::server::answer::ResponseBody;
use crate::http::server::answer::{Answer, NoResponse, empty, json_body, refusal};
use crate::protocol::{self, ErrorObject};
use crate::server::{Held, InFlight, Metadata, Server, hold};
use ::http::header::{self, HeaderMap, HeaderValue};
use ::http::{Response, StatusCode};
use bytes::Bytes;
use std::net::IpAddr;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

/// A `POST` read whole, to handle.
pub(in crate::http) struct Post {
    pub(in crate::http) server: Server,
    pub(in crate::http) metadata: Metadata,
    pub(in crate::http) in_flight: Option<InFlight>,
    pub(in crate::http) no_response: NoResponse,
    /// Closes its connection, should its event stream stall.
    pub(in crate::http) close: Option<Close>,
}

impl Post {
    /// The request's headers (none when its metadata has none).
    fn headers(&self) -> &HeaderMap {
        static NONE: std::sync::LazyLock<HeaderMap> = std::sync::LazyLock::new(HeaderMap::new);
        self.metadata.headers.as_ref().unwrap_or(&NONE)
    }
}

/// A refusal, boxed: an answer is large, and refusals are rare.
pub(in crate::http) type Refusal<D> = Box<Answer<D>>;

/// Handles a `POST` of a streaming service: its session checked or started, then its
/// calls handled, answered as JSON, or as an event stream once a handler sends
/// something on it before the response.
pub(in crate::http) async fn post<D: Data>(
    sse: Arc<Sse>,
    post: Post,
    body: Bytes,
    guard: Box<dyn Send + Sync>,
) -> Answer<D> {
    let settings = &sse.settings;
    let no_response = no_response(settings.no_response.unwrap_or(post.no_response));
    let limits = post.server.limits();
    let carries = carries(&body, limits.max_batch_len, settings);
    if let (Carries::Unparsable(error), true) = (&carries, settings.unparsable) {
        return refusal(StatusCode::BAD_REQUEST, error);
    }
    let peer = post.metadata.peer.map(|peer| peer.ip());
    let (session, started) = match session_of(&sse, post.headers(), &carries, peer) {
        Ok(found) => found,
        Err(answer) => return *answer,
    };
    let calls = match carries {
        Carries::Responses => {
            session.deliver(body);
            return empty(no_response);
        }
        Carries::Cancel(id) => {
            if !session.cancel(&id) {
                tracing::debug!("a cancellation for no running call of its session");
            }
            return empty(no_response);
        }
        Carries::Unparsable(_) => Calls::UNPARSABLE,
        Carries::Calls(calls) => calls,
    };
    handle_calls(&sse, post, body, guard, (session, started), calls).await
}

/// Handles the calls of a `POST` on its session (`started` by it or not): answered
/// as JSON, or as an event stream once a handler sends something on it.
async fn handle_calls<D: Data>(
    sse: &Sse,
    post: Post,
    body: Bytes,
    guard: Box<dyn Send + Sync>,
    (session, started): (Arc<Session>, bool),
    calls: Calls,
) -> Answer<D> {
    let settings = &sse.settings;
    let no_response = no_response(settings.no_response.unwrap_or(post.no_response));
    let Calls {
        requests,
        initializes,
        single,
        batch,
    } = calls;
    let headers = post.headers();
    if batch && let Err(refused) = batches_allowed(settings, &session, headers) {
        return *refused;
    }
    // What the headers say is read before the metadata (holding them) goes to the
    // engine.
    let events = requests && accepts_events(headers) && !started;
    let priming = events
        .then(|| priming(settings, &session, headers))
        .flatten();
    if requests && !started {
        session.mark_used();
    }
    let calling = match sse.sessions.calling(&session) {
        Ok(calling) => calling,
        Err(full) => return busy(&full, "Too many calls in flight"),
    };
    let mut metadata = post.metadata;
    session.install(&mut metadata);
    let connection = match &post.in_flight {
        Some(in_flight) => post.server.connection_sharing(metadata, in_flight),
        None => post.server.connection(metadata),
    };
    let handling = session.cancellable(single, async move {
        let _calling = calling;
        hold(async move { connection.handle(&body).await }).await
    });
    let handling = async move { handling.await.unwrap_or_default() };
    let mut answer = if events {
        streamed(&session, handling, guard, (priming, post.close)).await
    } else {
        let (answer, held) = handling.await;
        if started {
            let started = (answer, held);
            return start(sse, &session, started, initializes.as_deref(), no_response);
        }
        let mut answer = whole(answer, no_response);
        release_when_sent(&mut answer, held);
        answer
    };
    if started && let Some(id) = session.id().and_then(|id| HeaderValue::try_from(id).ok()) {
        answer.headers_mut().insert(settings.header.clone(), id);
    }
    answer
}

/// Answers the `POST` that started `session`: the session is admitted, and its id
/// sent, only when the starting call succeeded (and the table still has room). The
/// subscriptions the starting call made (a session started by a subscribe call) send
/// their items once the answer is sent; a start refused ends them with the session.
fn start<D: Data>(
    sse: &Sse,
    session: &Arc<Session>,
    (answer, held): (Option<Vec<u8>>, Held),
    id: Option<&str>,
    no_response: StatusCode,
) -> Answer<D> {
    let field = sse.settings.revision_field.as_deref();
    let outcome = answer
        .as_deref()
        .zip(id)
        .and_then(|(answer, id)| initialised(answer, id, field));
    let Some(revision) = outcome else {
        // A failed start starts nothing.
        session.end();
        return whole(answer, no_response);
    };
    if let Some(revision) = revision {
        session.set_revision(revision);
    }
    if let Err(full) = sse.sessions.admit(session) {
        session.end();
        return busy(&full, "Too many sessions");
    }
    let mut answer = whole(answer, no_response);
    if let Some(id) = session.id().and_then(|id| HeaderValue::try_from(id).ok()) {
        answer.headers_mut().insert(sse.settings.header.clone(), id);
    }
    release_when_sent(&mut answer, held);
    answer
}

/// `503`, `Retry-After`, `-32009`.
fn busy<D: Data>(full: &Full, message: &'static str) -> Answer<D> {
    let mut answer = refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        &ErrorObject::new(protocol::code::SERVER_BUSY, message),
    );
    answer
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(full.retry_after));
    answer
}

/// The revision a request of `session` speaks: the one its start negotiated, else the
/// request's protocol version header.
fn revision<'a>(
    settings: &Streaming,
    session: &'a Session,
    headers: &'a HeaderMap,
) -> Option<&'a str> {
    session.revision().or_else(|| {
        let (name, _) = settings.versions.as_ref()?;
        headers.get(name)?.to_str().ok()
    })
}

/// The refusal of a batch on a session whose revision removed batches.
fn batches_allowed<D: Data>(
    settings: &Streaming,
    session: &Session,
    headers: &HeaderMap,
) -> Result<(), Refusal<D>> {
    let (Some(until), Some(revision)) = (
        &settings.batches_until,
        revision(settings, session, headers),
    ) else {
        return Ok(());
    };
    if revision <= &**until {
        return Ok(());
    }
    Err(Box::new(refusal(
        StatusCode::BAD_REQUEST,
        &ErrorObject::new(
            protocol::code::INVALID_REQUEST,
            format!("Batches are not supported in protocol revision {revision}"),
        ),
    )))
}

/// The `retry:` of a stream's priming event, when the session's revision primes.
fn priming(settings: &Streaming, session: &Session, headers: &HeaderMap) -> Option<Duration> {
    let (from, retry) = settings.priming.as_ref()?;
    let revision = revision(settings, session, headers)?;
    (revision >= &**from).then_some(*retry)
}

fn no_response(status: NoResponse) -> StatusCode {
    match status {
        NoResponse::NoContent => StatusCode::NO_CONTENT,
        NoResponse::Accepted => StatusCode::ACCEPTED,
    }
}

fn whole<D: Data>(answer: Option<Vec<u8>>, no_response: StatusCode) -> Answer<D> {
    match answer {
        Some(answer) => json_body(StatusCode::OK, D::from_vec(answer)),
        None => empty(no_response),
    }
}

/// The session a `POST` belongs to, and whether it starts it; or the refusal.
fn session_of<D: Data>(
    sse: &Sse,
    headers: &HeaderMap,
    carries: &Carries,
    peer: Option<IpAddr>,
) -> Result<(Arc<Session>, bool), Refusal<D>> {
    let settings = &sse.settings;
    if settings.initialize.is_none() {
        return Ok((sse.sessions.ephemeral(peer), false));
    }
    if headers.contains_key(&settings.header) {
        return find(sse, headers).map(|session| (session, false));
    }
    match carries {
        Carries::Calls(Calls {
            initializes: Some(_),
            ..
        }) => match sse.sessions.begin(peer) {
            Ok(session) => Ok((session, true)),
            Err(full) => Err(Box::new(busy(&full, "Too many sessions"))),
        },
        _ if settings.require => Err(Box::new(missing_session())),
        _ => Ok((sse.sessions.ephemeral(peer), false)),
    }
}

fn missing_session<D: Data>() -> Answer<D> {
    refusal(
        StatusCode::BAD_REQUEST,
        &ErrorObject::new(protocol::code::INVALID_REQUEST, "Missing session id"),
    )
}

/// The live session the request's header names: `400` without one, `404` when
/// unknown or expired.
fn find<D: Data>(sse: &Sse, headers: &HeaderMap) -> Result<Arc<Session>, Refusal<D>> {
    let Some(id) = headers.get(&sse.settings.header) else {
        return Err(Box::new(missing_session()));
    };
    id.to_str()
        .ok()
        .and_then(|id| sse.sessions.find(id))
        .ok_or_else(|| {
            Box::new(refusal(
                StatusCode::NOT_FOUND,
                &ErrorObject::new(protocol::code::INVALID_REQUEST, "Session not found"),
            ))
        })
}

/// Whether the client takes `text/event-stream` (named, not by a wildcard: only then
/// is an event stream sent).
pub(in crate::http) fn accepts_events(headers: &HeaderMap) -> bool {
    media_ranges(headers).any(|range| range.eq_ignore_ascii_case("text/event-stream"))
}

/// The media ranges of the `Accept` headers, parameters left out.
fn media_ranges(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|kind| kind.split(';').next().unwrap_or_default().trim())
}

/// Whether a range of `Accept` covers `text/event-stream`, a wildcard's included: a
/// `GET` for the session's stream.
pub(in crate::http) fn takes_events(headers: &HeaderMap) -> bool {
    takes(headers, "text", "event-stream")
}

/// Whether a range of `Accept` covers `kind/sub` (`*/*`, `kind/*`, or itself).
fn takes(headers: &HeaderMap, kind: &str, sub: &str) -> bool {
    media_ranges(headers).any(|range| match range.split_once('/') {
        Some(("*", "*")) => true,
        Some((k, "*")) => k.eq_ignore_ascii_case(kind),
        Some((k, s)) => k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(sub),
        None => false,
    })
}

/// Under [`Streaming::require_accept`](super::Streaming::require_accept), the `406`
/// of a `POST` whose `Accept` lacks `application/json` or `text/event-stream`, or of a
/// `GET` whose lacks `text/event-stream`.
pub(in crate::http) fn check_accept<D: Data>(
    sse: &Sse,
    method: &::http::Method,
    headers: &HeaderMap,
) -> Result<(), Refusal<D>> {
    let events = || takes(headers, "text", "event-stream");
    let acceptable = match *method {
        _ if !sse.settings.accept => true,
        ::http::Method::POST => takes(headers, "application", "json") && events(),
        ::http::Method::GET => events(),
        _ => true,
    };
    if acceptable {
        return Ok(());
    }
    let wanted = if *method == ::http::Method::GET {
        "text/event-stream"
    } else {
        "both application/json and text/event-stream"
    };
    Err(Box::new(refusal(
        StatusCode::NOT_ACCEPTABLE,
        &ErrorObject::new(
            protocol::code::INVALID_REQUEST,
            format!("Not Acceptable: the Accept header must list {wanted}"),
        ),
    )))
}

/// Handles calls whose answer may be an event stream: held until the first event or
/// the response, whichever comes first.
async fn streamed<D: Data, F>(
    session: &Arc<Session>,
    handling: F,
    guard: Box<dyn Send + Sync>,
    (priming, close): (Option<Duration>, Option<Close>),
) -> Answer<D>
where
    F: Future<Output = (Option<Vec<u8>>, Held)> + Send + 'static,
{
    let attached = session.log().open_post();
    let stream = attached.0;
    let mut handling = Box::pin(session.on_stream(stream, handling));
    let first = std::future::poll_fn(|cx| {
        if let Poll::Ready(done) = handling.as_mut().poll(cx) {
            return Poll::Ready(Some(done));
        }
        if session.log().watch(stream, cx.waker()) {
            Poll::Ready(None)
        } else {
            Poll::Pending
        }
    })
    .await;
    match first {
        Some((answer, held)) if !session.log().has_unread(stream) => {
            let mut log = session.log();
            log.close_post(stream);
            log.detach(attached.0, attached.1);
            drop(log);
            let mut answer = whole(answer, StatusCode::OK);
            release_when_sent(&mut answer, held);
            answer
        }
        Some((answer, held)) => {
            finish(session, stream, answer).await;
            let events = EventStream::new(Arc::clone(session), attached, None, guard);
            let mut answer = event_stream(events.primed(priming).watched(close));
            release_when_sent(&mut answer, held);
            answer
        }
        None => {
            let task_session = Arc::clone(session);
            tokio::spawn(async move {
                let (answer, held) = handling.await;
                finish(&task_session, stream, answer).await;
                held.release();
            });
            let events = EventStream::new(Arc::clone(session), attached, None, guard);
            event_stream(events.primed(priming).watched(close))
        }
    }
}

/// Lets the subscriptions a message started send their items (on the session's
/// stream) once its answer has been sent: so that they follow it to the client,
/// which routes them by the id the answer carries, rather than race it on another
/// connection.
fn release_when_sent<D: Data>(answer: &mut Answer<D>, held: Held) {
    /// Releases its subscriptions when dropped.
    struct Release(Option<Held>);
    impl Drop for Release {
        fn drop(&mut self) {
            if let Some(held) = self.0.take() {
                held.release();
            }
        }
    }
    if !held.is_empty() {
        answer
            .body_mut()
            .keep_until_sent(Box::new(Release(Some(held))));
    }
}

/// Ends a `POST` stream with its response.
async fn finish(session: &Session, stream: u64, answer: Option<Vec<u8>>) {
    match answer {
        Some(answer) => {
            // An ended session has no stream to end.
            let _ = session.append(stream, answer.into(), true).await;
        }
        None => session.log().close_post(stream),
    }
}

fn event_stream<D: Data>(events: EventStream) -> Answer<D> {
    let mut answer = Response::new(ResponseBody::events(events));
    let headers = answer.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    answer
}

/// Opens a `GET` stream: the session's standalone stream, or with `Last-Event-ID` the
/// stream it names, from after that event.
pub(in crate::http) fn get<D: Data>(
    sse: &Sse,
    headers: &HeaderMap,
    (stop, close): (Option<Stop>, Option<Close>),
    guard: Box<dyn Send + Sync>,
) -> Answer<D> {
    let session = match find(sse, headers) {
        Ok(session) => session,
        Err(answer) => return *answer,
    };
    let resume = match headers.get("last-event-id") {
        None => None,
        Some(id) => match parse_event_id(id.as_bytes()) {
            Some(resume) => Some(resume),
            None => {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    &ErrorObject::new(protocol::code::INVALID_REQUEST, "Malformed Last-Event-ID"),
                );
            }
        },
    };
    let priming = priming(&sse.settings, &session, headers);
    match session.attach_get(resume) {
        Ok(attached) => {
            let events = EventStream::new(session, attached, stop, guard);
            event_stream(events.primed(priming).watched(close))
        }
        Err(Refused::Busy) => refusal(
            StatusCode::CONFLICT,
            &ErrorObject::new(
                protocol::code::INVALID_REQUEST,
                "The stream is open already: it has a reader",
            ),
        ),
        Err(Refused::Unknown) => refusal(
            StatusCode::BAD_REQUEST,
            &ErrorObject::new(
                protocol::code::INVALID_REQUEST,
                "Last-Event-ID names no event of this session",
            ),
        ),
        Err(Refused::Gone) => refusal(
            StatusCode::GONE,
            &ErrorObject::new(
                protocol::code::INVALID_REQUEST,
                "Events after Last-Event-ID are no longer held",
            ),
        ),
    }
}

/// Ends the session the header names: `200`, or `400`/`404` as for any request.
pub(in crate::http) fn delete<D: Data>(sse: &Sse, headers: &HeaderMap) -> Answer<D> {
    let Some(id) = headers.get(&sse.settings.header) else {
        return missing_session();
    };
    if id.to_str().is_ok_and(|id| sse.sessions.end(id)) {
        empty(StatusCode::OK)
    } else {
        refusal(
            StatusCode::NOT_FOUND,
            &ErrorObject::new(protocol::code::INVALID_REQUEST, "Session not found"),
        )
    }
}

/// The refusal of a request whose protocol version header holds a value not listed.
pub(in crate::http) fn check_version<D: Data>(
    sse: &Sse,
    headers: &HeaderMap,
) -> Result<(), Refusal<D>> {
    let Some((name, versions)) = &sse.settings.versions else {
        return Ok(());
    };
    let Some(value) = headers.get(name) else {
        return Ok(());
    };
    if versions
        .iter()
        .any(|version| version.as_bytes() == value.as_bytes())
    {
        return Ok(());
    }
    Err(Box::new(refusal(
        StatusCode::BAD_REQUEST,
        &ErrorObject::new(
            protocol::code::INVALID_REQUEST,
            format!(
                "Unsupported protocol version (supported: {})",
                versions.join(", ")
            ),
        ),
    )))
}
