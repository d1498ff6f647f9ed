//! Build time as a user lives it: cold `cargo build` (dev profile, a fresh target
//! directory, the workspace's lock file, `--offline` after an untimed `cargo fetch`) of
//! a scratch copy of `examples/petstore` — the runtime, tokio, serde_json — (a) with
//! `rpcsmith-build` as its build-dependency generating the module, and (b) with the
//! same module generated beforehand into its sources, no build-dependency; then (c) the
//! rebuild of (a) after a method is added to its document. Wall time, and CPU time of
//! the `cargo` child and everything it ran. Builds alternate within each round; every
//! target directory is deleted as soon as it is measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use serde_json::Value;

use crate::proc::children_cpu_time;
use crate::report::median;

/// The workspace this binary was built from.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// How the user crate gets its generated module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// `rpcsmith-build` in `[build-dependencies]`, run by `build.rs`.
    BuildDependency,
    /// The module generated beforehand, in `src/`: the runtime alone.
    Pregenerated,
}

/// A scratch user crate in a temporary directory.
struct UserCrate {
    label: String,
    variant: Variant,
    dir: tempfile::TempDir,
}

/// One cold build's figures, and the units `cargo` compiled.
struct Built {
    wall: Duration,
    cpu: Duration,
    units: Vec<String>,
}

/// Build settings of the module: those of `examples/petstore`, partial so that a method
/// added to the document needs no code of the user's.
const BUILD_RS: &str = "fn main() {\n    rpcsmith_build::configure()\n        .client(true)\n        .server(true)\n        .partial(true)\n        .compile(\"petstore.json\")\n        .unwrap_or_else(|e| panic!(\"{e}\"));\n}\n";

impl UserCrate {
    /// The crate, built against the runtime and generator of `workspace`, with its lock file.
    fn new(label: &str, workspace: &Path, variant: Variant) -> anyhow::Result<UserCrate> {
        let dir = tempfile::tempdir().context("creating a scratch directory")?;
        let path = |p: &str| format!("{:?}", workspace.join(p).display().to_string());
        let mut manifest = format!(
            "[package]\nname = \"petstore-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nrpcsmith = {{ path = {} }}\nserde_json = {{ version = \"1\", features = [\"raw_value\"] }}\n\
             tokio = {{ version = \"1\", features = [\"rt\", \"sync\", \"time\", \"macros\", \"net\", \"io-util\"] }}\n",
            path("runtime")
        );
        if variant == Variant::BuildDependency {
            manifest += &format!(
                "\n[build-dependencies]\nrpcsmith-build = {{ path = {} }}\n",
                path("codegen")
            );
        }
        manifest += "\n[workspace]\n";
        let root = dir.path();
        std::fs::write(root.join("Cargo.toml"), manifest)?;
        std::fs::copy(workspace.join("Cargo.lock"), root.join("Cargo.lock"))
            .context("copying the workspace's Cargo.lock")?;
        std::fs::copy(
            workspace.join("schemas/petstore.json"),
            root.join("petstore.json"),
        )?;
        std::fs::create_dir(root.join("src"))?;
        let main = std::fs::read_to_string(workspace.join("examples/petstore/src/main.rs"))?;
        let include = "rpcsmith::include_api!(\"petstore\");";
        if !main.contains(include) {
            bail!("examples/petstore/src/main.rs no longer holds `{include}`");
        }
        if variant == Variant::BuildDependency {
            std::fs::write(root.join("build.rs"), BUILD_RS)?;
            std::fs::write(root.join("src/main.rs"), main)?;
        } else {
            let module = pregenerate(&root.join("petstore.json"))?;
            std::fs::write(root.join("src/petstore.rs"), &module.source)?;
            for beside in &module.beside {
                std::fs::write(root.join("src").join(&beside.name), &beside.contents)?;
            }
            let main = main.replace(include, "mod petstore;");
            std::fs::write(root.join("src/main.rs"), main)?;
        }
        let crate_ = UserCrate {
            label: label.to_owned(),
            variant,
            dir,
        };
        crate_
            .cargo(&["fetch", "--quiet"], None)
            .context("cargo fetch (untimed)")?;
        Ok(crate_)
    }

