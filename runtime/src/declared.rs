//! The macros generated code implements a method's params and errors with.
//!
//! `__declared_errors!` defines a method's error enum (its docs included) and implements
//! it: its `code()` and `message()`, `Display`, `Error`, [`crate::client::DeclaredError`]
//! (from an error object) and the conversions a server handler uses (into an
//! [`crate::protocol::ErrorObject`] and a [`crate::server::Failure`]).
//!
//! `__decode_params!` implements the `decode` of a params struct,
//! `__serialize_by_position!` the `Serialize` of one sent by position (an array of its
//! fields, optional trailing ones left out when absent).
//!
//! They save generated text (an enum and its impls are written as one table of its
//! variants, codes and messages instead of the enum and six impls of about sixty formatted
//! lines), not compile work: the compiler expands them to the same items.

/// Defines and implements a method's error enum (see the module docs).
///
/// ```text
/// declared_errors!(DivideError for "divide" {
///     ByZero { code = 1, message = "division by zero" },
///     TooLarge { code = -32001, message = "too large", data = u64 },
///     Busy { code = 2, message = " busy\n", doc = " `2`: busy" },
/// });
/// ```
///
/// The enum, `for` the method that declares it (its wire name, for the enum's doc), then
/// each variant with its error's `code` and `message`, and, for one that carries the
/// error's `data`, the data's type (the variant holds it). It writes the documented enum
/// (`#[derive(Debug, Clone, PartialEq)]`; a variant's doc is "`code`: message", or the
/// `doc` given when the generator words it otherwise) and its impls.
///
/// ```
/// rpcsmith::__private::declared_errors!(DivideError for "divide" {
///     ByZero { code = 1, message = "division by zero" },
///     TooLarge { code = -32001, message = "too large", data = u64 },
///     // A message its doc would not show as is: the doc is given.
///     Busy { code = 2, message = " busy\n", doc = " `2`: busy" },
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
/// assert!(DivideError::from_object(ErrorObject::new(3, "other")).is_err());
/// assert_eq!(DivideError::Busy.message(), " busy\n");
/// ```
///
/// An enum none of whose variants carries `data` (most are) is written by a rule of its
/// own, with the same items and behaviour:
///
/// ```
/// rpcsmith::__private::declared_errors!(LookupError for "lookup" {
///     Missing { code = 4444, message = "Pruned history unavailable" },
///     Gone { code = -32001, message = "Resource not found" },
/// });
///
/// use rpcsmith::client::DeclaredError as _;
/// use rpcsmith::protocol::ErrorObject;
/// use rpcsmith::server::Failure;
///
/// let object = ErrorObject::from(LookupError::Gone);
/// assert_eq!((object.code, &*object.message, object.data.is_none()), (-32001, "Resource not found", true));
/// assert_eq!(LookupError::from_object(object), Ok(LookupError::Gone));
/// assert_eq!(LookupError::Missing.to_string(), "Pruned history unavailable (code 4444)");
/// assert!(LookupError::from_object(ErrorObject::new(3, "other")).is_err());
/// assert!(matches!(Failure::from(LookupError::Missing), Failure::Declared(LookupError::Missing)));
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __declared_errors {
    // No variant carries `data` (the common case): the conversion into an error object
    // is one call, and no variant needs the rules for data below (each rule applied is
    // one more expansion per variant: BENCHMARKS.md, "Issue 30: D09's compile cost").
    (
        $name:ident for $method:literal {
            $(
                $variant:ident {
                    code = $code:literal,
                    message = $message:literal
                    $(, doc = $doc:literal)?
                    $(,)?
                }
            ),+
            $(,)?
        }
    ) => {
        $crate::__declared_errors!(@common $name for $method {
            $($variant = $code, $message, [$($doc)?];)+
        });

        impl $crate::client::DeclaredError for $name {
            #[inline]
            fn from_object(
                error: $crate::protocol::ErrorObject,
            ) -> ::std::result::Result<Self, $crate::protocol::ErrorObject> {
                match error.code {
                    $( $code => ::std::result::Result::Ok(Self::$variant), )+
                    _ => ::std::result::Result::Err(error),
                }
            }
        }

        impl ::std::convert::From<$name> for $crate::protocol::ErrorObject {
            #[inline]
            fn from(error: $name) -> Self {
                $crate::protocol::ErrorObject::new(error.code(), error.message())
            }
        }
    };
    (
        $name:ident for $method:literal {
            $(
                $variant:ident {
                    code = $code:literal,
                    message = $message:literal
                    $(, data = $data:ty)?
                    $(, doc = $doc:literal)?
                    $(,)?
                }
            ),+
            $(,)?
        }
    ) => {
        $crate::__declared_errors!(@common $name for $method {
            $($variant = $code, $message, [$($doc)?] $($data)?;)+
        });

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

    };
    // What both forms write, in one expansion per enum: the enum, `code()`, `message()`,
    // `Display`, `Error`, and the conversion into a handler's `Failure`.
    (@common $name:ident for $method:literal {
        $($variant:ident = $code:literal, $message:literal, [$($doc:literal)?] $($data:ty)?;)+
    }) => {
        #[doc = ::std::concat!(" The errors `", $method, "` declares.")]
        #[derive(Debug, Clone, PartialEq)]
        pub enum $name {
            $(
                #[doc = $crate::__declared_errors!(@doc $code, $message, [$($doc)?] $($data)?)]
                $variant $(($data))?,
            )+
        }

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
            #[inline]
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::write!(f, "{} (code {})", self.message(), self.code())
            }
        }

        impl ::std::error::Error for $name {}

        impl ::std::convert::From<$name> for $crate::server::Failure<$name> {
            #[inline]
            fn from(error: $name) -> Self {
                $crate::server::Failure::Declared(error)
            }
        }
    };
    (@doc $code:literal, $message:literal, []) => {
        ::std::concat!(" `", $code, "`: ", $message)
    };
    (@doc $code:literal, $message:literal, [] $data:ty) => {
        ::std::concat!(" `", $code, "`: ", $message, "\n\n Carries the error's `data`.")
    };
    (@doc $code:literal, $message:literal, [$doc:literal] $($data:ty)?) => {
        $doc
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

/// Implements `decode` on a method's params struct. It takes the call's params as a
/// [`CallParams`](crate::server::CallParams) (`Some(&raw).into()`), which from a
/// dispatcher also says where their schemas are written, so that a param's decode error
/// cites its schema under the method called, with its `file:line:col`.
///
/// ```text
/// decode_params!(DivideParams by_name_or_position { dividend = "a", divisor = "b" });
/// decode_params!(ListParams by_name { limit = "limit" });
/// decode_params!(MoveParams by_position { from = "from", to = "to" });
/// decode_params!(SignParams params_object { request = "request" });
/// ```
///
/// The struct, then the shapes of params the method accepts (its `paramStructure`):
/// `by_name` (an object), `by_position` (an array), `by_name_or_position` (either), or
/// `params_object` (the generator's params-object override: the one param is the whole
/// params object). Then each field `=` its param's wire name (the member it is read
/// from; in an array, its place is the field's). Like `__declared_errors!`, it saves
/// generated text (the method's docs and body written here once), not compile work.
///
/// ```
/// /// The params of `divide`.
/// pub struct DivideParams {
///     pub dividend: i64,
///     pub divisor: i64,
/// }
/// rpcsmith::__private::decode_params!(DivideParams by_name_or_position { dividend = "a", divisor = "b" });
///
/// let raw = rpcsmith::__private::serde_json::value::RawValue::from_string(r#"{"a":7,"b":2}"#.to_owned()).unwrap();
/// let params = DivideParams::decode(Some(&raw).into()).unwrap();
/// assert_eq!((params.dividend, params.divisor), (7, 2));
/// let raw = rpcsmith::__private::serde_json::value::RawValue::from_string("[7]".to_owned()).unwrap();
/// assert_eq!(DivideParams::decode(Some(&raw).into()).err().map(|e| e.code), Some(-32602));
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __decode_params {
    // The one param is the whole params object (the generator's params-object override).
    ($name:ident params_object { $field:ident = $wire:literal $(,)? }) => {
        impl $name {
            #[doc = " Decodes the params of a call: the params object is the one param."]
            #[doc = ""]
            #[doc = " # Errors"]
            #[doc = ""]
            #[doc = " `-32602` when the params are not an object or do not decode."]
            #[inline]
            pub fn decode(
                params: $crate::server::CallParams<'_>,
            ) -> ::std::result::Result<Self, $crate::protocol::ErrorObject> {
                ::std::result::Result::Ok(Self {
                    $field: $crate::__private::decode_whole(params, $wire)?,
                })
            }
        }
    };
    ($name:ident by_name { $($fields:tt)* }) => {
        $crate::__decode_params!(@impl $name, ByName, $($fields)*);
    };
    ($name:ident by_position { $($fields:tt)* }) => {
        $crate::__decode_params!(@impl $name, ByPosition, $($fields)*);
    };
    ($name:ident by_name_or_position { $($fields:tt)* }) => {
        $crate::__decode_params!(@impl $name, Either, $($fields)*);
    };
    (@impl $name:ident, $structure:ident, $($field:ident = $wire:literal),+ $(,)?) => {
        impl $name {
            #[doc = " Decodes the params of a call, from an array or an object as the method allows."]
            #[doc = ""]
            #[doc = " # Errors"]
            #[doc = ""]
            #[doc = " `-32602` naming the param that is missing, unknown or of the wrong type."]
            #[inline]
            pub fn decode(
                params: $crate::server::CallParams<'_>,
            ) -> ::std::result::Result<Self, $crate::protocol::ErrorObject> {
                let $crate::__decode_params!(@nest $($field)+) = $crate::__private::decode(
                    params,
                    $crate::__private::Structure::$structure,
                    &[$($wire),+],
                )?;
                ::std::result::Result::Ok(Self { $($field),+ })
            }
        }
    };
    (@nest $first:ident $($rest:ident)*) => {
        ($first, $crate::__decode_params!(@nest $($rest)*))
    };
    (@nest) => {
        ()
    };
}

/// Implements `Serialize` on a method's params struct sent by position.
///
/// ```text
/// serialize_by_position!(DivideParams { dividend, divisor });
/// serialize_by_position!(RoundParams { value, optional digits, optional mode });
/// ```
///
/// The struct, then its fields in the order they are sent: the JSON array of them. Every
/// field is always sent, except those marked `optional` (`Option` fields, which come
/// last): the array runs up to the last one given (3 elements when `mode` is given, else
/// 2 when `digits` is, else 1), a `None` before it sent as `null`, after it left out.
///
/// Like `__declared_errors!`, it saves generated text (about fifteen lines of a
/// hand-written impl), not compile work.
///
/// ```
/// pub struct DivideParams {
///     pub dividend: i64,
///     pub divisor: i64,
/// }
/// rpcsmith::__private::serialize_by_position!(DivideParams { dividend, divisor });
///
/// let params = DivideParams { dividend: 7, divisor: 2 };
/// assert_eq!(rpcsmith::__private::serde_json::to_string(&params).unwrap(), "[7,2]");
///
/// pub struct RoundParams {
///     pub value: f64,
///     pub digits: Option<u8>,
///     pub mode: Option<String>,
/// }
/// rpcsmith::__private::serialize_by_position!(RoundParams { value, optional digits, optional mode });
///
/// let json = |digits, mode| {
///     let params = RoundParams { value: 1.5, digits, mode };
///     rpcsmith::__private::serde_json::to_string(&params).unwrap()
/// };
/// assert_eq!(json(None, None), "[1.5]");
/// assert_eq!(json(Some(2), None), "[1.5,2]");
/// assert_eq!(json(None, Some("up".to_owned())), r#"[1.5,null,"up"]"#);
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __serialize_by_position {
    ($name:ident { $($params:tt)* }) => {
        $crate::__serialize_by_position!(@split $name [] [] $($params)*);
    };
    // Sorts the fields into those always sent and the optional ones, one at a time; a
    // field always sent after an optional one matches no rule.
    (@split $name:ident [$($field:ident)*] [$($optional:ident)*] optional $next:ident $(, $($rest:tt)*)?) => {
        $crate::__serialize_by_position!(@split $name [$($field)*] [$($optional)* $next] $($($rest)*)?);
    };
    (@split $name:ident [$($field:ident)*] [] $next:ident $(, $($rest:tt)*)?) => {
        $crate::__serialize_by_position!(@split $name [$($field)* $next] [] $($($rest)*)?);
    };
    // Every field sent: more than serde's largest tuple (16), or none, one by one.
    (@split $name:ident [
        $f1:ident $f2:ident $f3:ident $f4:ident $f5:ident $f6:ident $f7:ident $f8:ident
        $f9:ident $f10:ident $f11:ident $f12:ident $f13:ident $f14:ident $f15:ident $f16:ident
        $f17:ident $($more:ident)*
    ] []) => {
        $crate::__serialize_by_position!(@each $name [
            $f1 $f2 $f3 $f4 $f5 $f6 $f7 $f8 $f9 $f10 $f11 $f12 $f13 $f14 $f15 $f16 $f17 $($more)*
        ]);
    };
    (@split $name:ident [] []) => {
        $crate::__serialize_by_position!(@each $name []);
    };
    // Else as the tuple of references to the fields: one call for the compiler to check,
    // where writing them one by one is a call and a `?` each.
    (@split $name:ident [$($field:ident)+] []) => {
        impl $crate::__private::serde::Serialize for $name {
            #[inline]
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                $crate::__private::serde::Serialize::serialize(&($(&self.$field,)+), serializer)
            }
        }
    };
    (@each $name:ident [$($field:ident)*]) => {
        impl $crate::__private::serde::Serialize for $name {
            #[inline]
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                use $crate::__private::serde::ser::SerializeSeq as _;
                let len: usize = <[&str]>::len(&[$(stringify!($field)),*]);
                let mut seq = serializer.serialize_seq(::std::option::Option::Some(len))?;
                $( seq.serialize_element(&self.$field)?; )*
                seq.end()
            }
        }
    };
    (@split $name:ident [$($field:ident)*] [$($optional:ident)+]) => {
        impl $crate::__private::serde::Serialize for $name {
            // Without fields always sent `len` adds nothing; the last decrement is never read.
            #[allow(unused_mut, unused_variables, unused_assignments)]
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                use $crate::__private::serde::ser::SerializeSeq as _;
                // The optional fields sent: those up to the last one given.
                let given: &[bool] = &[$(self.$optional.is_some()),*];
                let sent = given.iter().rposition(|&g| g).map_or(0, |last| last + 1);
                let len: usize = <[&str]>::len(&[$(stringify!($field)),*]) + sent;
                let mut seq = serializer.serialize_seq(::std::option::Option::Some(len))?;
                $( seq.serialize_element(&self.$field)?; )*
                let mut left = sent;
                $(
                    if left > 0 {
                        seq.serialize_element(&self.$optional)?;
                        left -= 1;
                    }
                )*
                seq.end()
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    /// Two fixed params, two optional trailing ones.
    struct FindParams {
        query: String,
        limit: u32,
        cursor: Option<String>,
        order: Option<bool>,
    }
    crate::__serialize_by_position!(FindParams { query, limit, optional cursor, optional order });

    fn find(cursor: Option<&str>, order: Option<bool>) -> serde_json::Value {
        let params = FindParams {
            query: "q".to_owned(),
            limit: 5,
            cursor: cursor.map(str::to_owned),
            order,
        };
        serde_json::to_value(&params).expect("serializes")
    }

    #[test]
    fn trailing_optionals_run_up_to_the_last_one_given() {
        assert_eq!(find(None, None), json!(["q", 5]));
        assert_eq!(find(Some("c"), None), json!(["q", 5, "c"]));
        // A `None` before the last one given is sent as `null`.
        assert_eq!(find(None, Some(true)), json!(["q", 5, null, true]));
        assert_eq!(find(Some("c"), Some(false)), json!(["q", 5, "c", false]));
    }

    /// Only optional params.
    struct PageParams {
        size: Option<u8>,
    }
    crate::__serialize_by_position!(PageParams { optional size });

    /// More params than serde's largest tuple, every one sent.
    struct WideParams {
        p0: u8,
        p1: u8,
        p2: u8,
        p3: u8,
        p4: u8,
        p5: u8,
        p6: u8,
        p7: u8,
        p8: u8,
        p9: u8,
        p10: u8,
        p11: u8,
        p12: u8,
        p13: u8,
        p14: u8,
        p15: u8,
        p16: u8,
    }
    crate::__serialize_by_position!(WideParams {
        p0,
        p1,
        p2,
        p3,
        p4,
        p5,
        p6,
        p7,
        p8,
        p9,
        p10,
        p11,
        p12,
        p13,
        p14,
        p15,
        p16,
    });

    #[test]
    fn no_fixed_params_and_more_than_sixteen_fixed_ones() {
        let page = |size| serde_json::to_value(PageParams { size }).expect("serializes");
        assert_eq!(page(None), json!([]));
        assert_eq!(page(Some(3)), json!([3]));
        let wide = WideParams {
            p0: 0,
            p1: 1,
            p2: 2,
            p3: 3,
            p4: 4,
            p5: 5,
            p6: 6,
            p7: 7,
            p8: 8,
            p9: 9,
            p10: 10,
            p11: 11,
            p12: 12,
            p13: 13,
            p14: 14,
            p15: 15,
            p16: 16,
        };
        let expected: Vec<u8> = (0..=16).collect();
        assert_eq!(
            serde_json::to_value(wide).expect("serializes"),
            json!(expected)
        );
    }

    /// An element that JSON cannot hold (a map keyed by pairs).
    struct PairsParams {
        name: String,
        pairs: Option<BTreeMap<(u8, u8), u8>>,
    }
    crate::__serialize_by_position!(PairsParams { name, optional pairs });

    #[test]
    fn an_elements_error_is_the_serializers() {
        let absent = PairsParams {
            name: "n".to_owned(),
            pairs: None,
        };
        assert_eq!(
            serde_json::to_value(absent).expect("serializes"),
            json!(["n"])
        );
        let given = PairsParams {
            name: "n".to_owned(),
            pairs: Some(BTreeMap::from([((1, 2), 3)])),
        };
        let error = serde_json::to_string(&given).expect_err("a pair key is no JSON key");
        assert!(
            error.to_string().contains("key must be a string"),
            "{error}"
        );
    }
}
