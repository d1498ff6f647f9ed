//! The macro generated code implements a method's error enum with: its `code()` and
//! `message()`, `Display`, `Error`, [`crate::client::DeclaredError`] (from an error
//! object) and the conversions a server handler uses (into an
//! [`crate::protocol::ErrorObject`] and a [`crate::server::Failure`]).
//!
//! It saves generated text (the enum's impls are written as one table of its variants,
//! codes and messages instead of six impls of about fifty formatted lines), not compile
//! work: the compiler expands it to the same items.

/// Implements a method's error enum (see the [module](self) docs). Each variant is
/// listed with its code and message; `(_)` marks one that carries the error's `data`.
///
/// ```
/// /// The errors `divide` declares.
/// #[derive(Debug, Clone, PartialEq)]
/// pub enum DivideError {
///     /// Division by zero.
///     ByZero,
///     /// Too large, and by how much.
///     TooLarge(u64),
/// }
/// rpcsmith::__private::declared_errors!(DivideError {
///     ByZero = 1, "division by zero";
///     TooLarge(_) = -32001, "too large";
/// });
///
/// use rpcsmith::client::DeclaredError as _;
/// use rpcsmith::protocol::ErrorObject;
///
/// let object = ErrorObject::from(DivideError::TooLarge(7));
/// assert_eq!((object.code, object.data_as::<u64>()), (-32001, Some(7)));
/// assert_eq!(DivideError::from_object(object), Ok(DivideError::TooLarge(7)));
/// assert_eq!(DivideError::ByZero.to_string(), "division by zero (code 1)");
/// assert_eq!((DivideError::ByZero.code(), DivideError::ByZero.message()), (1, "division by zero"));
/// assert!(DivideError::from_object(ErrorObject::new(2, "other")).is_err());
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __declared_errors {
    ($name:ident { $( $variant:ident $(($data:tt))? = $code:literal, $message:literal; )+ }) => {
        impl $name {
            #[doc = " The error's code."]
            #[inline]
            pub fn code(&self) -> i64 {
                match self {
                    $( Self::$variant { .. } => $code, )+
                }
            }

            #[doc = " The error's declared message."]
            #[inline]
            pub fn message(&self) -> &'static str {
                match self {
                    $( Self::$variant { .. } => $message, )+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::write!(f, "{} (code {})", self.message(), self.code())
            }
        }

        impl ::std::error::Error for $name {}

        impl $crate::client::DeclaredError for $name {
            #[inline]
            fn from_object(
                error: $crate::protocol::ErrorObject,
            ) -> ::std::result::Result<Self, $crate::protocol::ErrorObject> {
                match error.code {
                    $( $code => $crate::__declared_errors!(@decode error $variant $($data)?), )+
                    _ => ::std::result::Result::Err(error),
                }
            }
        }

        impl ::std::convert::From<$name> for $crate::protocol::ErrorObject {
            #[inline]
            fn from(error: $name) -> Self {
                match error {
                    $( $crate::__declared_errors!(@pattern $name $variant data $($data)?) =>
                        $crate::__declared_errors!(@object $code, $message, data $($data)?), )+
                }
            }
        }

        impl ::std::convert::From<$name> for $crate::server::Failure<$name> {
            #[inline]
            fn from(error: $name) -> Self {
                $crate::server::Failure::Declared(error)
            }
        }
    };
    (@decode $error:ident $variant:ident) => {
        ::std::result::Result::Ok(Self::$variant)
    };
    (@decode $error:ident $variant:ident $data:tt) => {
        match $crate::protocol::ErrorObject::data_as(&$error) {
            ::std::option::Option::Some(data) => ::std::result::Result::Ok(Self::$variant(data)),
            ::std::option::Option::None => ::std::result::Result::Err($error),
        }
    };
    (@pattern $name:ident $variant:ident $data:ident) => {
        $name::$variant
    };
    (@pattern $name:ident $variant:ident $data:ident $marker:tt) => {
        $name::$variant($data)
    };
    (@object $code:literal, $message:literal, $data:ident) => {
        $crate::protocol::ErrorObject::new($code, $message)
    };
    (@object $code:literal, $message:literal, $data:ident $marker:tt) => {
        $crate::protocol::ErrorObject::with_data($code, $message, &$data)
    };
}