    /// Runs `cargo <args>` in the crate; with `target`, in that target directory.
    fn cargo(&self, args: &[&str], target: Option<&Path>) -> anyhow::Result<std::process::Output> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .args(args)
            .current_dir(self.dir.path())
            // As a user builds: the dev profile's own incremental setting.
            .env_remove("CARGO_INCREMENTAL")
            .env_remove("RUSTFLAGS")
            .stdin(Stdio::null());
        if let Some(target) = target {
            command.env("CARGO_TARGET_DIR", target);
        }
        let output = command.output().context("running cargo")?;
        if !output.status.success() {
            bail!(
                "cargo {} in the scratch crate {} failed:\n{}",
                args.join(" "),
                self.label,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(output)
    }

    /// `cargo build` into `target`, timed (wall, and CPU of cargo and all it ran).
    fn build(&self, target: &Path) -> anyhow::Result<Built> {
        let cpu_before = children_cpu_time()?;
        let start = Instant::now();
        let args = [
            "build",
            "--offline",
            "--message-format=json-render-diagnostics",
        ];
        let output = self.cargo(&args, Some(target))?;
        let wall = start.elapsed();
        let cpu = children_cpu_time()?.saturating_sub(cpu_before);
        Ok(Built {
            wall,
            cpu,
            units: units(&String::from_utf8_lossy(&output.stdout)),
        })
    }

    /// Adds a method to the crate's document (what a user's change to it looks like).
    fn add_method(&self) -> anyhow::Result<()> {
        let path = self.dir.path().join("petstore.json");
        let mut document: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let method = serde_json::json!({
            "name": "count_pets",
            "summary": "How many pets the store holds.",
            "params": [],
            "result": {"name": "count", "schema": {"type": "integer", "minimum": 0}}
        });
        let Some(methods) = document.get_mut("methods").and_then(Value::as_array_mut) else {
            bail!("petstore.json has no `methods` array");
        };
        methods.push(method);
        std::fs::write(&path, serde_json::to_string_pretty(&document)?)?;
        Ok(())
    }
}

/// The module `build.rs` would write (and the files it includes), generated in this
/// process.
fn pregenerate(document: &Path) -> anyhow::Result<rpcsmith_build::Generated> {
    let mut settings = rpcsmith_build::Settings::default();
    settings.client = true;
    settings.server = true;
    settings.partial = true;
    settings.module_file = true;
    let generated = rpcsmith_build::generate(document, &settings)
        .map_err(|e| anyhow::anyhow!("generating petstore: {e}"))?;
    Ok(generated)
}

/// The units a `cargo build --message-format=json` compiled: `name@version`, with
/// ` (build script)` for a build script's compilation.
fn units(json_lines: &str) -> Vec<String> {
    let mut units: Vec<String> = json_lines
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| {
            let id = m["package_id"].as_str()?;
            let fragment = id.rsplit('#').next()?;
            let name = m["target"]["name"].as_str()?;
            let package = if fragment.contains('@') {
                fragment.to_owned()
            } else {
                format!("{name}@{fragment}")
            };
            let build_script = m["target"]["kind"][0] == "custom-build";
            Some(if build_script {
                format!("{package} (build script)")
            } else {
                package
            })
        })
        .collect();
    units.sort();
    units
}

/// A fresh target directory, deleted when dropped.
fn fresh_target() -> anyhow::Result<tempfile::TempDir> {
    tempfile::Builder::new()
        .prefix("rpcsmith-buildtime-target")
        .tempdir()
        .context("creating a scratch target directory")
}

/// One crate's figures over the rounds.
#[derive(Default)]
struct Figures {
    wall: Vec<f64>,
    cpu: Vec<f64>,
    units: Vec<String>,
    rebuild: Vec<f64>,
}

