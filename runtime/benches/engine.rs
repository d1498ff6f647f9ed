//! In-process cost per call of the server engine, against jsonrpsee's
//! `RpcModule::raw_json_request`, for `add(a, b)`: single calls, and calls inside batches
//! of 100 and 1,000. Prints a table of medians over several rounds, and the ratios. Then
//! the cost of a `Router` (three mounts, one with a prefix): `add` through it against
//! `add` served directly, as a `ratio` line; and the cost of a rate limit (per
//! connection and per address) and of an access rule, against the same connection
//! without them, as `ratio` lines.
//!
//! Run with `cargo bench -p rpcsmith --bench engine`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::access::{Access, RequiredScopes};
use rpcsmith::server::{
    Connection, Context, Dispatch, Metadata, Mount, Rate, RateLimit, Reply, Router, Server, encode,
};
use serde_json::value::RawValue;

const ROUNDS: usize = 15;
/// Calls measured per round, whatever the batch size.
const CALLS_PER_ROUND: usize = 100_000;

/// `add` as a generated dispatcher implements it: decode from the borrowed params, then
/// an owned handler future.
struct Add;

impl Dispatch for Add {
    fn call(&self, method: &str, params: Option<&RawValue>, _cx: Context) -> Reply {
        match method {
            "add" => match serde_json::from_str::<(i64, i64)>(params.map_or("null", RawValue::get))
            {
                Ok((a, b)) => Reply::future(async move { encode(&(a + b)) }),
                Err(e) => Reply::err(ErrorObject::invalid_params(e.to_string())),
            },
            _ => Reply::err(ErrorObject::method_not_found()),
        }
    }

    fn methods(&self) -> Option<Vec<&str>> {
        Some(vec!["add"])
    }
}

fn call(id: usize) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"add","params":[{id},2],"id":{id}}}"#)
}

fn batch(len: usize) -> String {
    let calls: Vec<String> = (0..len).map(call).collect();
    format!("[{}]", calls.join(","))
}

/// Nanoseconds per call in one round of `CALLS_PER_ROUND` calls.
fn per_call(elapsed: Duration) -> f64 {
    elapsed.as_nanos() as f64 / CALLS_PER_ROUND as f64
}

/// Median and best of a set of rounds.
fn summary(mut rounds: Vec<f64>) -> (f64, f64) {
    rounds.sort_by(f64::total_cmp);
    (rounds[rounds.len() / 2], rounds[0])
}

fn rpcsmith_round(rt: &tokio::runtime::Runtime, server: &Server, message: &str, len: usize) -> f64 {
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..CALLS_PER_ROUND / len {
            let answer = server
                .handle(black_box(message.as_bytes()), Metadata::default())
                .await;
            black_box(answer);
        }
        per_call(start.elapsed())
    })
}

fn jsonrpsee_module() -> RpcModule<()> {
    let mut module = RpcModule::new(());
    module
        .register_method("add", |params, _, _| {
            let (a, b): (i64, i64) = params.parse()?;
            Ok::<_, ErrorObjectOwned>(a + b)
        })
        .expect("add registers once");
    module
}

/// jsonrpsee's `raw_json_request` takes one call at a time, so "inside a batch" is the same
/// path called once per call of the batch.
fn jsonrpsee_round(rt: &tokio::runtime::Runtime, module: &RpcModule<()>, calls: &[String]) -> f64 {
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..CALLS_PER_ROUND / calls.len() {
            for c in calls {
                let answer = module.raw_json_request(black_box(c), 1).await;
                black_box(answer.expect("jsonrpsee answers add").0);
            }
        }
        per_call(start.elapsed())
    })
}

