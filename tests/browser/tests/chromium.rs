//! The harness of the browser tests, native: starts a generated petstore server and an
//! Ethereum-shaped one on loopback (HTTP and WebSocket on one port each, behind
//! tower-http's CORS layer), then
//!
//! - runs `tests/in_browser.rs`, compiled to `wasm32-unknown-unknown`, in headless
//!   Chromium (`cargo test --target wasm32-unknown-unknown` with wasm-bindgen-cli's
//!   `wasm-bindgen-test-runner` and `chromedriver`), naming the servers at compile time;
//! - builds the example page (`examples/browser`), serves it, opens it in headless
//!   Chromium through `chromedriver` (WebDriver) and reads back what its generated
//!   client wrote into the page.
//!
//! Needs the `wasm32-unknown-unknown` target, `wasm-bindgen-test-runner` and
//! `wasm-bindgen` of the version in Cargo.lock (on `PATH`, or in
//! `RPCSMITH_WASM_BINDGEN_DIR`), `chromedriver` (`CHROMEDRIVER`, default
//! `/usr/bin/chromedriver`) and `chromium` (`CHROMIUM`, default `/usr/bin/chromium`).
//! Without them it says so and passes, unless `RPCSMITH_REQUIRE_BROWSER` is set (CI),
//! where that is a failure. The inner builds use their own target directory,
//! `target/browser`, as the outer `cargo test` holds the lock of its own.
#![cfg(not(target_arch = "wasm32"))]

mod servers;
mod webdriver;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The tools this needs, or why they are missing.
struct Tools {
    runner: PathBuf,
    bindgen: PathBuf,
    chromedriver: PathBuf,
    chromium: PathBuf,
}

fn tools() -> Result<Tools, String> {
    let dir = std::env::var_os("RPCSMITH_WASM_BINDGEN_DIR").map(PathBuf::from);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let find = |name: &str| -> Result<PathBuf, String> {
        let candidates = dir.iter().cloned().chain(std::env::split_paths(&path));
        candidates
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
            .ok_or_else(|| format!("`{name}` is not on PATH nor in RPCSMITH_WASM_BINDGEN_DIR"))
    };
    let given = |var: &str, default: &str| -> Result<PathBuf, String> {
        let path = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
        path.is_file()
            .then_some(path)
            .ok_or_else(|| format!("no {default} (set {var})"))
    };
    let sysroot = Command::new("rustc")
        .args([
            "--print",
            "target-libdir",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .output();
    let has_target = sysroot.is_ok_and(|out| {
        out.status.success() && Path::new(String::from_utf8_lossy(&out.stdout).trim()).is_dir()
    });
    if !has_target {
        return Err("the wasm32-unknown-unknown target is not installed (rustup target add wasm32-unknown-unknown)".into());
    }
    Ok(Tools {
        runner: find("wasm-bindgen-test-runner")?,
        bindgen: find("wasm-bindgen")?,
        chromedriver: given("CHROMEDRIVER", "/usr/bin/chromedriver")?,
        chromium: given("CHROMIUM", "/usr/bin/chromium")?,
    })
}

/// The tools, or `None` (and a note) where they are missing and not required.
fn tools_or_skip() -> Option<Tools> {
    match tools() {
        Ok(tools) => Some(tools),
        Err(missing) if std::env::var_os("RPCSMITH_REQUIRE_BROWSER").is_some() => {
            panic!("the browser tests cannot run: {missing}")
        }
        Err(missing) => {
            eprintln!("skipped: {missing} (RPCSMITH_REQUIRE_BROWSER=1 makes this a failure)");
            None
        }
    }
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `cargo` in the workspace, building for the browser into `target/browser`.
fn cargo(tools: &Tools) -> Command {
    let mut cargo = Command::new(env!("CARGO"));
    cargo
        .current_dir(workspace())
        .env("CARGO_TARGET_DIR", workspace().join("target/browser"))
        .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", &tools.runner)
        .env("CHROMEDRIVER", &tools.chromedriver)
        .env_remove("RUSTFLAGS");
    cargo
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_clients_in_headless_chromium() {
    let Some(tools) = tools_or_skip() else { return };
    let servers = servers::start().await;
    let mut tests = cargo(&tools);
    tests
        .args([
            "test",
            "-p",
            "rpcsmith-browser",
            "--target",
            "wasm32-unknown-unknown",
            "--test",
            "in_browser",
        ])
        .env("RPCSMITH_BROWSER_PETSTORE", servers.petstore_url())
        .env("RPCSMITH_BROWSER_ETH", servers.eth_url())
        .env("RPCSMITH_BROWSER_SILENT", servers.silent_url())
        .env("RPCSMITH_BROWSER_CLOSED", servers.closed_url())
        // Each test's own bound: a loaded machine compiles slowly, but runs fast.
        .env("WASM_BINDGEN_TEST_TIMEOUT", "120");
    let status = tokio::task::spawn_blocking(move || tests.status())
        .await
        .unwrap()
        .expect("cargo runs");
    assert!(
        status.success(),
        "the tests in the browser failed: {status}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_page_shows_what_the_server_answered() {
    let Some(tools) = tools_or_skip() else { return };
    let servers = servers::start().await;
    let page = tempfile::tempdir().unwrap();
    let built = build_page(&tools, page.path());
    tokio::task::spawn_blocking(built).await.unwrap();
    let site = servers::serve_files(page.path().to_owned()).await;
    let url = format!("{site}index.html?endpoint={}", servers.petstore_url());
    let driver = webdriver::Driver::start(&tools.chromedriver, &tools.chromium).await;
    driver.open(&url).await;
    // The page writes `done` (or `failed: …`) last.
    let shown = driver
        .text_once("out", |text| {
            text.ends_with("done") || text.starts_with("failed")
        })
        .await;
    driver.quit().await;
    assert_eq!(
        shown, "added Rex #1\nadded Tom #2\ndogs: Rex\npet #2: Tom\npet #999: not found\ndone",
        "the page showed:\n{shown}"
    );
}

/// A closure that builds the example crate for the browser and writes the page into
/// `out`: `index.html`, and `pkg/` from `wasm-bindgen --target web`.
fn build_page(tools: &Tools, out: &Path) -> impl FnOnce() + Send + 'static {
    let mut build = cargo(tools);
    build.args([
        "build",
        "-p",
        "browser-example",
        "--target",
        "wasm32-unknown-unknown",
    ]);
    let mut bindgen = Command::new(&tools.bindgen);
    bindgen
        .args(["--target", "web", "--no-typescript", "--out-dir"])
        .arg(out.join("pkg"))
        .arg(workspace().join("target/browser/wasm32-unknown-unknown/debug/browser_example.wasm"));
    let out = out.to_owned();
    move || {
        assert!(
            build.status().expect("cargo runs").success(),
            "the example did not build"
        );
        assert!(
            bindgen.status().expect("wasm-bindgen runs").success(),
            "wasm-bindgen failed"
        );
        std::fs::copy(
            workspace().join("examples/browser/index.html"),
            out.join("index.html"),
        )
        .unwrap();
    }
}
