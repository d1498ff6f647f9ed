//! The harness's servers: a generated petstore and an Ethereum-shaped node, each HTTP
//! and WebSocket on one loopback port behind tower-http's CORS layer; a port that
//! accepts and never answers; a port nothing listens on; and the example page's files.

use std::path::PathBuf;
use std::sync::Mutex;

use http::{HeaderValue, Method, request::Parts};
use rpcsmith::http as rpc_http;
use rpcsmith::server::{Context, Failure, Items, Server, Sink, channel};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws;
use rpcsmith_browser::eth_newheads::{
    EthBlockNumberResult, EthChainIdResult, EthGetBlockHeaderByNumberResult, EthNewheadsDispatcher,
    EthNewheadsServer, types as eth,
};
use rpcsmith_browser::petstore::types::{Kind, NotFound, Pet, PetId};
use rpcsmith_browser::petstore::{GetPetError, PetstoreDispatcher, PetstoreServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};
use tower_layer::Layer;

/// The pets, in memory.
#[derive(Default)]
struct Store {
    pets: Mutex<Vec<Pet>>,
}

impl PetstoreServer for Store {
    async fn add_pet(
        &self,
        _cx: Context,
        name: String,
        kind: Kind,
        tags: Option<Vec<String>>,
    ) -> Result<Pet, Failure> {
        let mut pets = self.pets.lock().unwrap();
        let pet = Pet {
            id: pets.len() as PetId + 1,
            name,
            kind,
            tags,
        };
        pets.push(pet.clone());
        Ok(pet)
    }

    async fn list_pets(
        &self,
        _cx: Context,
        kind: Kind,
        limit: Option<u32>,
    ) -> Result<Vec<Pet>, Failure> {
        let pets = self.pets.lock().unwrap();
        let limit = limit.map_or(usize::MAX, |n| n as usize);
        Ok(pets
            .iter()
            .filter(|p| p.kind == kind)
            .take(limit)
            .cloned()
            .collect())
    }

    async fn get_pet(&self, _cx: Context, id: PetId) -> Result<Pet, Failure<GetPetError>> {
        let pets = self.pets.lock().unwrap();
        match pets.iter().find(|p| p.id == id) {
            Some(pet) => Ok(pet.clone()),
            None => Err(GetPetError::PetNotFound(NotFound { id }).into()),
        }
    }

    async fn pet_visited(&self, _cx: Context, _id: PetId) {}
}

/// Publishes heads 1, 2 and 3 to each new subscription, and keeps it open until the
/// client cancels it.
#[derive(Default)]
struct Node {
    sinks: Mutex<Vec<Sink<eth::Header>>>,
}

fn header(number: u64) -> eth::Header {
    eth::Header {
        number: format!("{number:#x}"),
        hash: format!("{:#066x}", u128::from(number) << 8 | 0xaa),
        parent_hash: format!("{:#066x}", u128::from(number.saturating_sub(1)) << 8 | 0xaa),
        timestamp: format!("{:#x}", 1_700_000_000 + number),
        gas_limit: "0x1c9c380".into(),
        gas_used: format!("{:#x}", 21_000 * number),
        base_fee_per_gas: Some("0x7".into()),
    }
}

impl EthNewheadsServer for Node {
    async fn eth_chain_id(&self, _cx: Context) -> Result<EthChainIdResult, Failure> {
        Ok("0x1".into())
    }

    async fn eth_block_number(&self, _cx: Context) -> Result<EthBlockNumberResult, Failure> {
        Ok("0x3".into())
    }

    async fn eth_get_block_header_by_number(
        &self,
        _cx: Context,
        _block_number: eth::Quantity,
    ) -> Result<EthGetBlockHeaderByNumberResult, Failure> {
        Ok(None)
    }

    async fn eth_subscribe(
        &self,
        _cx: Context,
        subscription_type: eth::SubscriptionType,
    ) -> Result<Items<eth::Header>, Failure> {
        let eth::SubscriptionType::NewHeads = subscription_type;
        let (sink, items) = channel(8);
        self.sinks.lock().unwrap().push(sink.clone());
        tokio::spawn(async move {
            for number in 1..=3 {
                if sink.send(header(number)).await.is_err() {
                    return;
                }
            }
        });
        Ok(items)
    }
}

/// The servers of one test; they stop when it ends (its runtime drops their tasks).
pub(crate) struct Servers {
    petstore: String,
    eth: String,
    silent: String,
    closed: String,
}

impl Servers {
    pub(crate) fn petstore_url(&self) -> &str {
        &self.petstore
    }

    pub(crate) fn eth_url(&self) -> &str {
        &self.eth
    }

    pub(crate) fn silent_url(&self) -> &str {
        &self.silent
    }

    pub(crate) fn closed_url(&self) -> &str {
        &self.closed
    }
}

/// Pages served from loopback (the test runner's, the example's) may call: the CORS
/// layer an application puts in front of the service for its own pages' origin.
fn cors() -> CorsLayer {
    let loopback = |origin: &HeaderValue, _: &Parts| {
        let origin = origin.as_bytes();
        origin.starts_with(b"http://127.0.0.1:") || origin.starts_with(b"http://localhost:")
    };
    CorsLayer::new()
        .allow_origin(AllowOrigin::predicate(loopback))
        .allow_methods([Method::POST])
        .allow_headers(AllowHeaders::mirror_request())
}

/// Serves `server` (HTTP and WebSocket) on a loopback port: its `http://…/` URL.
async fn serve(server: Server) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let service =
        rpc_http::Service::new(server).websocket(Peer::builder(), ws::Settings::default());
    tokio::spawn(rpc_http::serve(
        listener,
        cors().layer(service),
        std::future::pending(),
    ));
    format!("http://{address}/")
}

/// Starts the servers.
pub(crate) async fn start() -> Servers {
    let petstore = serve(Server::new(PetstoreDispatcher::new(Store::default()))).await;
    let eth = serve(Server::new(EthNewheadsDispatcher::new(Node::default()))).await;
    // Accepts, and holds each connection without reading or answering it.
    let silent = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_url = format!("http://{}/", silent.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((connection, _)) = silent.accept().await {
            held.push(connection);
        }
    });
    // Bound, then closed: nothing listens there.
    let closed = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let closed_url = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    Servers {
        petstore,
        eth,
        silent: silent_url,
        closed: closed_url,
    }
}

/// Serves the files under `root` (the example page) on a loopback port, one
/// `GET` per connection: its `http://…/` URL.
pub(crate) async fn serve_files(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut connection, _)) = listener.accept().await {
            let root = root.clone();
            tokio::spawn(async move {
                let mut head = vec![0; 8192];
                let Ok(read) = connection.read(&mut head).await else {
                    return;
                };
                let head = String::from_utf8_lossy(&head[..read]);
                let path = head.split(' ').nth(1).unwrap_or("/");
                let path = path
                    .split('?')
                    .next()
                    .unwrap_or("/")
                    .trim_start_matches('/');
                let file = (!path.contains(".."))
                    .then(|| std::fs::read(root.join(path)).ok())
                    .flatten();
                let response = match file {
                    Some(body) => {
                        let kind = match path.rsplit('.').next() {
                            Some("html") => "text/html; charset=utf-8",
                            Some("js") => "text/javascript",
                            Some("wasm") => "application/wasm",
                            _ => "application/octet-stream",
                        };
                        let mut out = format!(
                            "HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                            body.len()
                        )
                        .into_bytes();
                        out.extend(body);
                        out
                    }
                    None => {
                        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                            .to_vec()
                    }
                };
                let _ = connection.write_all(&response).await;
            });
        }
    });
    url
}
