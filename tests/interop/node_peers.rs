// Build-script code shared by the crates whose tests drive the Node peers of this
// directory (`include!`d by their build.rs; a build script has no library to share).

/// Sets `cfg(node_peers)` when Node and the interop `packages` (`npm ci` in
/// `tests/interop`, which is `interop`, relative to the crate) are there; without it
/// the interop tests are marked ignored, so that cargo's summary counts them as ignored
/// rather than passed. Under `RPCSMITH_REQUIRE_INTEROP` their absence fails the build
/// instead.
fn node_peers(interop: &std::path::Path, packages: &[&str]) {
    println!("cargo::rustc-check-cfg=cfg(node_peers)");
    println!("cargo:rerun-if-env-changed=RPCSMITH_REQUIRE_INTEROP");
    println!("cargo:rerun-if-env-changed=PATH");
    // Its contents change when `npm ci` installs the packages.
    println!("cargo:rerun-if-changed={}", interop.display());
    let modules = interop.join("node_modules");
    let node = std::process::Command::new("node").arg("--version").output();
    let missing = match node {
        Ok(output) if output.status.success() => {
            let installed = packages
                .iter()
                .all(|package| modules.join(package).join("package.json").is_file());
            (!installed).then_some("the packages are not installed: run `npm ci` in tests/interop")
        }
        _ => Some("node is not on PATH: install Node.js (>= 18), then `npm ci` in tests/interop"),
    };
    match missing {
        None => println!("cargo:rustc-cfg=node_peers"),
        Some(why) if std::env::var_os("RPCSMITH_REQUIRE_INTEROP").is_some() => {
            panic!("RPCSMITH_REQUIRE_INTEROP is set but {why}")
        }
        Some(why) => println!("cargo:warning=the Node interop tests are ignored: {why}"),
    }
}
