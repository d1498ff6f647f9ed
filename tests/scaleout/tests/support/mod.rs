//! The processes of the scale-out tests, each a real child process on loopback killed
//! when dropped: the brokers ([`brokers`]), instances of `scaleout-instance`, and nginx in front
//! of them, each in a temporary directory of its own; and a WebSocket client that
//! collects what the server pushes.

#![allow(dead_code, unreachable_pub)] // Each test file uses its own part.

pub mod brokers;

use std::collections::{HashSet, VecDeque};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rpcsmith::client::Client;
use rpcsmith::http;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Reply, Server};
use rpcsmith::transport::peer::Peer;
use rpcsmith::transport::ws;
use serde_json::Value;
use serde_json::value::RawValue;
use tempfile::TempDir;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// Every wait of these tests ends after this long.
pub const PATIENCE: Duration = Duration::from_secs(20);
/// The pause between two looks at a state being polled.
const POLL: Duration = Duration::from_millis(10);

/// A free loopback port (bound, then let go for the child to bind).
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The path of `program` the build script found. A test run with `--ignored` where it
/// is missing fails here, saying so, rather than passing without it.
fn installed(found: Option<&'static str>, program: &str) -> &'static str {
    found.unwrap_or_else(|| {
        panic!("{program} is not installed (Debian: apt-get install nginx-light redis-server nats-server)")
    })
}

/// Waits until `address` accepts connections, while `child` has not exited.
async fn until_listening(child: &mut Child, address: SocketAddr, what: &str, log: &Path) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if tokio::net::TcpStream::connect(address).await.is_ok() {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(log).unwrap_or_default();
            panic!("{what} exited ({status}) before listening on {address}:\n{log}");
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} is not listening on {address} after {PATIENCE:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// One `scaleout-instance` process.
pub struct Instance {
    pub id: String,
    pub address: SocketAddr,
    _child: Child,
}

impl Instance {
    /// Starts instance `id`, linked to a broker if given; returns once it listens (it
    /// says so on its stdout).
    pub async fn start(id: &str, broker: Option<&brokers::Link>) -> Instance {
        let args: Vec<&str> = std::iter::once(id)
            .chain(broker.map(|link| link.url.as_str()))
            .collect();
        let env = broker.map_or(&[][..], |link| &link.env);
        Self::spawn(id, &args, env).await
    }

    async fn spawn(id: &str, args: &[&str], env: &[(&str, String)]) -> Instance {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scaleout-instance"))
            .args(args)
            .envs(env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("scaleout-instance starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(PATIENCE, lines.next_line())
            .await
            .expect("the instance says where it listens")
            .unwrap()
            .expect("the instance says where it listens before exiting");
        let address = line
            .strip_prefix("listening ")
            .and_then(|address| address.parse().ok())
            .unwrap_or_else(|| panic!("not an address: {line}"));
        Instance {
            id: id.to_owned(),
            address,
            _child: child,
        }
    }

    /// Starts instance `id` serving MCP's Streamable HTTP, its session ids starting
    /// with `id.` (`scaleout-instance --mcp ID`).
    pub async fn start_mcp(id: &str) -> Instance {
        Self::spawn(id, &["--mcp", id], &[]).await
    }

    /// An HTTP client of this instance alone (not through nginx).
    pub fn direct(&self) -> Client {
        Client::new(http::Client::new(&format!("http://{}/", self.address)).unwrap())
    }

    /// Waits until the instance's link to its broker is `up` (or down).
    pub async fn until_linked(&self, up: bool) {
        let client = self.direct();
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let linked: bool = client.request("linked", &()).await.unwrap();
            if linked == up {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "instance {}: linked is not {up} after {PATIENCE:?}",
                self.id
            );
            tokio::time::sleep(POLL).await;
        }
    }
}

/// nginx on a loopback port, proxying HTTP and WebSocket upgrades to `upstreams` in
/// turn. One process (`master_process off`), its files in a temporary directory.
pub struct Nginx {
    pub address: SocketAddr,
    _dir: TempDir,
    _child: Child,
}

impl Nginx {
    pub async fn start(upstreams: &[&Instance]) -> Nginx {
        let servers: String = upstreams
            .iter()
            .map(|instance| format!("        server {};\n", instance.address))
            .collect();
        Self::run(&CONFIG.replace("{servers}", &servers)).await
    }

    /// nginx in front of MCP instances (`Instance::start_mcp`): a request whose
    /// `Mcp-Session-Id` starts with an instance's id and a dot goes to that instance,
    /// any other (`initialize`, which has no session yet) to the next instance in
    /// turn. The guide's excerpt (`rpcsmith::guide::production`) is this `http` block.
    pub async fn start_mcp(upstreams: &[&Instance]) -> Nginx {
        let mut config = MCP_CONFIG.to_owned();
        let mut any = String::new();
        let mut map = String::new();
        let mut groups = String::new();
        for instance in upstreams {
            let (id, address) = (&instance.id, instance.address);
            any.push_str(&format!("        server {address};\n"));
            map.push_str(&format!("        ~^{id}\\.  mcp_{id};\n"));
            groups.push_str(&format!(
                "    upstream mcp_{id} {{\n        server {address};\n        keepalive 8;\n    }}\n"
            ));
        }
        config = config
            .replace("{any}", &any)
            .replace("{map}", &map)
            .replace("{groups}", &groups);
        Self::run(&config).await
    }

    /// Runs nginx with `config`, its `{dir}` and `{listen}` filled in.
    async fn run(config: &str) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let config = config
            .replace("{dir}", &dir.path().display().to_string())
            .replace("{listen}", &address.to_string());
        let config_path = dir.path().join("nginx.conf");
        std::fs::write(&config_path, config).unwrap();
        let log = dir.path().join("error.log");
        let mut child = Command::new(installed(option_env!("SCALEOUT_NGINX"), "nginx"))
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(&config_path)
            .arg("-e")
            .arg(&log)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("nginx starts");
        until_listening(&mut child, address, "nginx", &log).await;
        Nginx {
            address,
            _dir: dir,
            _child: child,
        }
    }

    /// An HTTP client of the front.
    pub fn http(&self) -> Client {
        Client::new(http::Client::new(&format!("http://{}/", self.address)).unwrap())
    }

    /// A WebSocket connection through the front, and what the server pushes on it.
    pub async fn websocket(&self) -> Subscriber {
        let (pushed, received) = mpsc::unbounded_channel();
        let builder = Peer::builder().serve(Server::new(Collector(pushed)));
        let url = format!("ws://{}/", self.address);
        let peer = ws::connect(url, builder, ws::Settings::default())
            .await
            .expect("a WebSocket through nginx");
        let client = peer.client();
        let instance: String = client.request("instance", &()).await.unwrap();
        Subscriber {
            instance,
            client: client.clone(),
            received,
            stashed: VecDeque::new(),
            _peer: peer,
        }
    }

    /// WebSocket connections through the front until each of `ids` has one (nginx
    /// gives each new connection to the next instance in turn), in the order of `ids`.
    pub async fn one_websocket_each(&self, ids: &[&str]) -> Vec<Subscriber> {
        let mut found: Vec<Subscriber> = Vec::new();
        for _ in 0..ids.len() * 3 {
            let seen: HashSet<&str> = found.iter().map(|s| s.instance.as_str()).collect();
            if ids.iter().all(|id| seen.contains(id)) {
                break;
            }
            let subscriber = self.websocket().await;
            if !seen.contains(subscriber.instance.as_str()) {
                found.push(subscriber);
            }
        }
        found.sort_by_key(|s| ids.iter().position(|id| *id == s.instance));
        let got: Vec<&str> = found.iter().map(|s| s.instance.as_str()).collect();
        assert_eq!(
            got, ids,
            "nginx spreads WebSocket connections over the instances"
        );
        found
    }
}

/// The front's configuration: `{dir}`, `{listen}` and `{servers}` are filled in. The
/// guide's excerpt (`rpcsmith::guide::production`) is this `http` block.
const CONFIG: &str = r#"
daemon off;
master_process off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

    # A WebSocket upgrade is passed on; plain requests reuse upstream connections.
    map $http_upgrade $connection_upgrade {
        default upgrade;
        ''      '';
    }
    upstream rpcsmith {
{servers}        keepalive 32;
    }
    server {
        listen {listen};
        location / {
            proxy_pass http://rpcsmith;
            proxy_set_header Host $http_host;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            # A WebSocket may stay quiet for long: the server pings every 30 s.
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }
    }
}
"#;

/// The front of MCP instances: `{dir}`, `{listen}`, `{any}` (a `server` line per
/// instance), `{map}` (a line `~^ID\.  mcp_ID;` per instance) and `{groups}` (an
/// `upstream mcp_ID` per instance) are filled in.
const MCP_CONFIG: &str = r#"
daemon off;
master_process off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;

    # A session id starts with the name of the instance that holds it ("a.0x…",
    # `Streaming::session_prefix`): its requests go there. A request without one
    # (`initialize`) goes to any instance, in turn.
    map $http_mcp_session_id $mcp_upstream {
{map}        default mcp_any;
    }
    upstream mcp_any {
{any}        keepalive 32;
    }
{groups}
    server {
        listen {listen};
        location / {
            proxy_pass http://$mcp_upstream;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # The client's Host, for the instances' Host allow-list.
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            # Events go out as the instance sends them; a GET stream stays open.
            proxy_buffering off;
            proxy_read_timeout 1h;
        }
    }
}
"#;

