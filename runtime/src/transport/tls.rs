//! TLS for the client transports (the `tls` feature): the one default rustls
//! configuration, shared by `https://` and `wss://`.

use crate::client::{TransportError, TransportErrorKind};
use hyper_rustls::ConfigBuilderExt as _;
use std::sync::Arc;

/// The client configuration used unless one is given: the ring crypto provider (named
/// explicitly, so that another provider enabled elsewhere in the application's
/// dependencies changes nothing) and the system's root certificates.
///
/// # Errors
///
/// A [`Config`](TransportErrorKind::Config) error when no root certificate could be
/// loaded from the system.
pub(crate) fn default_client_config() -> Result<rustls::ClientConfig, TransportError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| {
            TransportError::with_source(TransportErrorKind::Config, "no TLS protocol version", e)
        })?
        .with_native_roots()
        .map_err(|e| {
            TransportError::with_source(
                TransportErrorKind::Config,
                "no system root certificates",
                e,
            )
        })?
        .with_no_client_auth();
    Ok(config)
}
