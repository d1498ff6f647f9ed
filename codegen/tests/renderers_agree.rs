//! One-off proof, kept while both renderers exist: every golden fixture and every corpus
//! document renders byte for byte the same with handlebars and with the subset renderer.

use std::path::{Path, PathBuf};

use rpcsmith_build::{Settings, generate};
use rpcsmith_corpus as corpus;

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            fixtures(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

#[test]
fn handlebars_and_the_subset_render_the_same() {
    rpcsmith_build::__compare_renderers(true);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = Vec::new();
    fixtures(&root.join("tests/fixtures"), &mut docs);
    docs.sort();
    docs.push(root.join("../schemas/petstore.json"));
    docs.push(root.join("../schemas/mcp.json"));
    let mut ticker = Settings::default();
    ticker.server_to_client = vec!["ticker_*".to_owned()];
    let mut partial = ticker.clone();
    partial.partial = true;
    let mut mcp = Settings::default();
    mcp.server_to_client = vec!["notifications/progress".to_owned()];
    let variants = [
        Settings::default(),
        Settings::types_only(),
        ticker,
        partial,
        mcp,
    ];
    let (mut generated, mut failed, mut differ) = (0, 0, Vec::new());
    let mut run = |doc: &Path, settings: &Settings| match generate(doc, settings) {
        Ok(_) => generated += 1,
        Err(e)
            if e.to_string().contains("the renderers differ")
                || e.to_string().contains("subset:") =>
        {
            differ.push(format!("{}: {e}", doc.display()))
        }
        Err(_) => failed += 1,
    };
    for doc in &docs {
        for settings in &variants {
            run(doc, settings);
        }
    }
    // The builder's fixtures of user templates (one writes invalid Rust: fails alike).
    let builder = root.join("tests/fixtures/builder");
    for templates in ["templates", "broken-partial", "typo-templates"] {
        let mut settings = Settings::default();
        settings.templates_dir = Some(builder.join(templates));
        settings.load = settings.load.include_dir(builder.join("include"));
        run(&builder.join("pets.json"), &settings);
    }
    let fixture_compared = rpcsmith_build::__compare_renderers(true);
    let mut corpus_docs = 0;
    let mut run = |doc: &Path, settings: &Settings| match generate(doc, settings) {
        Ok(_) => generated += 1,
        Err(e) => differ.push(format!("corpus {}: {e}", doc.display())),
    };
    if let Some(dir) = corpus::dir() {
        for (_, doc) in corpus::DOCUMENTS {
            corpus_docs += 1;
            for base in [Settings::default(), Settings::types_only()] {
                let mut settings = base;
                for inc in corpus::include_dirs(doc) {
                    settings.load = settings.load.include_dir(dir.join(inc));
                }
                run(&dir.join(doc), &settings);
            }
        }
    }
    let compared = rpcsmith_build::__compare_renderers(false);
    eprintln!(
        "fixture documents {} x {} settings: {} generated, {failed} failed (invalid fixtures; where rendering was reached, alike in both); \
         corpus documents {corpus_docs} x 2 settings; all generated: {generated}; \
         template renderings identical: {fixture_compared} of the fixtures, {} in all",
        docs.len(),
        variants.len(),
        docs.len() * variants.len() + 3 - failed,
        compared,
    );
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert!(compared > 0);
}
