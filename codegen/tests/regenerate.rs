//! Regeneration, the user's way: a small crate whose build.rs runs the builder is built
//! with cargo, its document is changed, and it is built again.
//!
//! Checks that an unchanged document rebuilds nothing, that a change to the document or
//! to a file its `$ref`s reach reruns the build script (`rerun-if-changed`), and that
//! what the change removed is a compile error at its use in the user's code.
//!
//! The crate builds offline into a target directory kept under cargo's `target/tmp`, so
//! only the first run compiles the dependencies.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const API: &str = r#"{
  "openrpc": "1.3.2",
  "info": { "title": "Regen", "version": "1.0.0" },
  "methods": [
    {
      "name": "get_pet",
      "params": [{ "name": "id", "required": true, "schema": { "type": "integer", "format": "uint64" } }],
      "result": { "name": "pet", "schema": { "$ref": "defs.json#/Pet" } }
    },
    {
      "name": "count_pets",
      "params": [],
      "result": { "name": "count", "schema": { "type": "integer", "format": "uint64" } }
    }
  ]
}
"#;

const DEFS: &str = r#"{
  "Pet": {
    "type": "object",
    "properties": { "id": { "type": "integer", "format": "uint64" }, "name": { "type": "string" } },
    "required": ["id", "name"]
  }
}
"#;

/// Line 7 calls `get_pet`; line 10 names the field `name`.
const MAIN: &str = r#"rpcsmith::include_api!("regen");

fn main() {}

#[allow(dead_code)]
async fn uses(client: regen::RegenClient) -> u64 {
    let pet = client.get_pet(1).await.ok();
    let count = client.count_pets().await.unwrap_or(0);
    let made = regen::types::Pet {
        name: String::new(),
        id: count,
    };
    pet.map_or(made.id, |p| p.id)
}
"#;

const BUILD: &str = r#"fn main() {
    rpcsmith_build::configure()
        .compile("api.json")
        .unwrap_or_else(|e| panic!("{e}"));
}
"#;

/// A user's crate in a temporary directory.
struct UserCrate {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl UserCrate {
    fn new() -> UserCrate {
        let dir = tempfile::tempdir().unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let manifest = format!(
            "[package]\nname = \"regen\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nrpcsmith = {{ path = {:?}, default-features = false }}\n\n\
             [build-dependencies]\nrpcsmith-build = {{ path = {:?} }}\n\n[workspace]\n",
            repo.join("runtime"),
            repo.join("codegen"),
        );
        let crate_ = UserCrate {
            target: Path::new(env!("CARGO_TARGET_TMPDIR")).join("regenerate"),
            dir,
        };
        crate_.write("Cargo.toml", &manifest);
        // The workspace's lock file, so the offline build picks the versions at hand.
        std::fs::copy(
            repo.join("Cargo.lock"),
            crate_.dir.path().join("Cargo.lock"),
        )
        .unwrap();
        crate_.write("build.rs", BUILD);
        crate_.write("api.json", API);
        crate_.write("defs.json", DEFS);
        std::fs::create_dir(crate_.dir.path().join("src")).unwrap();
        crate_.write("src/main.rs", MAIN);
        crate_
    }

    fn write(&self, file: &str, text: &str) {
        std::fs::write(self.dir.path().join(file), text).unwrap();
    }

    /// `cargo build -v`: whether it succeeded, and what it printed on stderr.
    fn build(&self) -> (bool, String) {
        let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--offline", "-v", "--color", "never"])
            .current_dir(self.dir.path())
            .env("CARGO_TARGET_DIR", &self.target)
            .env_remove("RUSTFLAGS")
            .env("CARGO_TERM_PROGRESS_WHEN", "never")
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn built(&self, step: &str) -> String {
        let (ok, stderr) = self.build();
        assert!(ok, "{step}: the build failed:\n{stderr}");
        stderr
    }
}

#[test]
fn a_changed_document_reruns_the_build_and_breaks_the_call_site() {
    let started = Instant::now();
    let user = UserCrate::new();
    user.built("first build");
    let first = started.elapsed();

    let stderr = user.built("unchanged");
    assert!(
        stderr.contains("Fresh regen v0.1.0"),
        "unchanged, rebuilt:\n{stderr}"
    );

    // A method removed from the document: its call is an error where it is called.
    user.write("api.json", &API.replace("\"get_pet\"", "\"fetch_pet\""));
    let (ok, stderr) = user.build();
    assert!(!ok, "removing get_pet still builds:\n{stderr}");
    assert!(
        stderr.contains("build-script-build`"),
        "build script not rerun:\n{stderr}"
    );
    assert!(
        // rustc names the type by where it is defined: the module the user declared
        // (`include_api!("regen")`), the path they import, with no inner module of the
        // generator's own between (once `regen::generated::RegenClient`).
        stderr.contains(
            "error[E0599]: no method named `get_pet` found for struct `regen::RegenClient`"
        ) || stderr
            .contains("error[E0599]: no method named `get_pet` found for struct `RegenClient`"),
        "{stderr}"
    );
    assert!(!stderr.contains("generated::"), "{stderr}");
    assert!(stderr.contains("--> src/main.rs:7:22"), "{stderr}");

    // A field removed from a file the document's $ref reaches.
    user.write("api.json", API);
    user.write("defs.json", &DEFS.replace("\"name\"", "\"title\""));
    let (ok, stderr) = user.build();
    assert!(!ok, "removing Pet.name still builds:\n{stderr}");
    assert!(
        stderr.contains("error[E0560]: struct `Pet` has no field named `name`"),
        "{stderr}"
    );
    assert!(stderr.contains("--> src/main.rs:10:9"), "{stderr}");

    user.write("defs.json", DEFS);
    user.built("restored");
    eprintln!(
        "regeneration test: first build {:.1}s, whole test {:.1}s",
        first.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}
