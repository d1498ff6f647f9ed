//! The modules (types, client and server) generated for every corpus document, compiled under `#![deny(warnings)]`,
//! and a table of the documents' examples with a round-trip function for each.
#![deny(warnings)]

use serde::Serialize;
use serde::de::DeserializeOwned;

/// One corpus document.
#[derive(Debug)]
pub struct Document {
    /// Its MANIFEST id.
    pub id: &'static str,
    /// Its path in the corpus.
    pub path: &'static str,
    /// Methods (each with a client method and a server trait method).
    pub methods: usize,
    /// Named types emitted.
    pub types: usize,
    /// Schemas generated as `serde_json::Value` because they cannot be expressed.
    pub fallbacks: usize,
    /// Warnings.
    pub warnings: usize,
    /// How long generation took in the build script, in milliseconds.
    pub generation_ms: u128,
    /// The size of the generated module, in bytes.
    pub source_bytes: usize,
    /// Every example and default of the document.
    pub examples: &'static [Example],
}

/// An example value and the generated type it should fit.
#[derive(Debug)]
pub struct Example {
    /// Where it is written.
    pub origin: &'static str,
    /// The value, as JSON text.
    pub json: &'static str,
    /// Decodes the value into its type and encodes it back.
    pub round_trip: fn(&str) -> Result<serde_json::Value, String>,
    /// Where in the value (JSON pointers, keys unescaped) members sit that no generated
    /// type keeps: their object's struct does not list them and keeps no others, or they
    /// are `null` where an optional field's schema does not allow it (see the
    /// normalisation in `tests/round_trip.rs`). Sorted.
    pub undescribed: &'static [&'static str],
}

/// Decodes `json` as a `T` and encodes it back.
///
/// # Errors
///
/// The decode error.
pub fn round_trip<T: Serialize + DeserializeOwned>(
    json: &str,
) -> Result<serde_json::Value, String> {
    let value: T = serde_json::from_str(json).map_err(|e| e.to_string())?;
    // As the runtime writes it: an integral `f64` as an integer.
    rpcsmith::protocol::number::to_value(&value).map_err(|e| e.to_string())
}

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
