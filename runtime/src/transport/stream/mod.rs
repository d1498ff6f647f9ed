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

pub use framing::{Codec, FrameError, FrameReader, write_frame};
pub use listen::{serve_tcp, serve_unix};

use super::peer::wire::{Incoming, Outgoing, Received};
use super::peer::{Builder, Peer};
use bytes::Bytes;
use std::io;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};

impl Builder {
    /// Starts a peer on a byte stream: frames of `codec` read from `reader`, written to
    /// `writer`. Needs a Tokio runtime (it spawns the connection's tasks).
    pub fn framed<R, W>(self, codec: Codec, reader: R, writer: W) -> Peer
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let builder = self.cancel_by_default(codec == Codec::ContentLength);
        let limit = builder.message_limit();
        let incoming = Frames(FrameReader::new(BufReader::new(reader), codec, limit));
        let outgoing = Writer {
            writer: BufWriter::new(writer),
            codec,
        };
        builder.start(incoming, outgoing)
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

struct Frames<R>(FrameReader<BufReader<R>>);

impl<R: AsyncRead + Unpin + Send + 'static> Incoming for Frames<R> {
    async fn next(&mut self) -> Received {
        match self.0.read().await {
            Ok(Some(message)) => Received::Message(message),
            Ok(None) => Received::Closed,
            Err(error) if error.is_recoverable() => {
                tracing::debug!(%error, "skipped a frame");
                Received::TooLarge
            }
            Err(error) => {
                tracing::debug!(%error, "closing the stream");
                Received::Closed
            }
        }
    }
}

struct Writer<W> {
    writer: BufWriter<W>,
    codec: Codec,
}

impl<W: AsyncWrite + Unpin + Send + 'static> Outgoing for Writer<W> {
    async fn write(&mut self, message: Bytes) -> io::Result<()> {
        framing::put_frame(&mut self.writer, self.codec, &message).await
    }

    async fn flush(&mut self) -> io::Result<()> {
        self.writer.flush().await
    }

    async fn close(&mut self) {
        let _ = self.writer.shutdown().await;
    }
}
