//! The HTTP client reading event streams: a `POST` answered as one (resumed with
//! `Last-Event-ID` when it drops before its response), and the session's `GET` stream,
//! opened again whenever it drops, for as long as the client lives.

use super::pool::Lease;
use super::streaming::Streams;
use crate::client::{Delivery, SendFuture, TransportError, TransportErrorKind};
use crate::http::sse::{Event, Parser};
use ::http::{Response, StatusCode};
use bytes::Bytes;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;

/// An answer to a `GET`, with the connection it came on.
pub(super) type Opened<'a> = Result<(Response<Incoming>, Lease<'a>), TransportError>;

/// What reading streams needs of the HTTP client: its exchanges, and a handle on it
/// that does not keep it alive.
pub(super) trait Exchanges: Send + Sync + Sized + 'static {
    /// The handle that does not keep the client alive.
    type Weak: Send + Sync + 'static;
    fn downgrade(&self) -> Self::Weak;
    fn upgrade(weak: &Self::Weak) -> Option<Self>;
    /// Posts `message` in the session.
    fn post(&self, message: Bytes) -> SendFuture<'_>;
    /// Opens a `GET` event stream of the session, after `last` when given.
    fn get<'a>(
        &'a self,
        streams: &'a Streams,
        last: Option<&'a str>,
    ) -> Pin<Box<dyn Future<Output = Opened<'a>> + Send + 'a>>;
    /// The largest event read.
    fn max_event(&self) -> usize;
}

/// Whether an answer is an event stream.
pub(super) fn is_event_stream(response: &Response<Incoming>) -> bool {
    response
        .headers()
        .get(::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// What reading a stream came to.
struct Read {
    /// A response was among its events.
    answered: bool,
    /// How many messages it carried.
    events: usize,
    /// It ended cleanly (not dropped).
    whole: bool,
}

/// Where a dropped stream resumes, and when.
#[derive(Debug, Default)]
struct Resume {
    /// The id of the last event read, data or not.
    last_id: Option<String>,
    /// The server's last `retry:`, which replaces the settings' pause.
    retry: Option<Duration>,
}

impl Resume {
    fn pause(&self, streams: &Streams) -> Duration {
        self.retry.unwrap_or(streams.settings.retry)
    }

    /// Follows `event`'s `id:` and `retry:`, where it has them.
    fn follow(&mut self, event: &Event) {
        if event.id.is_some() {
            self.last_id.clone_from(&event.id);
        }
        if event.retry.is_some() {
            self.retry = event.retry;
        }
    }
}

/// Reads an event stream, handing each message to the client or its listener and
/// posting back the listener's answers; `resume` follows the events' ids and `retry:`.
/// With `until_answered` (a `POST`'s stream resumed by a `GET`, which the server may
/// keep open as the session's stream), the reading stops at the response.
async fn pump<C: Exchanges>(
    client: &C::Weak,
    streams: &Streams,
    body: Incoming,
    max: usize,
    resume: &mut Resume,
    until_answered: bool,
) -> Read {
    let mut body = body;
    let mut parser = Parser::new(max);
    let mut read = Read {
        answered: false,
        events: 0,
        whole: false,
    };
    loop {
        loop {
            match parser.next() {
                Ok(Some(event)) => {
                    resume.follow(&event);
                    if event.data.is_empty() {
                        continue;
                    }
                    read.events += 1;
                    let (answer, response) = streams.receive(event.data).await;
                    read.answered |= response;
                    if let Some(answer) = answer {
                        post_back::<C>(client, answer.into()).await;
                    }
                    if until_answered && read.answered {
                        return read;
                    }
                }
                Ok(None) => break,
                Err(_) => {
                    tracing::warn!(max, "an event over the size limit: the stream is dropped");
                    return read;
                }
            }
        }
        match body.frame().await {
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    parser.push(&data);
                }
            }
            Some(Err(error)) => {
                tracing::debug!(%error, "an event stream broke");
                return read;
            }
            None => {
                read.whole = true;
                return read;
            }
        }
    }
}

/// Posts the listener's answer to a request of the server, in the session.
fn post_back<C: Exchanges>(
    client: &C::Weak,
    answer: Bytes,
) -> Pin<Box<dyn Future<Output = ()> + Send>> {
    let client = C::upgrade(client);
    Box::pin(async move {
        if let Some(client) = client
            && let Err(error) = client.post(answer).await
        {
            tracing::debug!(%error, "an answer to the server's request could not be posted");
        }
    })
}

