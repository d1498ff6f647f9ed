//! Which web pages may call the server: the `Origin` allow-list, against DNS rebinding
//! and cross-site WebSocket hijacking.
//!
//! A browser sends `Origin` with every cross-site `POST` and every WebSocket
//! handshake, naming the page that made it; programs that are not browsers usually
//! send none. A page of another site can reach a server on the user's machine or
//! network (a `localhost` tools server, say), through a WebSocket (which CORS does not
//! guard) or after rebinding its own host name to the server's address; the `Origin`
//! header still names that page, and is refused.

use ::http::HeaderMap;
use ::http::header::{self, HeaderValue};
use std::net::{IpAddr, SocketAddr};

/// The origins a [`Service`](super::Service) accepts requests from; see
/// [`Service::origins`](super::Service::origins).
///
/// The default, [`Origins::default`]:
///
/// | request | |
/// |---|---|
/// | no `Origin` header (programs that are not browsers) | accepted |
/// | an `Origin` in the list (none by default) | accepted |
/// | a loopback `Origin` (`http(s)://localhost`, `127.0.0.0/8`, `[::1]`, any port) from a loopback peer | accepted: a page served by the same machine, to a server it reaches on loopback |
/// | any other `Origin`, and `Origin: null` | `403 Forbidden` |
///
/// The check runs before anything else: on `POST`, on `GET` event streams, on
/// `DELETE`, and on WebSocket upgrades.
///
/// ```
/// use rpcsmith::http::Origins;
///
/// let origins = Origins::default().allow("https://app.example").allow("https://admin.example:8443");
/// # drop(origins);
/// ```
#[derive(Debug, Clone)]
pub struct Origins {
    allowed: Vec<HeaderValue>,
    loopback: bool,
    any: bool,
}

impl Default for Origins {
    fn default() -> Self {
        Self {
            allowed: Vec::new(),
            loopback: true,
            any: false,
        }
    }
}

impl Origins {
    /// Accepts requests whatever their `Origin` (no check at all): for a server
    /// behind a gateway that checks it, or one meant to be called from any page
    /// (with CORS layers of its own).
    pub fn any() -> Self {
        Self {
            any: true,
            ..Self::default()
        }
    }

    /// Accepts requests from pages of `origin`, as a browser spells it: scheme, host
    /// and port when not the default (`https://app.example`,
    /// `http://localhost:3000`). Compared without regard to ASCII case; an origin that
    /// is not a valid header value is ignored.
    pub fn allow(mut self, origin: &str) -> Self {
        if let Ok(value) = HeaderValue::try_from(origin.trim_end_matches('/')) {
            self.allowed.push(value);
        }
        self
    }

    /// Whether loopback origins are accepted from loopback peers (on by default).
    pub fn loopback(mut self, allowed: bool) -> Self {
        self.loopback = allowed;
        self
    }

    /// Whether a request with `headers`, from `peer`, is accepted.
    pub(super) fn accepts(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> bool {
        if self.any {
            return true;
        }
        let mut origins = headers.get_all(header::ORIGIN).iter();
        let Some(origin) = origins.next() else {
            return true;
        };
        // Two `Origin` headers come from no browser.
        if origins.next().is_some() {
            return false;
        }
        let listed = self
            .allowed
            .iter()
            .any(|allowed| allowed.as_bytes().eq_ignore_ascii_case(origin.as_bytes()));
        listed
            || (self.loopback
                && peer.is_some_and(|peer| peer.ip().is_loopback())
                && is_loopback_origin(origin.as_bytes()))
    }
}

/// Whether `origin` is `http(s)://` a loopback host, any port.
fn is_loopback_origin(origin: &[u8]) -> bool {
    let Ok(origin) = std::str::from_utf8(origin) else {
        return false;
    };
    let Some(rest) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((host, port)) if port.is_empty() || is_port(port) => host,
            _ => return false,
        },
        None => match rest.split_once(':') {
            Some((host, port)) if is_port(port) => host,
            Some(_) => return false,
            None => rest,
        },
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

fn is_port(port: &str) -> bool {
    port.strip_prefix(':')
        .unwrap_or(port)
        .parse::<u16>()
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ORIGIN, HeaderValue::try_from(origin).unwrap());
        headers
    }

    #[test]
    fn the_default_accepts_no_origin_listed_ones_and_loopback_from_loopback() {
        let local: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let remote: SocketAddr = "192.0.2.1:5000".parse().unwrap();
        let origins = Origins::default().allow("https://app.example");
        assert!(origins.accepts(&HeaderMap::new(), Some(remote)));
        assert!(origins.accepts(&headers("https://APP.example"), Some(remote)));
        assert!(!origins.accepts(&headers("https://evil.example"), Some(local)));
        assert!(!origins.accepts(&headers("null"), Some(local)));
        for loopback in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8443",
            "http://LOCALHOST",
        ] {
            assert!(
                origins.accepts(&headers(loopback), Some(local)),
                "{loopback}"
            );
            assert!(
                !origins.accepts(&headers(loopback), Some(remote)),
                "{loopback}"
            );
            assert!(
                !Origins::default()
                    .loopback(false)
                    .accepts(&headers(loopback), Some(local)),
                "{loopback}"
            );
        }
        for tricky in [
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "http://localhost:3000@evil.example",
            "ftp://localhost",
        ] {
            assert!(!origins.accepts(&headers(tricky), Some(local)), "{tricky}");
        }
        assert!(Origins::any().accepts(&headers("https://evil.example"), Some(remote)));
    }
}
