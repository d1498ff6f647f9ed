//! Names a user of the API would guess: from what a schema is (its component key, its
//! `title`, else the member it sits under and its owner), never a number that only says
//! which schema came second. Held on a fixture of the cases, and over the whole corpus.

use std::collections::BTreeSet;
use std::path::Path;

use rpcsmith_build::{Settings, generate};
use rpcsmith_corpus as corpus;
use serde_json::Value;

/// The generated module for `path`, with the corpus' include directories.
fn source(path: &Path, includes: &[&Path]) -> (String, Vec<std::path::PathBuf>) {
    let mut settings = Settings::default();
    for inc in includes {
        settings.load = settings.load.include_dir(inc);
    }
    let generated = generate(path, &settings).unwrap_or_else(|e| panic!("{e}"));
    (generated.source, generated.files_read)
}

/// Every `pub struct`, `pub enum` and `pub type` the module declares.
fn declared(source: &str) -> BTreeSet<String> {
    source
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("pub ")?;
            let rest = ["struct ", "enum ", "type "]
                .iter()
                .find_map(|k| rest.strip_prefix(k))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            Some(name)
        })
        .collect()
}

/// The words a document writes that a name may end with: every member key, and every
/// `title` and `name`, lower-cased with only letters and digits kept.
fn document_words(files: &[std::path::PathBuf]) -> BTreeSet<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        let squash = |s: &str| -> String {
            s.chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    out.insert(squash(k));
                    if let (true, Value::String(s)) = (k == "title" || k == "name", x) {
                        out.insert(squash(s));
                    }
                    walk(x, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).expect("reads");
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            walk(&v, &mut out);
        }
    }
    out
}

/// The names that number a schema rather than name it: `…Variant<N>`, or `<X><N>` /
/// `<X>_<N>` beside a type `<X>` where the document writes no word ending in the last
/// word of the name (`Bytes8` beside `Bytes` is the document's own; `Log2` is not).
fn numbered(names: &BTreeSet<String>, words: &BTreeSet<String>) -> Vec<String> {
    names
        .iter()
        .filter(|n| {
            let base = n.trim_end_matches(|c: char| c.is_ascii_digit());
            if base.ends_with("Variant") && base.len() < n.len() {
                return true;
            }
            if base.len() == n.len() || !names.contains(base.trim_end_matches('_')) {
                return false;
            }
            let last_word = n
                .rfind(|c: char| c.is_ascii_uppercase())
                .map_or(n.as_str(), |i| &n[i..]);
            let last_word = last_word.to_ascii_lowercase();
            !words.iter().any(|w| w.ends_with(&last_word))
        })
        .cloned()
        .collect()
}

#[test]
fn the_fixture_names_each_schema_from_what_it_is() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/types-model/names.json");
    let (text, _) = source(&fixture, &[]);
    let names = declared(&text);
    for expected in [
        // Two schemas titled `Declare`, beside a component of that key: their places.
        "Declare",
        "DeclareType",
        "DeclareV1Type",
        // One untitled shape written in two components means two things.
        "StateChangeChange",
        "ActionErrorKindTriesToUnstake",
        // A branch with no title or property of its own: named by what it is.
        "RevisionMajor",
        // Two ids sharing one shape keep their names.
        "BlockHash",
        "TxHash",
    ] {
        assert!(names.contains(expected), "no `{expected}` in {names:?}");
    }
    assert!(text.contains("pub change: StateChangeChange,"), "{text}");
    assert!(text.contains("hash: Option<types::BlockHash>,"), "{text}");
    assert!(text.contains("hash: Option<types::TxHash>,"), "{text}");
    let words = BTreeSet::new();
    assert_eq!(numbered(&names, &words), Vec::<String>::new());
}

/// No corpus document has a name that numbers a schema (`Log2`, `Declare2`,
/// `…Variant7`, `GetTransactionParams2`), and the key names of the largest ones are the
/// ones a user of the API would guess.
#[test]
fn corpus_names_are_never_numbers() {
    let Some(dir) = corpus::dir() else { return };
    let mut failures = Vec::new();
    for (id, doc) in corpus::DOCUMENTS {
        let includes: Vec<_> = corpus::include_dirs(doc)
            .iter()
            .map(|i| dir.join(i))
            .collect();
        let includes: Vec<&Path> = includes.iter().map(|p| p.as_path()).collect();
        let (text, files) = source(&dir.join(doc), &includes);
        let bad = numbered(&declared(&text), &document_words(&files));
        if !bad.is_empty() {
            failures.push(format!("{id} {doc}: {bad:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_key_names() {
    let Some(dir) = corpus::dir() else { return };
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "ethereum-execution-apis/openrpc.json",
            &[
                "pub enum BlockTransactions",
                "pub enum TransactionKind",
                "pub enum FilterAddress",
                "pub enum ResultOfCallFailureError",
                "pub struct ResultOfCallFailureErrorCode3",
                "pub struct ResultOfCallFailureErrorCodeMinus32015",
                "pub struct EffectiveRoutingCapabilitiesLogs",
            ],
            &[
                "TransactionPoolContentPendingValueValueKind",
                "EthSimulateV1ResultItemCallsItemError",
                "EffectiveResourceCapability2",
            ],
        ),
        (
            "starknet-specs/api/starknet_api_openrpc.json",
            &["pub enum DeclareTxnV0Type", "pub enum InvokeTxnV1Version"],
            &["pub enum Declare2", "pub enum Type2"],
        ),
        (
            "starknet-specs/api/starknet_trace_api_openrpc.json",
            &["pub enum BlockId"],
            &["BlockId2", "Felt2"],
        ),
        (
            "starknet-specs/wallet-api/wallet_rpc.json",
            &["pub enum StarknetType {", "StarknetDomainRevisionString"],
            &["StarknetType2", "Variant1"],
        ),
        (
            "canton-splice-wallet-kernel/api-specs/openrpc-signing-api.json",
            &["pub struct GetTransactionParamsObject"],
            &["GetTransactionParams2"],
        ),
        (
            "canton-splice-wallet-kernel/api-specs/openrpc-dapp-remote-api.json",
            &["pub struct DappApiWallet", "pub struct UserApiWallet"],
            &["Wallet2"],
        ),
        (
            "midnight-node/openrpc.json",
            &["pub enum Operation ", "pub enum RpcTransactionOperation "],
            &["Operation2"],
        ),
    ];
    for (doc, present, absent) in cases {
        let includes: Vec<_> = corpus::include_dirs(doc)
            .iter()
            .map(|i| dir.join(i))
            .collect();
        let includes: Vec<&Path> = includes.iter().map(|p| p.as_path()).collect();
        let (text, _) = source(&dir.join(doc), &includes);
        for p in *present {
            assert!(text.contains(p), "{doc}: no `{p}`");
        }
        for a in *absent {
            assert!(!text.contains(a), "{doc}: `{a}` is still there");
        }
    }
}
