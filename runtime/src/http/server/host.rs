//! Which host names the server answers to: the `Host` allow-list, against DNS
//! rebinding; and, with the `Origin` allow-list and the endpoint path, whether a
//! request is admitted at all.
//!
//! A page of another site can rebind its own host name to `127.0.0.1` and then call a
//! server listening on loopback from the user's browser. The browser still names that
//! site in `Host` (and, for cross-site requests, in `Origin`, which
//! [`Origins`](super::Origins) checks): a loopback listener that answers only to
//! loopback names is out of its reach, whatever `Origin` says or leaves out.

use super::answer::{Answer, refusal as refused};
use super::origin::Origins;
use super::written::Data;
use crate::protocol::{self, ErrorObject};
use ::http::header::{self, HeaderMap};
use ::http::uri::Authority;
use ::http::{Request, StatusCode};
use std::net::{IpAddr, SocketAddr};

/// Who and what a service answers: pages by `Origin`, host names, the path.
#[derive(Debug, Clone, Default)]
pub(super) struct Admission {
    pub(super) origins: Origins,
    pub(super) hosts: Hosts,
    pub(super) path: Option<Box<str>>,
}

/// The refusal of a request from a page, or to a host or path, the service does not
/// answer; `peer` and `local` are the connection's addresses, when known.
pub(super) fn refusal<B, D: Data>(
    admission: &Admission,
    request: &Request<B>,
    (peer, local): (Option<SocketAddr>, Option<SocketAddr>),
) -> Option<Answer<D>> {
    if !admission.origins.accepts(request.headers(), peer) {
        return Some(forbidden("Origin not allowed"));
    }
    let local = local
        .or_else(|| {
            let socket = request.extensions().get::<super::Socket>();
            socket.and_then(|socket| socket.local)
        })
        .or(peer);
    let authority = request.uri().authority();
    if !admission.hosts.accepts(request.headers(), authority, local) {
        return Some(forbidden("Host not allowed"));
    }
    match &admission.path {
        Some(path) if **path != *request.uri().path() => Some(refused(
            StatusCode::NOT_FOUND,
            &ErrorObject::new(protocol::code::INVALID_REQUEST, "Not found"),
        )),
        _ => None,
    }
}

fn forbidden<D: Data>(message: &'static str) -> Answer<D> {
    refused(
        StatusCode::FORBIDDEN,
        &ErrorObject::new(protocol::code::INVALID_REQUEST, message),
    )
}

/// The host names a [`Service`](super::Service) answers to, by the request's `Host`
/// header (or, over HTTP/2, its `:authority`); see
/// [`Service::hosts`](super::Service::hosts).
///
/// The default, [`Hosts::default`]:
///
/// | listener | `Host` accepted |
/// |---|---|
/// | loopback (`127.0.0.0/8`, `::1`) | `localhost`, a loopback address (`127.0.0.1`, `[::1]`), any port; and the names [allowed](Hosts::allow) |
/// | any other address | any |
///
/// Any other `Host` is answered `403 Forbidden` with a JSON-RPC error body
/// (`-32600`, `id: null`), before anything else is read. A request naming no host
/// at all (HTTP/1.0) is accepted: browsers always name one. The listener's address is
/// known under [`serve`](super::serve); mounted elsewhere, the peer's address stands
/// in for it (a loopback peer reached a loopback listener, or one on every address).
///
/// ```
/// use rpcsmith::http::Hosts;
///
/// // Behind a reverse proxy on the same machine that forwards `mcp.example`:
/// let hosts = Hosts::default().allow("mcp.example");
/// // Only these names, whatever the listener:
/// let strict = Hosts::only(["api.example", "api.example:8443"]);
/// # drop((hosts, strict));
/// ```
#[derive(Debug, Clone)]
pub struct Hosts {
    allowed: Vec<Box<str>>,
    /// Whether loopback names are accepted on a loopback listener, and any name on
    /// any other.
    by_listener: bool,
    any: bool,
}

impl Default for Hosts {
    fn default() -> Self {
        Self {
            allowed: Vec::new(),
            by_listener: true,
            any: false,
        }
    }
}

impl Hosts {
    /// Answers whatever `Host` a request names (no check at all).
    pub fn any() -> Self {
        Self {
            any: true,
            ..Self::default()
        }
    }

