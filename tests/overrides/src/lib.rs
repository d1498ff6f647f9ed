//! Types generated with overrides: `Pet` renamed `Animal`, `Money` replaced by
//! [`money::Cents`], `schemars::JsonSchema` derived on every type.
#![deny(warnings)]

pub mod money {
    //! The hand-written type that replaces the document's `Money`.

    /// An amount in cents.
    #[derive(
        Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
    )]
    #[serde(transparent)]
    pub struct Cents(pub u64);
}

rpcsmith::include_api!(
    /// The API generated from `shop.json`.
    pub shop
);
