//! Goldens of whole generated modules (types, client, server) for the project's services
//! fixture and the small open-rpc examples of the corpus (read in place), compared
//! exactly. The goldens are compiled under `#![deny(warnings)]` by the `tests/goldens`
//! crate.
//!
//! `RPCSMITH_BLESS=1 cargo test -p rpcsmith-build --test services_golden` rewrites them;
//! review the diff.

mod support;

use std::path::{Path, PathBuf};

use rpcsmith_build::{ParamsBy, Settings, generate};

use rpcsmith_corpus as corpus;

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `(golden name, document, settings)`: the fixtures and the project's example, then the
/// corpus examples when present.
fn cases() -> Vec<(&'static str, PathBuf, Settings)> {
    let fixtures = manifest_dir().join("tests/fixtures/services");
    let mut ticker = Settings::default();
    ticker.server_to_client = vec!["ticker_*".to_owned()];
    let mut ticker_partial = ticker.clone();
    ticker_partial.partial = true;
    let mut codefirst = Settings::default();
    codefirst.json_schema = true;
    // The directions `examples/mcp/build.rs` gives.
    let mut mcp = Settings::default();
    mcp.server_to_client = [
        "sampling/*",
        "elicitation/*",
        "roots/list",
        "notifications/message",
        "notifications/resources/*",
        "notifications/tools/*",
        "notifications/prompts/*",
        "notifications/elicitation/*",
    ]
    .map(str::to_owned)
    .to_vec();
    mcp.both_ways = [
        "ping",
        "notifications/progress",
        "notifications/cancelled",
        "tasks/*",
        "notifications/tasks/*",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut cases = vec![
        (
            "features",
            fixtures.join("features.json"),
            Settings::default(),
        ),
        (
            "std_names",
            fixtures.join("std_names.json"),
            Settings::default(),
        ),
        ("ticker", fixtures.join("ticker.json"), ticker),
        (
            "streams",
            fixtures.join("streams.json"),
            Settings::default(),
        ),
        // What the runtime's `validate!` and `serialize_by_position!` write.
        ("checks", fixtures.join("checks.json"), Settings::default()),
        (
            "ticker_partial",
            fixtures.join("ticker.json"),
            ticker_partial,
        ),
        (
            "schemas_petstore",
            manifest_dir().join("../schemas/petstore.json"),
            Settings::default(),
        ),
        // A document schemars wrote (`rpcsmith::describe`), its types implementing
        // `JsonSchema` with the document's schemas.
        (
            "codefirst_json_schema",
            manifest_dir().join("../tests/codefirst/openrpc.json"),
            codefirst,
        ),
        // As `examples/mcp` generates it.
        (
            "schemas_mcp",
            manifest_dir().join("../schemas/mcp.json"),
            mcp,
        ),
    ];
    // A document as it was written, `$ref`s in `components/errors` included (see the
    // fixture's README).
    let starknet = manifest_dir().join("tests/fixtures/starknet-v0.6.0");
    let mut trace = Settings::default();
    trace.load = trace.load.include_dir(&starknet);
    cases.push((
        "starknet_trace_v0_6",
        starknet.join("api/starknet_trace_api_openrpc.json"),
        trace,
    ));
    if let Some(dir) = corpus::dir() {
        let examples = dir.join("open-rpc-examples");
        cases.extend(
            [
                ("petstore", examples.join("petstore-openrpc.json")),
                (
                    "params_by_name_petstore",
                    examples.join("params-by-name-petstore-openrpc.json"),
                ),
                ("simple_math", examples.join("simple-math-openrpc.json")),
                ("link_example", examples.join("link-example-openrpc.json")),
            ]
            .map(|(name, doc)| (name, doc, Settings::default())),
        );
        // Canton's signing API describes each method's params object as one by-name
        // param `params`: sent and read as the params themselves.
        let mut whole = Settings::default();
        whole.params_object = vec!["*".to_owned()];
        cases.push((
            "canton_signing_params_object",
            dir.join("canton-splice-wallet-kernel/api-specs/openrpc-signing-api.json"),
            whole,
        ));
    }
    cases
}

#[test]
fn every_case_matches_its_golden() {
    let bless = std::env::var_os("RPCSMITH_BLESS").is_some_and(|v| v == "1");
    let mut mismatches = Vec::new();
    for (name, doc, mut settings) in cases() {
        // The document a golden's server answers on `rpc.discover` is beside it, named
        // after the golden (two goldens have modules of the same name).
        settings.document_file = Some(format!("{name}.discover.json"));
        let generated = generate(&doc, &settings).unwrap_or_else(|e| panic!("{name}: {e}"));
        let golden = manifest_dir().join(format!("tests/golden/services/{name}.rs"));
        let mut files = vec![(golden, generated.source)];
        for beside in generated.beside {
            let path = manifest_dir()
                .join("tests/golden/services")
                .join(beside.name);
            files.push((path, beside.contents));
        }
        for (golden, source) in files {
            if bless {
                std::fs::write(&golden, &source).expect("write golden");
                continue;
            }
            match std::fs::read_to_string(&golden) {
                Ok(expected) if expected == source => {}
                Ok(expected) => mismatches.push(format!(
                    "{name}: output differs from {}:\n{}",
                    golden.display(),
                    support::diff(&expected, &source)
                )),
                Err(_) => mismatches.push(format!("{name}: no golden at {}", golden.display())),
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(rerun with RPCSMITH_BLESS=1 and review the diff)",
        mismatches.join("\n")
    );
}

#[test]
fn output_is_deterministic() {
    for (name, doc, settings) in cases() {
        let a = generate(&doc, &settings).expect("generates").source;
        let b = generate(&doc, &settings).expect("generates").source;
        assert_eq!(a, b, "{name}");
    }
}

#[test]
fn the_first_line_names_the_document_file_only() {
    let doc = manifest_dir().join("tests/fixtures/services/features.json");
    let source = generate(&doc, &Settings::default())
        .expect("generates")
        .source;
    assert_eq!(
        source.lines().next(),
        Some("// @generated by rpcsmith-build from features.json")
    );
    assert!(
        !source.contains(&*manifest_dir().to_string_lossy()),
        "an absolute path leaked"
    );
}

#[test]
fn client_and_server_are_emitted_as_asked() {
    let doc = manifest_dir().join("tests/fixtures/services/features.json");
    let mut settings = Settings::default();
    settings.server = false;
    let client_only = generate(&doc, &settings).expect("generates").source;
    assert!(client_only.contains("pub struct FeaturesClient"));
    assert!(!client_only.contains("pub trait FeaturesServer"));
    settings.server = true;
    settings.client = false;
    let server_only = generate(&doc, &settings).expect("generates").source;
    assert!(!server_only.contains("pub struct FeaturesClient"));
    assert!(server_only.contains("pub trait FeaturesServer"));
    settings.client = false;
    settings.server = false;
    let types_only = generate(&doc, &settings).expect("generates").source;
    assert!(!types_only.contains("Params"));
}

#[test]
fn either_sends_by_the_configured_default() {
    let doc = manifest_dir().join("tests/fixtures/services/features.json");
    // By position unless set.
    let by_position = generate(&doc, &Settings::default())
        .expect("generates")
        .source;
    let mut settings = Settings::default();
    settings.either_default = ParamsBy::Name;
    let by_name = generate(&doc, &settings).expect("generates").source;
    let serialize_impl = "__rt::serialize_by_position!(DivideParams {";
    assert!(!by_name.contains(serialize_impl));
    assert!(by_position.contains(serialize_impl));
}

#[test]
fn method_and_param_names_are_rust_names() {
    let doc = manifest_dir().join("tests/fixtures/services/features.json");
    let generated = generate(&doc, &Settings::default()).expect("generates");
    let source = &generated.source;
    assert_eq!(generated.methods, 7);
    for expected in [
        "pub fn eth_get_balance(",
        "\"eth_getBalance\" =>",
        "pub fn filecoin_chain_head(",
        "\"Filecoin.ChainHead\" =>",
        // `new` is the client's constructor: the method gets another name.
        "pub fn new2(",
        "r#type: String",
        // The enum is defined by `declared_errors!`, its data type given there.
        "DivideError for \"divide\" {",
        "data = types::DivideError1Data",
    ] {
        assert!(source.contains(expected), "missing `{expected}`");
    }
}

#[test]
fn every_golden_is_compiled_by_the_goldens_crate() {
    let crate_source = std::fs::read_to_string(manifest_dir().join("../tests/goldens/src/lib.rs"))
        .expect("the goldens crate");
    let goldens = std::fs::read_dir(manifest_dir().join("tests/golden/services")).expect("goldens");
    let mut count = 0;
    for entry in goldens {
        let name = entry.expect("directory entry").file_name();
        let name = name.to_string_lossy();
        if !name.ends_with(".rs") {
            // A document a golden includes (`<name>.discover.json`).
            continue;
        }
        let include = format!("codegen/tests/golden/services/{name}\")");
        assert!(
            crate_source.contains(&include),
            "{name} is not compiled by tests/goldens"
        );
        count += 1;
    }
    assert!(count >= 3, "goldens missing: {count}");
}

#[test]
fn server_to_client_methods_get_a_push_and_a_listener_on_the_sides_asked() {
    let doc = manifest_dir().join("tests/fixtures/services/ticker.json");
    let mut settings = Settings::default();
    settings.server_to_client = vec!["ticker_*".to_owned()];
    let has = |source: &str, item: &str| source.contains(&format!("pub {item}"));
    settings.server = false;
    let client_side = generate(&doc, &settings).expect("generates").source;
    settings.server = true;
    settings.client = false;
    let server_side = generate(&doc, &settings).expect("generates").source;
    // The client side calls the forward methods and listens to the others; the server
    // side serves the forward methods and pushes the others.
    for (item, on_client, on_server) in [
        ("struct TickerClient", true, false),
        ("trait TickerListener", true, false),
        ("struct TickerListenerDispatcher", true, false),
        ("trait TickerServer", false, true),
        ("struct TickerDispatcher", false, true),
        ("struct TickerPush", false, true),
        ("const DOCUMENT", false, true),
    ] {
        assert_eq!(
            has(&client_side, item),
            on_client,
            "{item} on the client side"
        );
        assert_eq!(
            has(&server_side, item),
            on_server,
            "{item} on the server side"
        );
    }
    // Both sides encode and decode the server→client params.
    for source in [&client_side, &server_side] {
        assert!(has(source, "struct TickerConfirmParams"));
        assert!(source.contains("TickerConfirmError for \"ticker_confirm\" {"));
    }
}

#[test]
fn a_document_of_what_the_client_serves_has_only_a_push_and_a_listener() {
    let doc = manifest_dir().join("tests/fixtures/services/ticker.json");
    let mut settings = Settings::default();
    settings.server_to_client = vec!["*".to_owned()];
    let generated = generate(&doc, &settings).expect("generates");
    assert_eq!(generated.warnings, []);
    let source = &generated.source;
    for absent in [
        "TickerClient",
        "TickerBatch",
        "TickerServer",
        "struct TickerDispatcher",
        "DOCUMENT",
    ] {
        assert!(!source.contains(absent), "`{absent}` generated");
    }
    for present in [
        "pub fn subscribe(",
        "pub fn ticker_confirm(",
        "pub trait TickerListener",
        "\"unsubscribe\" =>",
    ] {
        assert!(source.contains(present), "missing `{present}`");
    }
}

/// A document reformatted (whitespace only: indentation, line breaks, spaces after `:`)
/// generates byte-identical code but for the `PLACES` table of positions: no file
/// position is carried into names, serde renames or anything else generated. Held on corpus documents, with the reformatted copy under
/// the same file name.
#[test]
fn a_reformatted_document_generates_the_same_code() {
    let Some(dir) = corpus::dir() else { return };
    let documents = [
        "open-rpc-examples/petstore-openrpc.json",
        "stellar-docs/stellar-rpc.openrpc.json",
        "ethereum-execution-apis/refs-openrpc.json",
    ];
    for doc in documents {
        let original = dir.join(doc);
        let text = std::fs::read_to_string(&original).expect("reads");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        // Compact, then indented by a tab: every line and column moves.
        let compact = serde_json::to_string(&value).expect("writes");
        let mut tabbed = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"\t");
        let mut serializer = serde_json::Serializer::with_formatter(&mut tabbed, formatter);
        serde::Serialize::serialize(&value, &mut serializer).expect("writes");
        // The module and the document beside it, answered on `rpc.discover`.
        let generated = |path: &Path| {
            let generated =
                generate(path, &Settings::default()).unwrap_or_else(|e| panic!("{doc}: {e}"));
            (generated.source, generated.beside)
        };
        let (expected, expected_beside) = generated(&original);
        let (expected_code, expected_places) = split_places(&expected);
        for reformatted in [compact.into_bytes(), tabbed] {
            assert_ne!(reformatted, text.as_bytes(), "{doc}: not reformatted");
            let out = tempfile::tempdir().expect("temp dir");
            let copy = out.path().join(original.file_name().expect("a file name"));
            std::fs::write(&copy, &reformatted).expect("writes");
            let (again, beside) = generated(&copy);
            let (code, places) = split_places(&again);
            assert!(expected_code == code, "{doc}: the output changed");
            assert!(
                expected_beside == beside,
                "{doc}: the document file changed"
            );
            // The positions moved, and they are all the table holds that changed.
            assert_ne!(expected_places, places, "{doc}: the positions did not move");
        }
    }
}

/// The module without its `PLACES` table (the positions of the places its types cite),
/// and the table: the one item a reformatted document changes.
fn split_places(source: &str) -> (String, String) {
    let start = source.find("static PLACES").expect("a PLACES table");
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut end = source.len();
    for (i, c) in source[start..].char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '(' | '[' if !in_string => depth += 1,
            ')' | ']' if !in_string => depth -= 1,
            ';' if !in_string && depth == 0 => {
                end = start + i + 1;
                break;
            }
            _ => {}
        }
    }
    let code = format!("{}{}", &source[..start], &source[end..]);
    (code, source[start..end].to_owned())
}

