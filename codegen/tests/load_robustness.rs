//! No input makes the front half panic: truncated, byte-mutated and value-mutated corpus
//! documents all end in `Ok` or a diagnostic.

use std::path::Path;

use rpcsmith_build::{Options, load_document};
use rpcsmith_corpus as corpus;
use serde_json::Value;

/// A small deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

const DOCS: &[&str] = &[
    "open-rpc-examples/simple-math-openrpc.json",
    "open-rpc-examples/petstore-openrpc.json",
    "metamask-api-specs/multichain-openrpc.json",
    "starknet-specs/proving-api/starknet_proving_api_openrpc.json",
    "midnight-node/openrpc.json",
];

/// Writes `text` beside the original (so its relative refs still lead somewhere) and
/// loads it; returns whether it loaded.
fn load_text(dir: &Path, original: &str, text: &str, tmp: &Path) -> bool {
    let name = Path::new(original).file_name().unwrap();
    let file = tmp.join(name);
    std::fs::write(&file, text).unwrap();
    let mut options = Options::new().include_dir(dir.join(Path::new(original).parent().unwrap()));
    for include in corpus::include_dirs(original) {
        options = options.include_dir(dir.join(include));
    }
    let result = load_document(&file, &options);
    if let Err(e) = &result {
        assert!(!e.diagnostics().is_empty());
        for d in e.diagnostics() {
            assert!(!d.file.is_absolute(), "absolute path in {d}");
        }
    }
    result.is_ok()
}

#[test]
fn truncated_and_byte_mutated_documents_give_diagnostics() {
    let Some(dir) = corpus::dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for doc in DOCS {
        let text = std::fs::read_to_string(dir.join(doc)).unwrap();
        assert!(
            load_text(&dir, doc, &text, tmp.path()),
            "{doc} loads unchanged"
        );
        for _ in 0..40 {
            let mut cut = rng.below(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            assert!(
                !load_text(&dir, doc, &text[..cut], tmp.path()),
                "{doc} cut at {cut}"
            );
        }
        let bytes = text.as_bytes();
        for _ in 0..40 {
            let mut mutated = bytes.to_vec();
            let at = rng.below(mutated.len());
            mutated[at] = b"{}[]\",:0a\\ -"[rng.below(12)];
            if let Ok(mutated) = String::from_utf8(mutated) {
                load_text(&dir, doc, &mutated, tmp.path());
            }
        }
    }
}

/// Every value of the document, by pointer.
fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (k, v) in members {
                pointers(
                    v,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointers(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

#[test]
fn value_mutated_documents_give_diagnostics() {
    let Some(dir) = corpus::dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = Rng(42);
    let replacements = [
        Value::Null,
        Value::from(-1),
        Value::from("#/"),
        Value::Array(vec![]),
        serde_json::json!({"$ref": "#"}),
        serde_json::json!({"$ref": "#/methods/0"}),
        serde_json::json!({"$ref": 3}),
        serde_json::json!({"type": "wat"}),
    ];
    for doc in DOCS {
        let original: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(doc)).unwrap()).unwrap();
        let mut all = Vec::new();
        pointers(&original, String::new(), &mut all);
        for _ in 0..60 {
            let mut value = original.clone();
            let at = &all[rng.below(all.len())];
            if let Some(slot) = value.pointer_mut(at) {
                *slot = replacements[rng.below(replacements.len())].clone();
            }
            load_text(&dir, doc, &value.to_string(), tmp.path());
        }
    }
}
