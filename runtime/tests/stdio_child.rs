//! The byte-stream peer over stdio: this test binary spawns itself as a child process
//! that serves on its own stdin/stdout, and talks to it through its pipes.
//!
//! It has its own `main` (`harness = false`): libtest would print to stdout, which is the
//! child's wire.

mod peer_support;

use peer_support::{PATIENCE, POLL, ServerSide, client_side, eventually};
use rpcsmith::client::Error;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use serde_json::value::RawValue;
use std::sync::Mutex;

const CHILD: &str = "RPCSMITH_STDIO_CHILD";

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    if let Ok(codec) = std::env::var(CHILD) {
        runtime.block_on(child(codec_named(&codec)));
        // How a stdio server ends (see `stream::stdio`): Tokio's stdin reader is a
        // blocking thread whose read cannot be cancelled, and dropping the runtime would
        // wait for it, so with stdin still open, returning from here would hang. Exit.
        std::process::exit(0);
    }
    let mut failed = 0;
    for codec in [Codec::Newline, Codec::ContentLength] {
        let tests: [(&str, MakeTest); 4] = [
            ("calls_push_and_callbacks", |c| {
                Box::pin(calls_push_and_callbacks(c)) as Test
            }),
            ("killed_child_fails_calls", |c| {
                Box::pin(killed_child_fails_calls(c)) as Test
            }),
            ("cancellation_reaches_the_child", |c| {
                Box::pin(cancellation(c)) as Test
            }),
            ("the_child_exits_with_its_stdin_still_open", |c| {
                Box::pin(exits_with_stdin_open(c)) as Test
            }),
        ];
        for (name, test) in tests {
            let outcome =
                runtime.block_on(async { tokio::time::timeout(PATIENCE * 2, test(codec)).await });
            let ok = matches!(outcome, Ok(Ok(())));
            println!(
                "test stdio::{codec:?}::{name} ... {}",
                if ok { "ok" } else { "FAILED" }
            );
            if !ok {
                eprintln!("  {outcome:?}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        std::process::exit(1);
    }
}

/// Runs one test against a child speaking `Codec`.
type MakeTest = fn(Codec) -> Test;

type Test = std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>>>>;

fn codec_named(name: &str) -> Codec {
    if name == "content-length" {
        Codec::ContentLength
    } else {
        Codec::Newline
    }
}

/// Serves until stdin ends, the connection breaks, or a `quit` notification comes;
/// `main` then exits the process.
async fn child(codec: Codec) {
    let (quit, quitting) = tokio::sync::oneshot::channel();
    let server = Quits {
        inner: ServerSide::default(),
        quit: Mutex::new(Some(quit)),
    };
    let peer = stream::stdio(
        Peer::builder().serve(Server::new(server)).cancel(true),
        codec,
    );
    tokio::select! {
        () = peer.closed() => {}
        _ = quitting => {}
    }
}

/// The child's dispatcher: [`ServerSide`], and `quit`, which tells `child` to return.
struct Quits {
    inner: ServerSide,
    quit: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl Dispatch for Quits {
    fn call(&self, method: &str, params: Option<&RawValue>, context: Context) -> Reply {
        if method != "quit" {
            return self.inner.call(method, params, context);
        }
        let quit = self.quit.lock().ok().and_then(|mut quit| quit.take());
        if let Some(quit) = quit {
            let _ = quit.send(());
        }
        Reply::ok(&())
    }
}

fn spawn(
    codec: Codec,
) -> Result<
    (
        Peer,
        tokio::process::Child,
        tokio::sync::mpsc::UnboundedReceiver<String>,
    ),
    String,
> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut command = tokio::process::Command::new(exe);
    let name = if codec == Codec::ContentLength {
        "content-length"
    } else {
        "newline"
    };
    command.env(CHILD, name);
    let (handlers, pushed) = client_side();
    let builder = Peer::builder()
        .serve(handlers)
        .cancel(true)
        .timeout(PATIENCE);
    let (peer, child) = stream::spawn(builder, codec, command).map_err(|e| e.to_string())?;
    Ok((peer, child, pushed))
}

fn check(condition: bool, what: &str) -> Result<(), String> {
    if condition {
        Ok(())
    } else {
        Err(what.to_owned())
    }
}

async fn calls_push_and_callbacks(codec: Codec) -> Result<(), String> {
    let (peer, _child, mut pushed) = spawn(codec)?;
    let client = peer.client();
    let sum: i64 = client
        .request("add", &[20, 22])
        .await
        .map_err(|e| e.to_string())?;
    check(sum == 42, "add")?;
    let mut batch = client.batch();
    let one = batch.request::<i64, _>("add", &[1, 0]);
    let two = batch.request::<i64, _>("ask", &[1]);
    let mut replies = batch.send().await.map_err(|e| e.to_string())?;
    check(
        replies.take(one).ok() == Some(1) && replies.take(two).ok() == Some(2),
        "batch",
    )?;
    let _: String = client
        .request("push", &["hi"])
        .await
        .map_err(|e| e.to_string())?;
    let note = tokio::time::timeout(PATIENCE, pushed.recv())
        .await
        .map_err(|e| e.to_string())?;
    check(note.as_deref() == Some(r#"["hi"]"#), "push")
}

async fn killed_child_fails_calls(codec: Codec) -> Result<(), String> {
    let (peer, mut child, _pushed) = spawn(codec)?;
    let client = peer.client().clone();
    let call = tokio::spawn(async move { client.request::<(), _>("hang", &()).await });
    check(
        eventually(|| peer.client().pending() == 1).await,
        "the call is pending",
    )?;
    child.kill().await.map_err(|e| e.to_string())?;
    let outcome = call.await.map_err(|e| e.to_string())?;
    // Closed, not a timeout (the call waits up to PATIENCE): the child's end did it.
    check(
        matches!(outcome, Err(Error::Closed)),
        &format!("Closed, got {outcome:?}"),
    )
}

async fn cancellation(codec: Codec) -> Result<(), String> {
    let (peer, _child, _pushed) = spawn(codec)?;
    let client = peer.client();
    // Keep polling the call while asking the child whether its handler has started,
    // so the cancellation cannot overtake the start.
    let mut call = Box::pin(client.request::<(), _>("hang", &()));
    let started = poll_child(client, "started");
    tokio::select! {
        outcome = &mut call => return Err(format!("hang answered {outcome:?}")),
        started = started => started?,
    }
    drop(call);
    // The child aborts the handler, answers the cancelled call with -32800 (ignored:
    // nobody waits for it) and goes on serving.
    poll_child(client, "aborted").await
}

/// The child ends by itself while this side keeps its stdin open: when told to quit,
/// and (with `Content-Length` framing) when a broken header ends the connection.
async fn exits_with_stdin_open(codec: Codec) -> Result<(), String> {
    let (peer, mut child, _pushed) = spawn(codec)?;
    peer.client()
        .notify("quit", &())
        .await
        .map_err(|e| e.to_string())?;
    let status = child.wait().await.map_err(|e| e.to_string())?;
    check(status.success(), &format!("quit: {status}"))?;
    drop(peer);
    if codec != Codec::ContentLength {
        return Ok(());
    }
    use tokio::io::AsyncWriteExt;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut child = tokio::process::Command::new(exe)
        .env(CHILD, "content-length")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin
        .write_all(b"Content-Length: many\r\n\r\n")
        .await
        .map_err(|e| e.to_string())?;
    stdin.flush().await.map_err(|e| e.to_string())?;
    let status = child.wait().await.map_err(|e| e.to_string())?;
    drop(stdin);
    check(status.success(), &format!("broken header: {status}"))
}

/// Asks the child `counter` until it answers 1, every [`POLL`] for up to [`PATIENCE`].
async fn poll_child(client: &rpcsmith::client::Client, counter: &str) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut ticks = tokio::time::interval(POLL);
    while tokio::time::Instant::now() < deadline {
        ticks.tick().await;
        let count: usize = client
            .request(counter, &())
            .await
            .map_err(|e| e.to_string())?;
        if count == 1 {
            return Ok(());
        }
    }
    Err(format!("the child's {counter} count never reached 1"))
}