/// A WebSocket client through the front: the instance that serves it, and what it was
/// pushed (method, params), in order.
pub struct Subscriber {
    pub instance: String,
    pub client: Client,
    received: mpsc::UnboundedReceiver<(String, Value)>,
    /// Received while waiting for another method.
    stashed: VecDeque<(String, Value)>,
    _peer: Peer,
}

impl Subscriber {
    /// The params of the next notification `method` pushed (others are kept for their
    /// turn).
    pub async fn next(&mut self, method: &str) -> Value {
        if let Some(at) = self.stashed.iter().position(|(name, _)| name == method) {
            return self.stashed.remove(at).unwrap().1;
        }
        loop {
            let next = tokio::time::timeout(PATIENCE, self.received.recv()).await;
            let (name, params) = next
                .unwrap_or_else(|_| panic!("{}: no {method} within {PATIENCE:?}", self.instance))
                .expect("the connection is open");
            if name == method {
                return params;
            }
            self.stashed.push_back((name, params));
        }
    }
}

/// The client side's handler: what the server pushes goes to the channel.
struct Collector(mpsc::UnboundedSender<(String, Value)>);

impl Dispatch for Collector {
    fn call(&self, method: &str, params: Option<&RawValue>, _: Context) -> Reply {
        let params = params.map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap());
        let _ = self.0.send((method.to_owned(), params));
        Reply::err(ErrorObject::method_not_found())
    }
}
