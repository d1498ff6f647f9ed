//! Just enough of the W3C WebDriver protocol to open a page in headless Chromium
//! through `chromedriver` and read an element's text back: a session, a navigation,
//! and a script returning the text. Spoken over plain HTTP/1.1 (`Connection: close`)
//! with Tokio, as the harness needs nothing more.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};

/// How long the driver, and then the page, may take to get where the test waits.
const PATIENCE: Duration = Duration::from_secs(120);

/// A running `chromedriver` with one browser session, ended by [`Driver::quit`];
/// chromedriver is killed when it is dropped.
pub(crate) struct Driver {
    _process: Child,
    port: u16,
    session: String,
}

/// The browser's command line: headless, on a closed network, a fresh profile each
/// time (chromedriver makes one).
const ARGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

impl Driver {
    /// Starts `chromedriver` and opens a session of headless `chromium`.
    pub(crate) async fn start(chromedriver: &Path, chromium: &Path) -> Driver {
        // A free port for the driver: chromedriver takes a number, not a listener.
        let port = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let process = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("chromedriver starts");
        let mut driver = Driver {
            _process: process,
            port,
            session: String::new(),
        };
        wait_for("chromedriver to be ready", || async {
            driver_ready(port).await.then_some(())
        })
        .await;
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            // Navigation returns at once; the test then waits for the page's own state.
            "pageLoadStrategy": "none",
            "goog:chromeOptions": {"binary": chromium, "args": ARGS},
        }}});
        let created = driver.command("POST", "/session", Some(capabilities)).await;
        driver.session = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .to_owned();
        driver
    }

    /// Opens `url` in the session's window.
    pub(crate) async fn open(&self, url: &str) {
        let path = format!("/session/{}/url", self.session);
        self.command("POST", &path, Some(json!({"url": url}))).await;
    }

    /// The text of the element `id`, once `ready` says it is final.
    pub(crate) async fn text_once(&self, id: &str, ready: impl Fn(&str) -> bool) -> String {
        let path = format!("/session/{}/execute/sync", self.session);
        let script = json!({
            "script": "const e = document.getElementById(arguments[0]); return e ? e.textContent : null;",
            "args": [id],
        });
        wait_for("the page to finish", || async {
            let answer = self.command("POST", &path, Some(script.clone())).await;
            let text = answer["value"].as_str()?.to_owned();
            ready(&text).then_some(text)
        })
        .await
    }

    /// Ends the session: chromedriver closes its browser. (Dropping the driver without
    /// this kills chromedriver alone.)
    pub(crate) async fn quit(self) {
        let path = format!("/session/{}", self.session);
        self.command("DELETE", &path, None).await;
    }

    /// One WebDriver command: its JSON answer.
    async fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|body| body.to_string()).unwrap_or_default();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        let mut connection = TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        connection.write_all(request.as_bytes()).await.unwrap();
        let response = read_response(&mut connection).await;
        let response = String::from_utf8_lossy(&response);
        let (_, body) = response.split_once("\r\n\r\n").unwrap_or(("", ""));
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{method} {path}: {e}: {response}"))
    }
}

/// One HTTP response, head and body: read up to its `Content-Length` (chromedriver
/// says `Connection: close` but may keep the socket open).
async fn read_response(connection: &mut TcpStream) -> Vec<u8> {
    let mut response = Vec::new();
    let mut chunk = [0; 8192];
    loop {
        let read = connection.read(&mut chunk).await.unwrap();
        response.extend_from_slice(&chunk[..read]);
        let text = String::from_utf8_lossy(&response);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head.lines().find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())
                    .flatten()
            });
            if read == 0 || length.is_some_and(|length| body.len() >= length) {
                return response;
            }
        } else if read == 0 {
            return response;
        }
    }
}

/// Whether a driver answers on `port`.
async fn driver_ready(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).await.is_ok()
}

/// Polls `state` until it gives a value, for at most [`PATIENCE`]: a state the test
/// waits for, not a length of time. The state lives in other processes (chromedriver,
/// the page in Chromium), which offer nothing to wait on, so it is asked again every
/// 50 ms.
async fn wait_for<T, F: Future<Output = Option<T>>>(what: &str, mut state: impl FnMut() -> F) -> T {
    let polled = async {
        loop {
            if let Some(value) = state().await {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(PATIENCE, polled)
        .await
        .unwrap_or_else(|_| panic!("waited {PATIENCE:?} for {what}"))
}
