//! Byte streams: stdio, TCP and Unix sockets, framed by a [`Codec`], carrying a
//! symmetric [`Peer`].
//!
//! Any `AsyncRead` + `AsyncWrite` pair can carry a peer ([`Builder::framed`]); this
//! module adds the usual ends:
//!
//! | side | stdio | TCP | Unix socket |
//! |---|---|---|---|
//! | open | [`spawn`] a child process and talk to its stdin/stdout | [`connect_tcp`] | [`connect_unix`] |
//! | accept | [`stdio`]: serve on this process's own stdin/stdout | [`serve_tcp`] | [`serve_unix`] |
//! | reconnect | | [`Reconnecting::tcp`] | [`Reconnecting::unix`] |
//!
//! With [`Codec::ContentLength`], cancellation (`$/cancelRequest`) is on unless the
//! builder says otherwise ([`Builder::cancel`]), as the Language Server Protocol expects.
//!
//! A frame over the size limit is answered `-32007` with `id: null` as soon as it is
//! known to be too large (from its `Content-Length` header, or when a line passes the
//! limit), never held in memory: its bytes are dropped as they arrive. A
//! newline-framed message that is not JSON is answered `-32700`. Both leave the
//! connection open. A broken `Content-Length` header block closes the connection (it
//! cannot be resynchronised); other connections of the same server are unaffected.
//!
//! What waits to be written to the other side is bounded by the peer's
//! [`byte_budget`](super::peer::Builder::byte_budget) (4 MiB by default): past it the
//! connection reads no more frames until the other side has taken enough, so a peer
//! that sends without reading stalls itself rather than make this side buffer its
//! answers; one that takes nothing for the
//! [`stall_timeout`](super::peer::Builder::stall_timeout) is dropped.
//!
//! ```no_run
//! # async fn demo(server: rpcsmith::server::Server) -> std::io::Result<()> {
//! use rpcsmith::transport::peer::Peer;
//! use rpcsmith::transport::stream::{self, Codec};
//!
//! // A server on 127.0.0.1:7000, one message per line, until `stop` is sent.
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:7000").await?;
//! let builder = Peer::builder().serve(server);
//! let shutdown = async { let _ = stopped.await; };
//! stream::serve_tcp(listener, builder, Codec::Newline, shutdown).await;
//! # drop(stop);
//! # Ok(()) }
//! ```

mod framing;
mod listen;
mod reconnect;

pub use framing::{Codec, FrameError, FrameReader, write_frame};
pub use listen::{serve_tcp, serve_unix};
pub use reconnect::{ConnectionState, Reconnect, Reconnecting};

use super::peer::wire::{Outgoing, Received, Wire};
use super::peer::{Builder, Peer};
use futures_util::Stream;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};

impl Builder {
    /// Starts a peer on a byte stream: frames of `codec` read from `reader`, written to
    /// `writer`. Needs a Tokio runtime (it spawns the connection's task).
    pub fn framed<R, W>(self, codec: Codec, reader: R, writer: W) -> Peer
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let builder = self.cancel_by_default(codec == Codec::ContentLength);
        let wire = framed(&builder, codec, reader, writer);
        builder.start(wire)
    }
}

/// A byte stream as a peer made by `builder` (its message limit) carries it.
fn framed<R, W>(builder: &Builder, codec: Codec, reader: R, writer: W) -> Framed<W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let frames = FrameReader::new(BufReader::new(reader), codec, builder.message_limit());
    Framed {
        frames: Box::pin(frames_of(frames)),
        writer,
        codec,
        out: Vec::new(),
        written: 0,
    }
}

/// Serves on this process's own stdin and stdout (a language server, an MCP tool).
/// Nothing else may write to stdout meanwhile: log to stderr.
///
/// # Exiting
///
/// Tokio reads stdin on a blocking thread whose read cannot be cancelled, and dropping a
/// runtime waits for its blocking threads. So a program that returns from `main` while
/// its stdin is still open hangs until the other side writes or closes it: after the
/// connection ended for another reason than the end of stdin (a broken `Content-Length`
/// header), or when the program stops by itself (the other side asked it to quit). End
/// the process with [`std::process::exit`] instead, once [`Peer::closed`] has returned
/// (what was queued to be sent is written by then) or your own quit signal came:
///
/// ```no_run
/// # use rpcsmith::server::{Context, Dispatch, Reply};
/// # struct Tools;
/// # impl Dispatch for Tools {
/// #     fn call(&self, _: &str, _: Option<&serde_json::value::RawValue>, _: Context) -> Reply {
/// #         Reply::ok(&())
/// #     }
/// # }
/// use rpcsmith::server::Server;
/// use rpcsmith::transport::peer::Peer;
/// use rpcsmith::transport::stream::{self, Codec};
///
/// #[tokio::main]
/// async fn main() {
///     let peer = stream::stdio(Peer::builder().serve(Server::new(Tools)), Codec::Newline);
///     peer.closed().await;
///     // Not `return`: stdin's reader thread may still be blocked in a read.
///     std::process::exit(0);
/// }
/// ```
pub fn stdio(builder: Builder, codec: Codec) -> Peer {
    let builder = builder.accepted_on(crate::metrics::Transport::Stdio);
    builder.framed(codec, tokio::io::stdin(), tokio::io::stdout())
}

