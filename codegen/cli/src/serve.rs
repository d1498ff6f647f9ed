//! `rpcsmith mock`: a document's methods served by [`rpcsmith_cli::mock::Mock`] over
//! HTTP with WebSocket on the same port, or over stdio, each call logged on stderr.
//!
//! (A module of the `rpcsmith` binary, kept apart from its argument parsing.)

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use rpcsmith::http;
use rpcsmith::server::Server;
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::stream::{self, Codec};
use rpcsmith::transport::ws;
use rpcsmith_cli::mock::{Dispatcher, Mock};

/// `rpcsmith mock`'s arguments.
#[derive(Debug, Args)]
pub(crate) struct MockArgs {
    /// The OpenRPC document (JSON).
    #[arg(value_name = "DOC")]
    document: PathBuf,
    /// A directory where files named by `$ref`s are looked for. Repeatable.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// The address to serve HTTP (and WebSocket, on the same port) on; port 0 picks a
    /// free one. The address taken is printed on stderr.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8545")]
    listen: String,
    /// Serve on standard input and output (one JSON message per line) instead of HTTP.
    #[arg(long)]
    stdio: bool,
    /// The seed of generated values: the same seed gives the same answers.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Answer METHOD with its declared error CODE (its first declared error without
    /// `=CODE`). Repeatable.
    #[arg(long = "error", value_name = "METHOD[=CODE]")]
    errors: Vec<String>,
}

/// Runs the mock until interrupted (or, on stdio, until the input ends).
pub(crate) fn run(args: &MockArgs) -> anyhow::Result<ExitCode> {
    let options = args
        .include
        .iter()
        .fold(rpcsmith_build::Options::new(), |o, dir| o.include_dir(dir));
    let document = match rpcsmith_build::load_document(&args.document, &options) {
        Ok(document) => document,
        Err(error) => {
            for d in error.diagnostics() {
                writeln!(std::io::stderr(), "{d}").context("cannot write to standard error")?;
            }
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut mock = Mock::new(document, args.seed);
    for request in &args.errors {
        let (method, code) = match request.split_once('=') {
            Some((method, code)) => {
                let code = code
                    .parse()
                    .with_context(|| format!("--error {request}: the code is not an integer"))?;
                (method, Some(code))
            }
            None => (request.as_str(), None),
        };
        mock.fail(method, code)
            .map_err(|e| anyhow::anyhow!("--error {request}: {e}"))?;
    }
    let methods = mock.methods().count();
    let dispatcher = Dispatcher::new(mock).log(|line| {
        // A closed stderr is not worth stopping the mock for.
        let _ = writeln!(std::io::stderr(), "mock: {line}");
    });
    let server = Server::new(dispatcher);
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(serve(args, server, methods))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(args: &MockArgs, server: Server, methods: usize) -> anyhow::Result<()> {
    let doc = args.document.display();
    if args.stdio {
        eprintln!("mock: serving {methods} methods of {doc} on stdio");
        let peer = stream::stdio(Peer::builder().serve(server), Codec::Newline);
        peer.closed().await;
        // Not `return`: stdin's reader thread may still be blocked in a read.
        std::process::exit(0);
    }
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let address = listener.local_addr().context("no local address")?;
    let service = http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
    eprintln!("mock: serving {methods} methods of {doc} on http://{address} and ws://{address}");
    let interrupted = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    http::serve(listener, service, interrupted).await;
    Ok(())
}