/// Prints the build-time table and `ratio build_dependency_added_wall`; with `before`
/// (another checkout of the workspace, e.g. main's), also the same crate built with that
/// generator, in the same rounds.
///
/// # Errors
///
/// A scratch crate cannot be made or a build fails.
pub(crate) fn report(rounds: usize, before: Option<&Path>) -> anyhow::Result<()> {
    let ws = workspace();
    eprintln!("build time: preparing scratch crates (cargo fetch, untimed)");
    let mut crates = vec![
        UserCrate::new("with rpcsmith-build", &ws, Variant::BuildDependency)?,
        UserCrate::new(
            "runtime only (module pre-generated)",
            &ws,
            Variant::Pregenerated,
        )?,
    ];
    if let Some(before) = before {
        let label = format!("with rpcsmith-build of {}", before.display());
        crates.push(UserCrate::new(&label, before, Variant::BuildDependency)?);
    }
    let mut figures: Vec<Figures> = crates.iter().map(|_| Figures::default()).collect();
    for round in 0..rounds.max(1) {
        for k in 0..crates.len() {
            // Rotate the order each round, so no build always comes first.
            let i = (k + round) % crates.len();
            let user = &crates[i];
            eprintln!("build time: round {}, cold build {}", round + 1, user.label);
            let target = fresh_target()?;
            let built = user.build(target.path())?;
            let f = &mut figures[i];
            f.wall.push(built.wall.as_secs_f64());
            f.cpu.push(built.cpu.as_secs_f64());
            f.units = built.units;
            if user.variant == Variant::BuildDependency && i == 0 {
                user.add_method()?;
                let rebuilt = user.build(target.path())?;
                f.rebuild.push(rebuilt.wall.as_secs_f64());
                // Back to the document the next round's cold build starts from.
                std::fs::copy(
                    ws.join("schemas/petstore.json"),
                    user.dir.path().join("petstore.json"),
                )?;
            }
            drop(target);
        }
    }
    print_report(&crates, &figures, rounds.max(1));
    Ok(())
}

fn print_report(crates: &[UserCrate], figures: &[Figures], rounds: usize) {
    println!(
        "\nCold build of a scratch copy of examples/petstore (runtime + tokio + serde_json), dev profile, \
         fresh target directory, the workspace's Cargo.lock, --offline; median of {rounds} round(s), \
         builds alternating; load average {}.",
        load_average()
    );
    println!("| build | wall s | CPU s | units |");
    println!("|-------|-------:|------:|------:|");
    for (user, f) in crates.iter().zip(figures) {
        println!(
            "| {} | {:.1} | {:.1} | {} |",
            user.label,
            median(f.wall.clone()),
            median(f.cpu.clone()),
            f.units.len()
        );
    }
    let plain = &figures[1];
    let added = |f: &Figures| {
        let base = median(plain.wall.clone());
        (median(f.wall.clone()) - base) / base
    };
    println!(
        "Rebuild of the crate with rpcsmith-build after a method is added to its document: {:.1} s wall.",
        median(figures[0].rebuild.clone())
    );
    for (user, f) in crates.iter().zip(figures).skip(2) {
        println!(
            "{}: added wall over runtime only {:.2}",
            user.label,
            added(f)
        );
        println!(
            "Units only it compiles: {}",
            only_in(&f.units, &plain.units).join(", ")
        );
    }
    println!(
        "Units the build-dependency adds: {}",
        only_in(&figures[0].units, &plain.units).join(", ")
    );
    println!(
        "ratio build_dependency_added_wall {:.2}",
        added(&figures[0])
    );
    let cpu_base = median(plain.cpu.clone());
    println!(
        "ratio build_dependency_added_cpu {:.2}",
        (median(figures[0].cpu.clone()) - cpu_base) / cpu_base
    );
}

/// The entries of `all` not in `base`, counted: a unit built twice (with other
/// features) in `all` and once in `base` is listed once.
fn only_in(all: &[String], base: &[String]) -> Vec<String> {
    let mut base = base.to_vec();
    let mut extra = Vec::new();
    for unit in all {
        match base.iter().position(|b| b == unit) {
            Some(i) => {
                base.swap_remove(i);
            }
            None => extra.push(unit.clone()),
        }
    }
    extra
}

/// `/proc/loadavg`'s first three fields, for the report.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}
