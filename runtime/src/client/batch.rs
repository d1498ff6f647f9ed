//! Typed batches: several calls and notifications in one message, each call read back
//! through its own typed [`Handle`].

use super::error::UntypedFailure;
use super::pending::{Answer, Ids, Outcome, Registration};
use super::port::Delivery;
use super::send::{Cancel, Sending, failure};
use super::{Carries, Cite, Client, DeclaredError, Error, Shared, route, span};
use crate::protocol::{mismatch, write_typed_call};
use bytes::Bytes;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::convert::Infallible;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use tracing::Instrument;

/// Tells the batches of a process apart, so a handle only reads its own batch.
static SERIAL: AtomicU64 = AtomicU64::new(0);

/// Calls and notifications sent together as one JSON-RPC batch; made by
/// [`Client::batch`].
///
/// Each [`request`](Batch::request) returns a typed [`Handle`]; after
/// [`send`](Batch::send), each handle reads its own entry's result from the
/// [`Replies`], in any order, whatever order the server answered in. The entries are
/// written into one buffer as they are added.
pub struct Batch {
    client: Client,
    message: Vec<u8>,
    entries: usize,
    calls: Vec<Call>,
    serial: u64,
}

enum Call {
    Sent(u64),
    Unsent(serde_json::Error),
}

/// The typed ticket for one call of a [`Batch`]: `R` is its result type, `E` its
/// declared error type. Read it with [`Replies::take`].
#[must_use = "a handle is the only way to read its call's result"]
pub struct Handle<R, E = Infallible> {
    serial: u64,
    index: usize,
    cite: Cite,
    types: PhantomData<fn() -> (R, E)>,
}

/// The answers to a sent [`Batch`], read entry by entry through their handles.
pub struct Replies {
    serial: u64,
    entries: Vec<Option<Entry>>,
}

enum Entry {
    Answered(Outcome),
    Unsent(serde_json::Error),
}