/// Starts `command` as a child process with piped stdin and stdout, and talks to it.
/// The child is killed when the returned [`tokio::process::Child`] is dropped (unless
/// the command says otherwise); its stderr is inherited.
///
/// # Errors
///
/// The process could not be started.
pub fn spawn(
    builder: Builder,
    codec: Codec,
    mut command: tokio::process::Command,
) -> io::Result<(Peer, tokio::process::Child)> {
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(io::Error::other("the child's stdio is not piped"));
    };
    Ok((builder.framed(codec, stdout, stdin), child))
}

/// Connects to a TCP server.
///
/// # Errors
///
/// The connection could not be made.
pub async fn connect_tcp(
    builder: Builder,
    codec: Codec,
    address: impl tokio::net::ToSocketAddrs,
) -> io::Result<Peer> {
    let stream = tokio::net::TcpStream::connect(address).await?;
    stream.set_nodelay(true)?;
    let (reader, writer) = stream.into_split();
    Ok(builder.framed(codec, reader, writer))
}

/// Connects to a Unix-socket server.
///
/// # Errors
///
/// The connection could not be made.
#[cfg(unix)]
pub async fn connect_unix(
    builder: Builder,
    codec: Codec,
    path: impl AsRef<std::path::Path>,
) -> io::Result<Peer> {
    let stream = tokio::net::UnixStream::connect(path).await?;
    let (reader, writer) = stream.into_split();
    Ok(builder.framed(codec, reader, writer))
}

/// What is read from a byte stream, frame by frame.
fn frames_of<R>(reader: FrameReader<BufReader<R>>) -> impl Stream<Item = Received> + Send
where
    R: AsyncRead + Unpin + Send + 'static,
{
    futures_util::stream::unfold(reader, |mut reader| async move {
        let received = match reader.read().await {
            Ok(Some(message)) => Received::Message(message.into()),
            Ok(None) => Received::Closed,
            Err(error) if error.is_recoverable() => {
                tracing::debug!(%error, "skipped a frame");
                Received::TooLarge
            }
            Err(error) => {
                tracing::debug!(%error, "closing the stream");
                Received::Closed
            }
        };
        Some((received, reader))
    })
}

/// Frames buffered before [`Wire::poll_ready`] writes them out.
const FLUSH_AT: usize = 64 * 1024;
/// A write buffer grown past this (by one large message) is freed once written.
const KEEP: usize = 1 << 20;

/// A byte stream as the peer's [`Wire`].
struct Framed<W> {
    frames: Pin<Box<dyn Stream<Item = Received> + Send>>,
    writer: W,
    codec: Codec,
    /// Frames to write, from `written` on.
    out: Vec<u8>,
    written: usize,
}

impl<W: AsyncWrite + Unpin> Framed<W> {
    fn poll_write_out(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some(rest) = self.out.get(self.written..).filter(|rest| !rest.is_empty()) {
            let n = ready!(Pin::new(&mut self.writer).poll_write(cx, rest))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.written = 0;
        if self.out.capacity() > KEEP {
            self.out = Vec::new();
        } else {
            self.out.clear();
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> Wire for Framed<W> {
    fn poll_receive(&mut self, cx: &mut Context<'_>) -> Poll<Received> {
        self.frames
            .as_mut()
            .poll_next(cx)
            .map(|received| received.unwrap_or(Received::Closed))
    }

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.out.len() < FLUSH_AT {
            return Poll::Ready(Ok(()));
        }
        self.poll_write_out(cx)
    }

    fn send(&mut self, message: Outgoing) -> io::Result<()> {
        framing::put_frame(&mut self.out, self.codec, message.as_bytes());
        Ok(())
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.poll_write_out(cx))?;
        Pin::new(&mut self.writer).poll_flush(cx)
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if let Err(error) = ready!(self.poll_flush(cx)) {
            tracing::debug!(%error, "writing to the stream failed as it closed");
            return Poll::Ready(());
        }
        if let Err(error) = ready!(Pin::new(&mut self.writer).poll_shutdown(cx)) {
            tracing::debug!(%error, "closing the stream failed");
        }
        Poll::Ready(())
    }
}
