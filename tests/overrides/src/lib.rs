//! Types generated with overrides: `Pet` renamed `Animal`, `Money` replaced by
//! [`money::Cents`], `schemars::JsonSchema` derived on every type; a document whose
//! undescribed members are kept; Ethereum's document bent to real nodes.
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

rpcsmith::include_api!(
    /// The API generated from `loose.json`, keeping the members its schemas allow
    /// without describing them.
    pub loose
);

#[cfg(corpus)]
rpcsmith::include_api!(
    /// Ethereum's execution-apis (`refs-openrpc.json`) with `blockTimestamp` optional on
    /// transactions and `data` accepted for `input`.
    pub eth
);
