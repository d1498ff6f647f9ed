//! Untagged enums that say why a value fits none of their variants.
//!
//! serde's own untagged enums try each variant and, when none fits, say only "data did
//! not match any variant". The generator writes the `Deserialize` of its untagged enums
//! with [`decode`] instead (one `untagged_enum!` invocation each): the value is read once into a tree, each variant is tried on
//! it in order (the first that fits wins, as with serde), and when none fits, the error
//! is the fault of the variant that came nearest, which the careful re-reading of
//! [`Mismatch`](super::Mismatch) reports where it lies, with the variant named:
//!
//! ```text
//! at /transactions/0: missing member `blockTimestamp` (schema #/…); nearest of 2 variants: `FullTransactions` of #/…
//! ```
//!
//! The nearest variant is the one whose fault lies deepest in the value; at one depth,
//! one that had the right kind of value (a member missing or unknown) before one that
//! did not; of equals, the first tried.
//!
//! Any deserializer drives [`decode`]; the careful re-reading gets the nearest
//! variant's fault as data, its error being that fault (see `fault::hand_over`).
//! Another deserializer gets it in words.

use serde::de::{Deserialize, Deserializer, Error as _};

use super::fault::{self, Fault, Nearest, schema_of};
use super::reread;
use super::tree::Tree;

/// How the error of [`decode`] begins, in words.
const NO_VARIANT: &str = "no variant fits";

/// A value being decoded, handed to each variant's attempt.
#[derive(Clone, Copy)]
pub struct Value<'a>(&'a Tree);

/// Why a variant did not fit a value.
#[derive(Debug)]
pub struct Refusal(Fault);

/// One variant of an untagged enum: its name, and how it decodes from a value.
pub type Attempt<T> = (&'static str, fn(Value<'_>) -> Result<T, Refusal>);

/// Decodes the variant's content `T` from `value` (for an [`Attempt`]).
///
/// # Errors
///
/// [`Refusal`] when `value` is not a `T`.
pub fn variant<T: serde::de::DeserializeOwned>(value: Value<'_>) -> Result<T, Refusal> {
    reread::decode(value.0).map_err(Refusal)
}

/// Decodes an untagged enum from `deserializer`: the first of `variants` that fits, in
/// order. `name` is the enum's serde name (which, for a generated enum, carries its
/// schema's place).
///
/// # Errors
///
/// The deserializer's error, or, when no variant fits, one saying why the nearest did
/// not.
pub fn decode<'de, D, T>(
    deserializer: D,
    name: &'static str,
    variants: &[Attempt<T>],
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let tree = Tree::deserialize(deserializer)?;
    let mut nearest: Option<(&'static str, Fault)> = None;
    for (variant, attempt) in variants {
        match attempt(Value(&tree)) {
            Ok(value) => return Ok(value),
            Err(Refusal(fault)) => {
                if nearest
                    .as_ref()
                    .is_none_or(|(_, n)| fault.nearness() > n.nearness())
                {
                    nearest = Some((variant, fault));
                }
            }
        }
    }
    let Some((variant, fault)) = nearest else {
        return Err(D::Error::custom(format!("{NO_VARIANT}: the enum has none")));
    };
    let fault = fault.in_type(name).tried_as(Nearest {
        variant,
        of: variants.len(),
        schema: schema_of(name),
    });
    let words = match fault.path() {
        path if path.is_empty() => format!("{NO_VARIANT}: {fault}; nearest `{variant}`"),
        path => format!("{NO_VARIANT}: at {path}: {fault}; nearest `{variant}`"),
    };
    Err(fault::hand_over(fault, || D::Error::custom(words)))
}

/// Writes a generated untagged enum's `Deserialize` with [`decode`].
///
/// ```text
/// untagged_enum!(Kind from "#/components/schemas/Kind" { Hashes(Vec<String>), Full(Block), Nothing });
/// untagged_enum!(Plain { .. });
/// ```
///
/// The enum, then `from` the place of its schema (optional): decoding names the enum
/// `Kind @ #/components/schemas/Kind`, and an error names that schema. Then its variants
/// in the order they are tried (the first that fits is taken), each `Name(Type)` or, for
/// one that holds nothing, `Name` (read from `null`).
#[macro_export]
#[doc(hidden)]
macro_rules! __untagged_enum {
    ($ty:ident from $place:literal { $($variants:tt)* }) => {
        $crate::__untagged_enum!(@impl $ty, ::std::concat!(::std::stringify!($ty), " @ ", $place), { $($variants)* });
    };
    ($ty:ident { $($variants:tt)* }) => {
        $crate::__untagged_enum!(@impl $ty, ::std::stringify!($ty), { $($variants)* });
    };
    (@impl $ty:ident, $decoding:expr, { $($variant:ident $(($content:ty))?),* $(,)? }) => {
        impl<'de> $crate::__private::serde::Deserialize<'de> for $ty {
            fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
            where
                D: $crate::__private::serde::Deserializer<'de>,
            {
                $crate::__private::untagged::decode(deserializer, $decoding, &[
                    $( (
                        ::std::stringify!($variant),
                        $crate::__untagged_enum!(@attempt $variant $($content)?),
                    ), )*
                ])
            }
        }
    };
    (@attempt $variant:ident $content:ty) => {
        |value| $crate::__private::untagged::variant::<$content>(value).map(Self::$variant)
    };
    (@attempt $variant:ident) => {
        |value| $crate::__private::untagged::variant::<()>(value).map(|()| Self::$variant)
    };
}
