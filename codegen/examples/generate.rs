//! Prints the module generated for one document: `cargo run --example generate -- DOC [INCLUDE_DIR]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: generate DOC [INCLUDE_DIR]");
        std::process::exit(2);
    };
    let mut settings = rpcsmith_build::Settings::default();
    // Printed alone: the module holds the document it answers on `rpc.discover`.
    settings.document_inline = true;
    if let Some(dir) = args.next() {
        settings.load = settings.load.include_dir(dir);
    }
    match rpcsmith_build::generate(&path, &settings) {
        Ok(generated) => {
            for w in &generated.warnings {
                eprintln!("warning: {w}");
            }
            print!("{}", generated.source);
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
