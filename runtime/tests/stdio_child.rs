//! The byte-stream peer over stdio: this test binary spawns itself as a child process
//! that serves on its own stdin/stdout, and talks to it through its pipes.
//!
//! It has its own `main` (`harness = false`): libtest would print to stdout, which is the
//! child's wire.

mod peer_support;

use peer_support::{PATIENCE, ServerSide, client_side, eventually};
use rpcsmith::client::Error;
use rpcsmith::server::Server;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use std::time::Duration;

const CHILD: &str = "RPCSMITH_STDIO_CHILD";

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    if let Ok(codec) = std::env::var(CHILD) {
        runtime.block_on(child(codec_named(&codec)));
        // Tokio's stdin reader is a blocking thread that cannot be cancelled: exit now.
        std::process::exit(0);
    }
    let mut failed = 0;
    for codec in [Codec::Newline, Codec::ContentLength] {
        let tests: [(&str, MakeTest); 3] = [
            ("calls_push_and_callbacks", |c| {
                Box::pin(calls_push_and_callbacks(c)) as Test
            }),
            ("killed_child_fails_calls", |c| {
                Box::pin(killed_child_fails_calls(c)) as Test
            }),
            ("cancellation_reaches_the_child", |c| {
                Box::pin(cancellation(c)) as Test
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

async fn child(codec: Codec) {
    let server = ServerSide::default();
    let peer = stream::stdio(
        Peer::builder().serve(Server::new(server)).cancel(true),
        codec,
    );
    peer.closed().await;
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
    // The child aborts the handler, answers the cancelled call with -32013 (ignored:
    // nobody waits for it) and goes on serving.
    poll_child(client, "aborted").await
}

/// Asks the child `counter` until it answers 1.
async fn poll_child(client: &rpcsmith::client::Client, counter: &str) -> Result<(), String> {
    for _ in 0..(PATIENCE.as_millis() / 10) {
        let count: usize = client
            .request(counter, &())
            .await
            .map_err(|e| e.to_string())?;
        if count == 1 {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Err(format!("the child's {counter} count never reached 1"))
}