/// Rounds of both, interleaved so that load from elsewhere on the machine hits both alike.
fn measure(
    rt: &tokio::runtime::Runtime,
    server: &Server,
    module: &RpcModule<()>,
    len: usize,
) -> [(f64, f64); 2] {
    let message = if len == 1 { call(1) } else { batch(len) };
    let calls: Vec<String> = (0..len).map(call).collect();
    rpcsmith_round(rt, server, &message, len); // warm-up
    jsonrpsee_round(rt, module, &calls);
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours.push(rpcsmith_round(rt, server, &message, len));
        theirs.push(jsonrpsee_round(rt, module, &calls));
    }
    [summary(ours), summary(theirs)]
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let server = Server::builder(Add).build();
    let module = jsonrpsee_module();

    // For profiling (`valgrind --tool=callgrind`): one case of one side, one round.
    if let Ok(len) = std::env::var("RPCSMITH_PROFILE_BATCH") {
        let len: usize = len
            .parse()
            .expect("RPCSMITH_PROFILE_BATCH is a batch length");
        let message = if len == 1 { call(1) } else { batch(len) };
        rt.block_on(async {
            for _ in 0..CALLS_PER_ROUND / len {
                black_box(server.handle(message.as_bytes(), Metadata::default()).await);
            }
        });
        return;
    }
    if let Ok(len) = std::env::var("RPCSMITH_PROFILE_JSONRPSEE") {
        let len: usize = len
            .parse()
            .expect("RPCSMITH_PROFILE_JSONRPSEE is a batch length");
        let calls: Vec<String> = (0..len).map(call).collect();
        jsonrpsee_round(&rt, &module, &calls);
        return;
    }

    // Both answer the same thing before anything is timed.
    let ours = rt.block_on(server.handle(call(1).as_bytes(), Metadata::default()));
    let theirs = rt
        .block_on(module.raw_json_request(&call(1), 1))
        .expect("jsonrpsee answers");
    println!(
        "rpcsmith:  {}",
        String::from_utf8_lossy(&ours.unwrap_or_default())
    );
    println!("jsonrpsee: {}", theirs.0.get());
    println!();
    println!("ns per call: median (best) of {ROUNDS} rounds of {CALLS_PER_ROUND} calls");
    println!(
        "{:<18} {:>16} {:>16} {:>14}",
        "case", "rpcsmith", "jsonrpsee", "ratio (median)"
    );
    for (name, len) in [
        ("single call", 1),
        ("in batch of 100", 100),
        ("in batch of 1000", 1000),
    ] {
        let [(ours, ours_best), (theirs, theirs_best)] = measure(&rt, &server, &module, len);
        println!(
            "{name:<18} {:>16} {:>16} {:>13.1}x",
            format!("{ours:.0} ({ours_best:.0})"),
            format!("{theirs:.0} ({theirs_best:.0})"),
            theirs / ours
        );
    }
    routed(&rt, &server);
    limited(&rt);
}

/// A single `add` on a connection with a peer address, through a rate limit (both
/// buckets, a rate never reached) or an access rule, against the same without them.
fn limited(rt: &tokio::runtime::Runtime) {
    let mut metadata = Metadata::default();
    metadata.peer = Some("192.0.2.7:50000".parse().expect("an address"));
    let rate = Rate::per_second(1_000_000_000);
    let cases = [
        (
            "rate_limit",
            Server::builder(Add).middleware(RateLimit::new().per_connection(rate).per_peer(rate)),
        ),
        (
            "access",
            Server::builder(Add).middleware(Access::new(RequiredScopes::new().open("add"))),
        ),
    ];
    let plain = Server::new(Add).connection(metadata.clone());
    let message = call(1);
    println!();
    for (name, builder) in cases {
        let guarded = builder.build().connection(metadata.clone());
        let (mut with, mut without) = (Vec::new(), Vec::new());
        connection_round(rt, &guarded, &message); // warm-up
        for _ in 0..ROUNDS {
            with.push(connection_round(rt, &guarded, &message));
            without.push(connection_round(rt, &plain, &message));
        }
        let ((with, _), (without, _)) = (summary(with), summary(without));
        println!("single call with {name}: {with:.0} ns, without: {without:.0} ns");
        println!("ratio {name}_over_plain_single_call {:.3}", with / without);
    }
}

fn connection_round(rt: &tokio::runtime::Runtime, connection: &Connection, message: &str) -> f64 {
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..CALLS_PER_ROUND {
            black_box(connection.handle(black_box(message.as_bytes())).await);
        }
        per_call(start.elapsed())
    })
}

/// A single `add` through a router of three mounts against `add` served directly.
fn routed(rt: &tokio::runtime::Runtime, direct: &Server) {
    let router = Router::builder()
        .mount(Mount::new("first", Add).prefix("first_"))
        .mount(Mount::new("second", Add))
        .mount(Mount::new("third", Add).prefix("third_"))
        .build()
        .expect("no overlap");
    let routed = Server::new(router);
    let message = call(1);
    let (mut through, mut straight) = (Vec::new(), Vec::new());
    rpcsmith_round(rt, &routed, &message, 1); // warm-up
    for _ in 0..ROUNDS {
        through.push(rpcsmith_round(rt, &routed, &message, 1));
        straight.push(rpcsmith_round(rt, direct, &message, 1));
    }
    let ((through, _), (straight, _)) = (summary(through), summary(straight));
    println!();
    println!("single call through a router of 3 mounts: {through:.0} ns, direct: {straight:.0} ns");
    println!(
        "ratio router_over_direct_single_call {:.3}",
        through / straight
    );
}