    /// Answers only to these names, whatever the listener: a name alone (`mcp.example`)
    /// matches it on any port, `name:port` on that port only.
    pub fn only<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let mut hosts = Self {
            by_listener: false,
            ..Self::default()
        };
        for name in names {
            hosts = hosts.allow(name);
        }
        hosts
    }

    /// Answers to `name` too: a name alone matches it on any port, `name:port` on that
    /// port only. Compared without regard to ASCII case.
    pub fn allow(mut self, name: &str) -> Self {
        self.allowed.push(name.to_ascii_lowercase().into());
        self
    }

    /// Whether a request with `headers` (and `authority`, from its URI), on a listener
    /// at `local`, is answered.
    pub(super) fn accepts(
        &self,
        headers: &HeaderMap,
        authority: Option<&Authority>,
        local: Option<SocketAddr>,
    ) -> bool {
        if self.any {
            return true;
        }
        let mut named = headers.get_all(header::HOST).iter();
        let host = match (named.next(), authority) {
            // A loopback name is answered whatever the listener (below), and known by
            // its bytes: parsed as an authority, with an allocation and an IP address
            // read, it cost about 1,300 instructions a request (BENCHMARKS.md, "The HTTP
            // request's Host check and future").
            (Some(host), _) if self.by_listener && is_loopback_authority(host.as_bytes()) => {
                return named.next().is_none();
            }
            (Some(host), _) => match host.to_str().ok().and_then(|h| h.parse().ok()) {
                Some(host) => host,
                None => return false,
            },
            (None, Some(authority)) => authority.clone(),
            (None, None) => return true,
        };
        // Two `Host` headers come from no client that means well.
        if named.next().is_some() {
            return false;
        }
        let listed = self.allowed.iter().any(|allowed| {
            allowed.eq_ignore_ascii_case(host.as_str()) || allowed.eq_ignore_ascii_case(host.host())
        });
        if listed {
            return true;
        }
        if !self.by_listener {
            return false;
        }
        match local {
            Some(local) if local.ip().is_loopback() => is_loopback_name(host.host()),
            _ => true,
        }
    }
}

/// Whether `authority` is `localhost` (in any case), `127.0.0.1` or `[::1]`, with a port
/// of one to five digits or none: a loopback name, told without parsing.
fn is_loopback_authority(authority: &[u8]) -> bool {
    let name = authority.get(..9);
    let rest = if name.is_some_and(|name| name.eq_ignore_ascii_case(b"localhost")) {
        &authority[9..]
    } else if let Some(rest) = authority.strip_prefix(b"127.0.0.1") {
        rest
    } else if let Some(rest) = authority.strip_prefix(b"[::1]") {
        rest
    } else {
        return false;
    };
    match rest {
        [] => true,
        [b':', port @ ..] => (1..=5).contains(&port.len()) && port.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// Whether `host` (as a URI spells it: IPv6 in brackets) names this machine.
pub(super) fn is_loopback_name(host: &str) -> bool {
    let bare = host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(host);
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::http::HeaderValue;

    fn host(name: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::try_from(name).unwrap());
        headers
    }

    #[test]
    fn a_loopback_listener_answers_loopback_names_and_listed_ones() {
        let local: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let everywhere: SocketAddr = "0.0.0.0:8080".parse().unwrap();
        let hosts = Hosts::default().allow("MCP.example");
        for good in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:1",
            "LocalHost",
            "mcp.example:443",
        ] {
            assert!(hosts.accepts(&host(good), None, Some(local)), "{good}");
        }
        for bad in [
            "evil.example",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "evil.example:8080",
            "a b",
        ] {
            assert!(!hosts.accepts(&host(bad), None, Some(local)), "{bad}");
        }
        assert!(hosts.accepts(&host("evil.example"), None, Some(everywhere)));
        assert!(
            hosts.accepts(&HeaderMap::new(), None, Some(local)),
            "HTTP/1.0"
        );
        let authority = Authority::from_static("evil.example:8080");
        assert!(
            !hosts.accepts(&HeaderMap::new(), Some(&authority), Some(local)),
            "HTTP/2"
        );
        let strict = Hosts::only(["api.example:8443"]);
        assert!(strict.accepts(&host("api.example:8443"), None, Some(everywhere)));
        assert!(!strict.accepts(&host("api.example"), None, Some(everywhere)));
        assert!(!strict.accepts(&host("localhost"), None, Some(local)));
        assert!(Hosts::any().accepts(&host("evil.example"), None, Some(local)));
        let mut twice = host("localhost");
        twice.append(header::HOST, HeaderValue::from_static("evil.example"));
        assert!(!hosts.accepts(&twice, None, Some(local)));
    }

    proptest::proptest! {
        /// An authority told a loopback name by its bytes is one by the slow way too:
        /// it parses, and its host is a loopback name.
        #[test]
        fn a_loopback_authority_told_by_its_bytes_is_one_when_parsed(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "localhost", "LocalHost", "127.0.0.1", "[::1]", "::1", ":", "0", "8080",
                    "99999", "123456", "a", ".", "@", " ", "[", "]", "%", "localhost.evil",
                ]),
                0..5,
            ),
        ) {
            let text = pieces.concat();
            if is_loopback_authority(text.as_bytes()) {
                let authority: Result<Authority, _> = text.parse();
                proptest::prop_assert!(authority.is_ok(), "{}", text);
                let host = authority.unwrap();
                proptest::prop_assert!(is_loopback_name(host.host()), "{}", text);
            }
        }
    }

    #[test]
    fn the_usual_loopback_authorities_are_told_by_their_bytes() {
        for name in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:1",
            "[::1]:65535",
            "127.0.0.1",
        ] {
            assert!(is_loopback_authority(name.as_bytes()), "{name}");
        }
        for name in [
            "localhost.evil",
            "127.0.0.1.evil",
            "localhost:",
            "[::1]x",
            "127.0.0.2",
        ] {
            assert!(!is_loopback_authority(name.as_bytes()), "{name}");
        }
    }
}