/// Names a user of the API would guess, on corpus documents: a shared inline schema is
/// named from its titled owner, not from the first method that reached it; a union's lone
/// branch is the union; a content descriptor's `$ref`-only schema is its target.
#[test]
fn names_come_from_what_a_schema_is() {
    let Some(dir) = corpus::dir() else { return };
    let source = |doc: &str| {
        generate(dir.join(doc), &Settings::default())
            .unwrap_or_else(|e| panic!("{doc}: {e}"))
            .source
    };
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "ethereum-execution-apis/openrpc.json",
            &["pub enum BlockTransactions", "pub enum FilterAddress"],
            &[
                "EthGetBlockByHashResultTransactions",
                "EthGetLogsFilterAddress",
            ],
        ),
        (
            "ethereum-execution-apis/refs-openrpc.json",
            &["pub struct EthCapabilitiesDeleteStrategy {"],
            &["SlidingWindowDeletion"],
        ),
        (
            "casper-sidecar/rpc_schema.json",
            &["pub struct EntryPointValue {"],
            &["EntryPointValueV1CasperVm", "EntryPointValue2"],
        ),
        (
            "open-rpc-examples/petstore-openrpc.json",
            &["pet_id: types::PetId,"],
            &["PetId2"],
        ),
    ];
    for (doc, present, absent) in cases {
        let text = source(doc);
        for p in present {
            assert!(text.contains(p), "{doc}: no `{p}`");
        }
        for a in absent {
            assert!(!text.contains(a), "{doc}: `{a}` is still there");
        }
    }
}
