//! Every golden of `codegen/tests/golden/types/` and `codegen/tests/golden/services/`,
//! compiled under `#![deny(warnings)]` so a golden that stops compiling (or starts
//! warning) cannot slip in.
#![deny(warnings)]

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/all_of.json`.
    pub mod all_of {
        include!("../../../codegen/tests/golden/types/all_of.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/any_and_never.json`.
    pub mod any_and_never {
        include!("../../../codegen/tests/golden/types/any_and_never.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/arrays.json`.
    pub mod arrays {
        include!("../../../codegen/tests/golden/types/arrays.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/constants.json`.
    pub mod constants {
        include!("../../../codegen/tests/golden/types/constants.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/cross_file.json`.
    pub mod cross_file {
        include!("../../../codegen/tests/golden/types/cross_file.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/descriptors.json`.
    pub mod descriptors {
        include!("../../../codegen/tests/golden/types/descriptors.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/docs.json`.
    pub mod docs {
        include!("../../../codegen/tests/golden/types/docs.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/enums.json`.
    pub mod enums {
        include!("../../../codegen/tests/golden/types/enums.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/fallbacks.json`.
    pub mod fallbacks {
        include!("../../../codegen/tests/golden/types/fallbacks.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/fidelity.json`.
    pub mod fidelity {
        include!("../../../codegen/tests/golden/types/fidelity.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/integers.json`.
    pub mod integers {
        include!("../../../codegen/tests/golden/types/integers.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/maps.json`.
    pub mod maps {
        include!("../../../codegen/tests/golden/types/maps.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/methods.json`.
    pub mod methods {
        include!("../../../codegen/tests/golden/types/methods.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/names.json`.
    pub mod names {
        include!("../../../codegen/tests/golden/types/names.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/nullable.json`.
    pub mod nullable {
        include!("../../../codegen/tests/golden/types/nullable.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/one_of_external.json`.
    pub mod one_of_external {
        include!("../../../codegen/tests/golden/types/one_of_external.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/one_of_adjacent.json`.
    pub mod one_of_adjacent {
        include!("../../../codegen/tests/golden/types/one_of_adjacent.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/one_of_internal.json`.
    pub mod one_of_internal {
        include!("../../../codegen/tests/golden/types/one_of_internal.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/one_of_untagged.json`.
    pub mod one_of_untagged {
        include!("../../../codegen/tests/golden/types/one_of_untagged.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/recursive.json`.
    pub mod recursive {
        include!("../../../codegen/tests/golden/types/recursive.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/required_optional.json`.
    pub mod required_optional {
        include!("../../../codegen/tests/golden/types/required_optional.rs");
    }
}

rpcsmith::__private::generated_module! {
    /// Generated from `codegen/tests/fixtures/types/type_arrays.json`.
    pub mod type_arrays {
        include!("../../../codegen/tests/golden/types/type_arrays.rs");
    }
}

/// Whole generated modules (types, client, server), from `codegen/tests/golden/services/`.
pub mod services {
    rpcsmith::__private::generated_module! {
        /// Generated from `codegen/tests/fixtures/starknet-v0.6.0/api/starknet_trace_api_openrpc.json`:
        /// a document as it was written (`$ref`s in `components/errors`).
        pub mod starknet_trace_v0_6 {
            include!("../../../codegen/tests/golden/services/starknet_trace_v0_6.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from the corpus's `canton-splice-wallet-kernel/api-specs/openrpc-signing-api.json`
        /// with every method's one param read as its whole params object.
        pub mod canton_signing_params_object {
            include!("../../../codegen/tests/golden/services/canton_signing_params_object.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `codegen/tests/fixtures/services/features.json`.
        pub mod features {
            include!("../../../codegen/tests/golden/services/features.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `tests/codefirst/openrpc.json` (written by `rpcsmith::describe` from
        /// Rust types) with `json_schema(true)`: every type implements `JsonSchema`.
        pub mod codefirst_json_schema {
            include!("../../../codegen/tests/golden/services/codefirst_json_schema.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `codegen/tests/fixtures/services/std_names.json`: methods, params
        /// and types named like the methods and keywords Rust already uses.
        pub mod std_names {
            include!("../../../codegen/tests/golden/services/std_names.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `codegen/tests/fixtures/services/ticker.json` with
        /// `server_to_client("ticker_*")`: `TickerPush` and `TickerListener` beside the client
        /// and the server.
        pub mod ticker {
            include!("../../../codegen/tests/golden/services/ticker.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `codegen/tests/fixtures/services/streams.json`: subscriptions
        /// recognised (Starknet convention) and declared (`x-subscription`, pulled).
        pub mod streams {
            include!("../../../codegen/tests/golden/services/streams.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `codegen/tests/fixtures/services/checks.json`: the constraint checks
        /// and by-position `Serialize`s the runtime's `validate!` and `serialize_by_position!`
        /// write (a named type's own keywords and members, a newtype's value, optional trailing
        /// params, more than sixteen params).
        pub mod checks {
            include!("../../../codegen/tests/golden/services/checks.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// The same with `partial(true)`: every method of `TickerServer` and
        /// `TickerListener` has a default body answering `-32601`.
        pub mod ticker_partial {
            include!("../../../codegen/tests/golden/services/ticker_partial.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `schemas/petstore.json`, the project's example.
        pub mod schemas_petstore {
            include!("../../../codegen/tests/golden/services/schemas_petstore.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from `schemas/mcp.json`, the MCP example's document, with
        /// `notifications/progress` sent by the server.
        pub mod schemas_mcp {
            include!("../../../codegen/tests/golden/services/schemas_mcp.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from the corpus's `open-rpc-examples/petstore-openrpc.json`.
        pub mod petstore {
            include!("../../../codegen/tests/golden/services/petstore.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from the corpus's `open-rpc-examples/params-by-name-petstore-openrpc.json`.
        pub mod params_by_name_petstore {
            include!("../../../codegen/tests/golden/services/params_by_name_petstore.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from the corpus's `open-rpc-examples/simple-math-openrpc.json`.
        pub mod simple_math {
            include!("../../../codegen/tests/golden/services/simple_math.rs");
        }
    }

    rpcsmith::__private::generated_module! {
        /// Generated from the corpus's `open-rpc-examples/link-example-openrpc.json`.
        pub mod link_example {
            include!("../../../codegen/tests/golden/services/link_example.rs");
        }
    }
}