impl Batch {
    pub(crate) fn new(client: Client) -> Self {
        Self {
            client,
            message: Vec::with_capacity(256),
            entries: 0,
            calls: Vec::new(),
            serial: SERIAL.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Adds a call of `method`, which declares no errors, `params` as in
    /// [`Client::request`], and returns the handle that reads its result as `R`.
    ///
    /// Params that cannot be serialised leave the call out of the message; its handle
    /// then reads [`Error::Encode`].
    pub fn request<R, P>(&mut self, method: &str, params: &P) -> Handle<R>
    where
        R: DeserializeOwned,
        P: Serialize + ?Sized,
    {
        self.request_declared(method, params)
    }

    /// Adds a call of `method`, whose declared errors are `E`, as in
    /// [`request`](Self::request).
    pub fn request_declared<R, E, P>(&mut self, method: &str, params: &P) -> Handle<R, E>
    where
        R: DeserializeOwned,
        E: DeclaredError,
        P: Serialize + ?Sized,
    {
        let id = self.client.next_id();
        let call = match self.push(Some(id), method, params) {
            Ok(()) => Call::Sent(id),
            Err(error) => Call::Unsent(error),
        };
        self.calls.push(call);
        Handle {
            serial: self.serial,
            index: self.calls.len() - 1,
            cite: self.client.cite(method),
            types: PhantomData,
        }
    }

    /// Adds a notification of `method`, `params` as in [`Client::request`].
    ///
    /// # Errors
    ///
    /// [`Error::Encode`] when the params cannot be serialised to an array or an
    /// object; the notification is left out of the batch.
    pub fn notify<P>(&mut self, method: &str, params: &P) -> Result<(), Error>
    where
        P: Serialize + ?Sized,
    {
        self.push(None, method, params).map_err(Error::Encode)
    }

    /// How many entries (calls and notifications) the message holds.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether the message holds no entry yet.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    fn push<P>(&mut self, id: Option<u64>, method: &str, params: &P) -> serde_json::Result<()>
    where
        P: Serialize + ?Sized,
    {
        let start = self.message.len();
        self.message
            .push(if self.entries == 0 { b'[' } else { b',' });
        match write_typed_call(&mut self.message, id, method, params) {
            Ok(()) => {
                self.entries += 1;
                Ok(())
            }
            Err(error) => {
                self.message.truncate(start);
                Err(error)
            }
        }
    }

    /// Sends the batch as one message and waits for the answers.
    ///
    /// An empty batch is not sent (JSON-RPC forbids `[]`); a batch of notifications
    /// only waits for the transport to deliver it.
    ///
    /// # Errors
    ///
    /// The batch fails as a whole only when it could not be sent or no answer came
    /// in time: transport errors and [`Error::Timeout`] (and [`Error::Undeclared`]
    /// when a batch of notifications is refused with an error whose id is null).
    /// Everything else (error responses, missing responses, a closed connection,
    /// results that do not fit) is each entry's own, read through its handle.
    pub async fn send(mut self) -> Result<Replies, Error> {
        let ids: Vec<u64> = self
            .calls
            .iter()
            .filter_map(|call| match call {
                Call::Sent(id) => Some(*id),
                Call::Unsent(_) => None,
            })
            .collect();
        let mut outcomes = Vec::new().into_iter();
        if self.entries > 0 {
            self.message.push(b']');
            let message = Bytes::from(std::mem::take(&mut self.message));
            let shared = &self.client.shared;
            let sending = Sending::new(
                self.client.timeout,
                shared.carries(|| Carries::Batch {
                    entries: self.entries,
                }),
            );
            let span = span::batch(self.entries);
            let sent = if ids.is_empty() {
                shared
                    .notify(message, sending)
                    .instrument(span.clone())
                    .await
                    .map(|()| Vec::new())
            } else {
                shared
                    .call_many(&ids, message, sending)
                    .instrument(span.clone())
                    .await
            };
            span::record(&span, &sent);
            outcomes = sent.map_err(UntypedFailure::into_error)?.into_iter();
        }
        let entries = self
            .calls
            .into_iter()
            .map(|call| match call {
                Call::Sent(_) => outcomes.next().map(Entry::Answered),
                Call::Unsent(error) => Some(Entry::Unsent(error)),
            })
            .collect();
        Ok(Replies {
            serial: self.serial,
            entries,
        })
    }
}

impl Shared {
    /// Sends the calls `ids` (ascending) as one message and waits for all outcomes,
    /// in the order of `ids`.
    async fn call_many(
        &self,
        ids: &[u64],
        message: Bytes,
        sending: Sending,
    ) -> Result<Vec<Outcome>, UntypedFailure> {
        if self.request_response {
            return self.exchange_many(ids, message, sending).await;
        }
        let Sending {
            timeout, carries, ..
        } = sending;
        let receivers: Vec<_> = ids.iter().map(|&id| self.pending.insert(id)).collect();
        let mut registration = Registration::new(&self.pending, Ids::Many(ids));
        // Dropped before the registration: cancels the calls still waiting, one by one.
        let mut cancel = Cancel::new(self, Ids::Many(ids));
        let exchange = async {
            match self.send(message, carries, None).await {
                Ok(Delivery::Answer(answer)) => route::route_answer(&self.pending, &answer, ids),
                Ok(Delivery::NoAnswer) => {
                    for &id in ids {
                        self.pending.complete(id, Err(UntypedFailure::Missing));
                    }
                }
                Ok(Delivery::Routed) => cancel.arm(),
                Err(error) => return Err(failure(error)),
            }
            let mut outcomes = Vec::with_capacity(receivers.len());
            for receiver in receivers {
                let delivered = receiver.await.unwrap_or(Err(UntypedFailure::Closed));
                outcomes.push(delivered.and_then(Answer::read));
            }
            registration.settled();
            cancel.disarm();
            Ok(outcomes)
        };
        super::rt::timeout(timeout, exchange)
            .await
            .unwrap_or(Err(UntypedFailure::Timeout))
    }
}

impl Shared {
    /// [`call_many`](Shared::call_many) over a request/response transport: the
    /// outcomes are read from the answer `send` returns.
    async fn exchange_many(
        &self,
        ids: &[u64],
        message: Bytes,
        sending: Sending,
    ) -> Result<Vec<Outcome>, UntypedFailure> {
        let mut outcomes = vec![None; ids.len()];
        self.exchange_into(ids, message, sending, &mut outcomes)
            .await?;
        Ok(outcomes
            .into_iter()
            .map(|outcome| outcome.unwrap_or(Err(UntypedFailure::Missing)))
            .collect())
    }
}

impl Replies {
    /// Reads the result of `handle`'s call.
    ///
    /// # Errors
    ///
    /// The entry's own failure: [`Error::Declared`] or [`Error::Undeclared`] for an
    /// error response, [`Error::MissingResponse`] when the server's answer had none
    /// for this call (also for a handle of another batch), [`Error::Decode`] when the
    /// result does not fit `R`, [`Error::Encode`] when the call was never sent, and
    /// [`Error::Closed`] when the connection closed first.
    pub fn take<R, E>(&mut self, handle: Handle<R, E>) -> Result<R, Error<E>>
    where
        R: DeserializeOwned,
        E: DeclaredError,
    {
        if handle.serial != self.serial {
            return Err(Error::MissingResponse);
        }
        match self.entries.get_mut(handle.index).and_then(Option::take) {
            Some(Entry::Answered(Ok(result))) => {
                mismatch::from_slice(&result).map_err(|m| Error::Decode(handle.cite.cite(m)))
            }
            Some(Entry::Answered(Err(failure))) => Err(failure.into_error()),
            Some(Entry::Unsent(error)) => Err(Error::Encode(error)),
            None => Err(Error::MissingResponse),
        }
    }

    /// How many calls the batch held (notifications not counted).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the batch held no call.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl fmt::Debug for Batch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Batch")
            .field("entries", &self.entries)
            .field("calls", &self.calls.len())
            .finish_non_exhaustive()
    }
}

impl<R, E> fmt::Debug for Handle<R, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Handle")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for Replies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Replies")
            .field("calls", &self.entries.len())
            .finish_non_exhaustive()
    }
}
