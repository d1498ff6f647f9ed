//! The generator's own figures: how long `rpcsmith_build::generate` takes on each corpus
//! document (in this process), and how long the generated code of the two largest takes
//! to compile (`cargo build` of a scratch crate that depends on the runtime by path: its
//! dependencies are built first, untimed and cached, then only the crate holding the
//! generated module is built, timed).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use rpcsmith_build::{Generated, Settings, generate};
use rpcsmith_corpus as corpus;

use crate::proc;
use crate::report::median;

/// Timed generations per document (the median is reported).
const RUNS: usize = 3;

/// The workspace this binary was built from.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// One document's figures.
struct Timed {
    id: &'static str,
    document: &'static str,
    generated: Generated,
    median: Duration,
}

/// Prints the generator's figures; says so and skips when the corpus is absent.
///
/// # Errors
///
/// When a corpus document fails to generate, or a compile fails.
pub(crate) fn report(quick: bool) -> anyhow::Result<()> {
    let Some(dir) = corpus::dir() else {
        println!("\nGenerator figures skipped: the OpenRPC corpus is absent (see above).");
        return Ok(());
    };
    let documents = if quick {
        &corpus::DOCUMENTS[..3]
    } else {
        corpus::DOCUMENTS
    };
    let runs = if quick { 1 } else { RUNS };
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    let shown = dir.canonicalize().unwrap_or_else(|_| dir.clone());
    println!(
        "\nGeneration time per corpus document ({}): rpcsmith_build::generate in this process \
         ({profile} build), median of {runs}, after one untimed run. (A build script runs the \
         generator as cargo builds build dependencies: without optimizations unless the \
         profile's build-override says otherwise.)",
        shown.display()
    );
    println!("| id  | document | methods | types | lines | ms |");
    println!("|-----|----------|--------:|------:|------:|---:|");
    let mut timed = Vec::new();
    for &(id, document) in documents {
        let t = time_one(&dir, id, document, runs)?;
        println!(
            "| {id} | {document} | {} | {} | {} | {:.1} |",
            t.generated.methods,
            t.generated.types,
            t.generated.source.lines().count(),
            t.median.as_secs_f64() * 1e3
        );
        timed.push(t);
    }
    let total: Duration = timed.iter().map(|t| t.median).sum();
    println!(
        "total: {:.0} ms for {} documents",
        total.as_secs_f64() * 1e3,
        timed.len()
    );
    if quick {
        println!("Compile times skipped (--quick).");
        return Ok(());
    }
    compile_largest(&mut timed)
}

fn settings(dir: &Path, document: &str) -> Settings {
    let mut settings = Settings::default();
    for include in corpus::include_dirs(document) {
        settings.load = settings.load.include_dir(dir.join(include));
    }
    settings
}

fn time_one(
    dir: &Path,
    id: &'static str,
    document: &'static str,
    runs: usize,
) -> anyhow::Result<Timed> {
    let settings = settings(dir, document);
    let path = dir.join(document);
    let run = || generate(&path, &settings).with_context(|| format!("generating {id} {document}"));
    let generated = run()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        std::hint::black_box(run()?);
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(Timed {
        id,
        document,
        generated,
        median: Duration::from_secs_f64(median(times)),
    })
}

/// Compile times of the two documents with the most generated code (in lines: the
/// largest by bytes are those that embed the largest documents for `rpc.discover`).
fn compile_largest(timed: &mut [Timed]) -> anyhow::Result<()> {
    timed.sort_by_key(|t| std::cmp::Reverse(t.generated.source.lines().count()));
    let target = scratch_target();
    println!(
        "\nCompile time of the generated code, the two largest documents (by lines generated): `cargo build` (dev profile) of a \
         scratch crate whose lib.rs is `pub mod api;` holding the generated module, depending on \
         runtime/ by path. Its dependencies are built first, untimed (cached in {}); the time is that \
         of the second `cargo build`, which compiles only the scratch crate.",
        target.display()
    );
    let scratch = Scratch::new(target)?;
    eprintln!("building the scratch crate's dependencies (untimed)");
    scratch.build()?;
    println!(
        "(CPU s: user + system time of that `cargo build` and the compilers it ran, steadier than \
         wall time on a loaded machine.)"
    );
    println!("| id  | document | methods | lines | lines/method | KiB | cargo build s | CPU s |");
    println!("|-----|----------|--------:|------:|-------------:|----:|--------------:|------:|");
    for t in timed.iter().take(2) {
        scratch.write_module(&t.generated)?;
        let cpu = proc::children_cpu_time()?;
        let elapsed = scratch.build()?;
        let cpu = proc::children_cpu_time()?.saturating_sub(cpu);
        let lines = t.generated.source.lines().count();
        println!(
            "| {} | {} | {} | {lines} | {:.0} | {} | {:.1} | {:.1} |",
            t.id,
            t.document,
            t.generated.methods,
            lines as f64 / t.generated.methods.max(1) as f64,
            t.generated.source.len() / 1024,
            elapsed.as_secs_f64(),
            cpu.as_secs_f64()
        );
    }
    Ok(())
}

/// Where the scratch crate's build is cached between runs.
fn scratch_target() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace().join("target"), PathBuf::from);
    let target = target.canonicalize().unwrap_or(target);
    target.join("bench-scratch")
}

/// A crate in a temporary directory that compiles a generated module against the runtime.
struct Scratch {
    dir: tempfile::TempDir,
    target: PathBuf,
}

impl Scratch {
    fn new(target: PathBuf) -> anyhow::Result<Self> {
        let dir = tempfile::tempdir().context("creating a scratch directory")?;
        let runtime = workspace().join("runtime").canonicalize()?;
        let manifest = format!(
            "[package]\nname = \"rpcsmith-compile-timing\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nrpcsmith = {{ path = {:?} }}\n\n[workspace]\n",
            runtime.display().to_string()
        );
        std::fs::write(dir.path().join("Cargo.toml"), manifest)?;
        // The workspace's lock file: the same dependency versions, nothing to resolve.
        let _ = std::fs::copy(
            workspace().join("Cargo.lock"),
            dir.path().join("Cargo.lock"),
        );
        std::fs::create_dir(dir.path().join("src"))?;
        std::fs::write(dir.path().join("src/lib.rs"), "//! Dependencies only.\n")?;
        Ok(Scratch { dir, target })
    }

    /// Writes the module as `src/api.rs`, and beside it the files it includes (the
    /// document answered on `rpc.discover`).
    fn write_module(&self, generated: &Generated) -> anyhow::Result<()> {
        let src = self.dir.path().join("src");
        std::fs::write(src.join("api.rs"), &generated.source)?;
        for beside in &generated.beside {
            std::fs::write(src.join(&beside.name), &beside.contents)?;
        }
        let lib = "//! A generated module.\n#[allow(dead_code, unreachable_pub)]\npub mod api;\n";
        std::fs::write(src.join("lib.rs"), lib)?;
        Ok(())
    }

    /// Runs `cargo build --lib` and returns how long it took.
    fn build(&self) -> anyhow::Result<Duration> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let start = Instant::now();
        let output = Command::new(cargo)
            .args(["build", "--lib", "--quiet"])
            .current_dir(self.dir.path())
            .env("CARGO_TARGET_DIR", &self.target)
            .stdin(Stdio::null())
            .output()
            .context("running cargo")?;
        let elapsed = start.elapsed();
        if !output.status.success() {
            bail!(
                "cargo build of the scratch crate failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(elapsed)
    }
}
