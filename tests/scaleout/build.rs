//! Sets `cfg(services)` when the services the tests start are installed: `nginx` and
//! `redis-server` on PATH (or in /usr/sbin, where Debian puts nginx); and
//! `cfg(nats_server)` when `nats-server` is too. Without them the tests are marked
//! ignored (the paths found are given to them as `SCALEOUT_NGINX`, `SCALEOUT_REDIS` and
//! `SCALEOUT_NATS`), with the reason, so that cargo's summary counts them as ignored
//! rather than passed; under `RPCSMITH_REQUIRE_SERVICES` (as `.ci/run` sets after
//! installing them) their absence fails the build instead.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(services)");
    println!("cargo::rustc-check-cfg=cfg(nats_server)");
    println!("cargo:rerun-if-env-changed=RPCSMITH_REQUIRE_SERVICES");
    println!("cargo:rerun-if-env-changed=PATH");
    let mut missing = Vec::new();
    for (program, variable) in [
        ("nginx", "SCALEOUT_NGINX"),
        ("redis-server", "SCALEOUT_REDIS"),
        ("nats-server", "SCALEOUT_NATS"),
    ] {
        match find(program) {
            // The tests start what the build found.
            Some(found) => println!("cargo:rustc-env={variable}={}", found.display()),
            None => missing.push(program),
        }
    }
    if !missing.contains(&"nats-server") {
        println!("cargo:rustc-cfg=nats_server");
    }
    if !missing.contains(&"nginx") && !missing.contains(&"redis-server") {
        println!("cargo:rustc-cfg=services");
    }
    if missing.is_empty() {
        return;
    }
    let why = format!(
        "{} not installed (Debian: apt-get install nginx-light redis-server nats-server)",
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