/// Reads the event stream answering a `POST`, resuming it while it drops before its
/// response.
pub(super) async fn read_post<C: Exchanges>(
    client: &C,
    streams: &Streams,
    response: Response<Incoming>,
    lease: Lease<'_>,
) -> Result<Delivery, TransportError> {
    let weak = client.downgrade();
    let max = client.max_event();
    let mut resume = Resume::default();
    let read = pump::<C>(
        &weak,
        streams,
        response.into_body(),
        max,
        &mut resume,
        false,
    )
    .await;
    if read.whole {
        lease.release();
    }
    let mut answered = read.answered;
    let mut failures = 0;
    while !answered {
        let Some(last) = resume.last_id.clone() else {
            return Err(ended());
        };
        if failures >= streams.settings.resume_attempts {
            return Err(ended());
        }
        // Production code, not a test: the pause before resuming is the server's `retry:`
        // (or the configured backoff), a wall-clock wait by definition.
        tokio::time::sleep(resume.pause(streams)).await;
        let read = match client.get(streams, Some(&last)).await {
            Ok((response, lease)) if response.status() == StatusCode::OK => {
                let read =
                    pump::<C>(&weak, streams, response.into_body(), max, &mut resume, true).await;
                if read.whole {
                    lease.release();
                }
                read
            }
            Ok((response, _)) => {
                tracing::debug!(status = %response.status(), "an event stream could not be resumed");
                return Err(ended());
            }
            Err(_) => Read {
                answered: false,
                events: 0,
                whole: false,
            },
        };
        answered = read.answered;
        failures = if read.events == 0 { failures + 1 } else { 0 };
    }
    Ok(Delivery::Routed)
}

fn ended() -> TransportError {
    TransportError::new(
        TransportErrorKind::Io,
        "the event stream ended before its response and could not be resumed",
    )
}

/// Keeps the session's `GET` stream open while the client lives: opened again after a
/// pause when it drops (resuming after its last event), until the server says it has
/// none (`405`), the session is gone (`404`), another is open (`409`), or attempts in a
/// row fail.
pub(super) async fn keep_open<C: Exchanges>(
    client: C::Weak,
    streams: Arc<Streams>,
    mut stop: watch::Receiver<()>,
) {
    let mut resume = Resume::default();
    let mut failures = 0;
    loop {
        let Some(strong) = C::upgrade(&client) else {
            return;
        };
        let max = strong.max_event();
        let opened = open_owned(strong, &streams, resume.last_id.clone()).await;
        let read = match opened {
            Ok(response) if response.status() == StatusCode::OK => {
                tokio::select! {
                    read = pump::<C>(&client, &streams, response.into_body(), max, &mut resume, false) => read.events,
                    _ = stop.changed() => return,
                }
            }
            Ok(response) => match response.status() {
                StatusCode::GONE => {
                    tracing::warn!("the session's stream resumed too late: events were lost");
                    resume.last_id = None;
                    0
                }
                StatusCode::NOT_FOUND => {
                    streams.forget_session();
                    return;
                }
                status => {
                    tracing::debug!(%status, "the session's stream is not open");
                    return;
                }
            },
            Err(error) => {
                tracing::debug!(%error, "the session's stream could not be opened");
                0
            }
        };
        failures = if read == 0 { failures + 1 } else { 0 };
        if failures > streams.settings.resume_attempts {
            tracing::warn!("the session's stream keeps failing: given up");
            return;
        }
        // The server's `retry:` pause before reopening (a wall-clock wait by definition).
        tokio::select! {
            () = tokio::time::sleep(resume.pause(&streams)) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Opens a `GET` stream with a client that is then let go: the answer does not keep
/// it alive (the connection serves this one stream: an HTTP/1.1 one closes with it,
/// HTTP/2 streams share theirs).
async fn open_owned<C: Exchanges>(
    client: C,
    streams: &Streams,
    last: Option<String>,
) -> Result<Response<Incoming>, TransportError> {
    let (response, lease) = client.get(streams, last.as_deref()).await?;
    drop(lease);
    Ok(response)
}
