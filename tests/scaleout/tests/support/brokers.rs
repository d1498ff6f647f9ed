//! The brokers of the scale-out tests, each a real child process on loopback killed when
//! dropped, restartable on the same port: `redis-server` (plain, or with TLS and an ACL
//! user) and `nats-server` (user and password, or TLS and a token).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Stdio;

use tempfile::TempDir;
use tokio::process::{Child, Command};

use super::{free_port, installed, until_listening};

/// The instances' ping interval of their broker connections (milliseconds): short, so
/// that a broker gone silent is noticed soon.
const PING_MS: &str = "200";

/// The password of the brokers' users.
const PASSWORD: &str = "s3cret-Pa55";

/// How an instance reaches a broker: its URL, and the variables it reads its
/// credentials and certificate authority from.
#[derive(Clone, Debug)]
pub struct Link {
    pub url: String,
    pub env: Vec<(&'static str, String)>,
}

impl Link {
    /// The same link with `password` instead of the right one.
    pub fn with_password(&self, password: &str) -> Link {
        let mut link = self.clone();
        link.env
            .retain(|(name, _)| *name != "SCALEOUT_BROKER_PASSWORD");
        link.env
            .push(("SCALEOUT_BROKER_PASSWORD", password.to_owned()));
        link
    }
}

/// A fresh self-signed certificate for 127.0.0.1, written as `cert.pem` and `key.pem`
/// in `dir`; the path of the certificate (which clients trust as their authority).
fn certificate(dir: &TempDir) -> (PathBuf, PathBuf) {
    let certified = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert, certified.cert.pem()).unwrap();
    std::fs::write(&key, certified.signing_key.serialize_pem()).unwrap();
    (cert, key)
}

/// A broker process: its program and arguments, restartable.
struct Process {
    program: &'static str,
    args: Vec<String>,
    address: SocketAddr,
    log: PathBuf,
    child: Option<Child>,
}

impl Process {
    async fn start(&mut self) {
        let mut child = Command::new(self.program)
            .args(&self.args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|error| panic!("{} starts: {error}", self.program));
        until_listening(&mut child, self.address, self.program, &self.log).await;
        self.child = Some(child);
    }

    async fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().await.unwrap();
        }
    }

    /// Sends `signal` (`STOP`, `CONT`) to the running process.
    async fn signal(&self, signal: &str) {
        let pid = self.child.as_ref().and_then(Child::id).expect("running");
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status()
            .await
            .unwrap();
        assert!(status.success(), "kill -{signal} {pid}: {status}");
    }
}

/// A `redis-server` on a loopback port, persisting nothing.
pub struct Redis {
    pub address: SocketAddr,
    link: Link,
    process: Process,
    _dir: TempDir,
}

impl Redis {
    /// Plain TCP, no password.
    pub async fn start() -> Redis {
        Self::run(false).await
    }

    /// TLS only (no plain port), a self-signed certificate made for the test, and an
    /// ACL user `fanout` allowed `PUBLISH`, `SUBSCRIBE` and `PING` on the `scaleout`
    /// channels alone; the `default` user is off.
    pub async fn start_secure() -> Redis {
        Self::run(true).await
    }

    async fn run(secure: bool) -> Redis {
        let dir = tempfile::tempdir().unwrap();
        let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let log = dir.path().join("redis.log");
        // A configuration file: the ACL rules hold spaces, which arguments would quote.
        let mut config = format!(
            "bind 127.0.0.1\nsave \"\"\nappendonly no\ndir {}\nlogfile {}\n",
            dir.path().display(),
            log.display()
        );
        let port = address.port();
        let link = if secure {
            let (cert, key) = certificate(&dir);
            let (cert, key) = (cert.display().to_string(), key.display().to_string());
            config.push_str(&format!(
                "port 0\ntls-port {port}\ntls-cert-file {cert}\ntls-key-file {key}\n\
                 tls-ca-cert-file {cert}\ntls-auth-clients no\n\
                 user default off\n\
                 user fanout on >{PASSWORD} resetchannels &scaleout &scaleout.* -@all +publish +subscribe +ping\n"
            ));
            Link {
                url: format!("rediss://{address}"),
                env: vec![
                    ("SCALEOUT_BROKER_USER", "fanout".into()),
                    ("SCALEOUT_BROKER_PASSWORD", PASSWORD.into()),
                    ("SCALEOUT_BROKER_CA", cert),
                    ("SCALEOUT_BROKER_PING_MS", PING_MS.into()),
                ],
            }
        } else {
            config.push_str(&format!("port {port}\n"));
            Link {
                url: format!("redis://{address}"),
                env: vec![("SCALEOUT_BROKER_PING_MS", PING_MS.into())],
            }
        };
        let config_path = dir.path().join("redis.conf");
        std::fs::write(&config_path, config).unwrap();
        let args = vec![config_path.display().to_string()];
        let program = installed(option_env!("SCALEOUT_REDIS"), "redis-server");
        let mut redis = Redis {
            address,
            link,
            process: Process {
                program,
                args,
                address,
                log,
                child: None,
            },
            _dir: dir,
        };
        redis.process.start().await;
        redis
    }

