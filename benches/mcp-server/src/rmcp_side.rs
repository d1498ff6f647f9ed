//! The MCP SDK for Rust's server of `add` (rmcp 3.x), written as its documentation and
//! tests write one: a `#[tool_router]`, a `ServerHandler`, its `StreamableHttpService`
//! (sessions kept, default settings) under hyper-util's server (what `axum::serve`
//! runs), or its `stdio()` transport.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::service::TowerToHyperService;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt as _, schemars, tool, tool_handler, tool_router};

/// `add`'s arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddRequest {
    a: i64,
    b: i64,
}

/// The server: one tool.
#[derive(Debug, Clone)]
struct Adder {
    tool_router: ToolRouter<Self>,
}

impl Adder {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }
}

#[tool_router]
impl Adder {
    #[tool(description = "Adds two numbers.")]
    fn add(&self, Parameters(AddRequest { a, b }): Parameters<AddRequest>) -> String {
        a.wrapping_add(b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Adder {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Serves Streamable HTTP on `address` until `stop`.
pub(crate) async fn http(
    address: SocketAddr,
    stop: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    crate::announce("rmcp", listener.local_addr()?);
    let service: StreamableHttpService<Adder, LocalSessionManager> = StreamableHttpService::new(
        || Ok(Adder::new()),
        Arc::default(),
        StreamableHttpServerConfig::default(),
    );
    let accept = async {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let service = TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                let _ = builder
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    };
    tokio::select! {
        () = accept => {}
        () = stop => {}
    }
    Ok(())
}

/// Serves one client on stdin and stdout until it closes them.
pub(crate) async fn stdio() -> std::io::Result<()> {
    let running = Adder::new()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}
