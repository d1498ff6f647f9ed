//! Sets `cfg(services)` when the services the tests start are installed: `nginx` and
//! `redis-server` on PATH (or in /usr/sbin, where Debian puts nginx). Without them the
//! tests are marked ignored (the paths found are given to them as `SCALEOUT_NGINX` and
//! `SCALEOUT_REDIS`), with the reason, so that cargo's summary counts them as
//! ignored rather than passed; under `RPCSMITH_REQUIRE_SERVICES` (as `.ci/run` sets
//! after installing them) their absence fails the build instead.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(services)");
    println!("cargo:rerun-if-env-changed=RPCSMITH_REQUIRE_SERVICES");
    println!("cargo:rerun-if-env-changed=PATH");
    let mut missing = Vec::new();
    for (program, variable) in [
        ("nginx", "SCALEOUT_NGINX"),
        ("redis-server", "SCALEOUT_REDIS"),
    ] {
        match find(program) {
            // The tests start what the build found.
            Some(found) => println!("cargo:rustc-env={variable}={}", found.display()),
            None => missing.push(program),
        }
    }
    if missing.is_empty() {
        println!("cargo:rustc-cfg=services");
        return;
    }
    let why = format!(
        "{} not installed (Debian: apt-get install nginx-light redis-server)",
        missing.join(" and ")
    );
    if std::env::var_os("RPCSMITH_REQUIRE_SERVICES").is_some() {
        panic!("RPCSMITH_REQUIRE_SERVICES is set but {why}");
    }
    println!("cargo:warning=the scale-out tests are ignored: {why}");
}

/// Where `program` is: on PATH, or in the system directories a non-root PATH lacks.
fn find(program: &str) -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin".into(), "/sbin".into(), "/usr/local/sbin".into()])
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
