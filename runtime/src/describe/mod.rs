//! OpenRPC documents written from Rust types: the way from an existing service to a
//! schema-first one (feature `schemars`).
//!
//! A service that already exists (on jsonrpsee, on axum, or hand-written) derives
//! [`schemars::JsonSchema`] on the types of its params, results and errors' data, and
//! lists its methods once with [`Document`] and [`Method`]. The document comes out with
//! every type the methods reach named once in `components/schemas`, as `rpcsmith-build`
//! and every other OpenRPC tool reads it: commit it, then generate the service's client
//! (or its next server) from it, and the document becomes the source of truth.
//!
//! ```
//! use rpcsmith::describe::{Document, Method};
//!
//! #[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
//! struct Pet {
//!     name: String,
//!     tag: Option<String>,
//! }
//!
//! let document = Document::new("Petstore", "1.0.0")
//!     .description("Pets, by name.")
//!     .method(
//!         Method::new("pet_get")
//!             .summary("One pet by its name.")
//!             .param::<String>("name")
//!             .result::<Option<Pet>>("pet")
//!             .error(-32001, "The store is closed"),
//!     )
//!     .method(Method::new("pet_add").param::<Pet>("pet").result::<bool>("added").by_position())
//!     .to_json()?;
//!
//! assert_eq!(document["methods"][0]["params"][0]["schema"], serde_json::json!({"type": "string"}));
//! assert_eq!(
//!     document["methods"][1]["params"][0]["schema"],
//!     serde_json::json!({"$ref": "#/components/schemas/Pet"})
//! );
//! assert!(document["components"]["schemas"]["Pet"]["properties"]["tag"].is_object());
//! # Ok::<(), rpcsmith::describe::DocumentError>(())
//! ```
//!
//! What schemars writes is kept as it is (JSON Schema draft 7, for deserialization:
//! serde's attributes — `rename`, `tag`, `content`, `untagged`, `flatten`,
//! `deny_unknown_fields`, `default` — are all reflected), except that shared types live
//! in `components/schemas` rather than `definitions`. Members are listed in declaration
//! order (the feature turns on schemars' and serde_json's `preserve_order`), so a type
//! generated from the document writes its members in the order the original did.
//!
//! Methods without a result are notifications. A method's params are by position or by
//! name as [`Method::by_position`] and [`Method::by_name`] say (either, by default); a
//! params struct spreads into named params with [`Method::params`].
//!
//! Generated types go the other way with `rpcsmith_build::Builder::json_schema(true)`:
//! they implement `JsonSchema` with the document's own schema of each type, each `$ref`
//! of it turned into the schemars generator's reference to the generated type it names.

mod document;
mod embedded;
mod method;

pub use document::{Document, DocumentError};
#[doc(hidden)]
pub use embedded::{Reference, schema};
pub use method::Method;