    /// How instances reach it.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// Stops the server at once (SIGKILL) and waits for it to be gone.
    pub async fn kill(&mut self) {
        self.process.kill().await;
    }

    /// Starts it again, on the same port.
    pub async fn restart(&mut self) {
        self.process.start().await;
    }

    /// Stops the process without ending it (SIGSTOP): its connections stay open and
    /// silent, as behind a network partition.
    pub async fn pause(&self) {
        self.process.signal("STOP").await;
    }

    /// Lets a paused process go on (SIGCONT).
    pub async fn resume(&self) {
        self.process.signal("CONT").await;
    }
}

/// A `nats-server` on a loopback port.
pub struct Nats {
    link: Link,
    process: Process,
    _dir: TempDir,
}

impl Nats {
    /// Plain TCP, a user `fanout` with a password.
    pub async fn start() -> Nats {
        Self::run(false).await
    }

    /// TLS required, a self-signed certificate made for the test, and a token.
    pub async fn start_secure() -> Nats {
        Self::run(true).await
    }

    async fn run(secure: bool) -> Nats {
        let dir = tempfile::tempdir().unwrap();
        let address = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let log = dir.path().join("nats.log");
        let mut args: Vec<String> = vec![
            "-a".into(),
            "127.0.0.1".into(),
            "-p".into(),
            address.port().to_string(),
            "-l".into(),
            log.display().to_string(),
        ];
        let link = if secure {
            let (cert, key) = certificate(&dir);
            let cert = cert.display().to_string();
            args.extend(["--tls".into(), "--tlscert".into(), cert.clone()]);
            args.extend(["--tlskey".into(), key.display().to_string()]);
            args.extend(["--auth".into(), PASSWORD.into()]);
            Link {
                url: format!("tls://{address}"),
                env: vec![
                    ("SCALEOUT_BROKER_TOKEN", PASSWORD.into()),
                    ("SCALEOUT_BROKER_CA", cert),
                    ("SCALEOUT_BROKER_PING_MS", PING_MS.into()),
                ],
            }
        } else {
            args.extend(["--user".into(), "fanout".into()]);
            args.extend(["--pass".into(), PASSWORD.into()]);
            Link {
                url: format!("nats://{address}"),
                env: vec![
                    ("SCALEOUT_BROKER_USER", "fanout".into()),
                    ("SCALEOUT_BROKER_PASSWORD", PASSWORD.into()),
                    ("SCALEOUT_BROKER_PING_MS", PING_MS.into()),
                ],
            }
        };
        let program = installed(option_env!("SCALEOUT_NATS"), "nats-server");
        let mut nats = Nats {
            link,
            process: Process {
                program,
                args,
                address,
                log,
                child: None,
            },
            _dir: dir,
        };
        nats.process.start().await;
        nats
    }

    /// How instances reach it.
    pub fn link(&self) -> &Link {
        &self.link
    }

    /// Stops the server at once (SIGKILL) and waits for it to be gone.
    pub async fn kill(&mut self) {
        self.process.kill().await;
    }

    /// Starts it again, on the same port.
    pub async fn restart(&mut self) {
        self.process.start().await;
    }

    /// Stops the process without ending it (SIGSTOP): its connections stay open and
    /// silent, as behind a network partition.
    pub async fn pause(&self) {
        self.process.signal("STOP").await;
    }

    /// Lets a paused process go on (SIGCONT).
    pub async fn resume(&self) {
        self.process.signal("CONT").await;
    }
}
