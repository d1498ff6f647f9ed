//! In-process cost per call of the server engine, against jsonrpsee's
//! `RpcModule::raw_json_request`, for `add(a, b)`: single calls, and calls inside batches
//! of 100 and 1,000. Prints a table of medians over several rounds, and the ratios.
//!
//! Run with `cargo bench -p rpcsmith --bench engine`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use jsonrpsee::RpcModule;
use jsonrpsee::types::ErrorObjectOwned;
use rpcsmith::protocol::ErrorObject;
use rpcsmith::server::{Context, Dispatch, Metadata, Reply, Server, encode};
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
}

fn call(id: usize) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"add","params":[{id},2],"id":{id}}}"#)
}

fn batch(len: usize) -> String {
    let calls: Vec<String> = (0..len).map(call).collect();
    format!("[{}]", calls.join(","))
}

/// Median nanoseconds per call over `ROUNDS` rounds of `CALLS_PER_ROUND` calls.
fn median_ns(mut round: impl FnMut() -> Duration) -> f64 {
    round(); // warm-up
    let mut per_call: Vec<f64> = (0..ROUNDS)
        .map(|_| round().as_nanos() as f64 / CALLS_PER_ROUND as f64)
        .collect();
    per_call.sort_by(f64::total_cmp);
    per_call[ROUNDS / 2]
}

fn rpcsmith_ns(rt: &tokio::runtime::Runtime, server: &Server, batch_len: usize) -> f64 {
    let message = if batch_len == 1 {
        call(1)
    } else {
        batch(batch_len)
    };
    let messages = CALLS_PER_ROUND / batch_len;
    median_ns(|| {
        rt.block_on(async {
            let start = Instant::now();
            for _ in 0..messages {
                let answer = server
                    .handle(black_box(message.as_bytes()), Metadata::default())
                    .await;
                black_box(answer);
            }
            start.elapsed()
        })
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
/// path called `batch_len` times per message.
fn jsonrpsee_ns(rt: &tokio::runtime::Runtime, module: &RpcModule<()>, batch_len: usize) -> f64 {
    let calls: Vec<String> = (0..batch_len).map(call).collect();
    let messages = CALLS_PER_ROUND / batch_len;
    median_ns(|| {
        rt.block_on(async {
            let start = Instant::now();
            for _ in 0..messages {
                for c in &calls {
                    let answer = module.raw_json_request(black_box(c), 1).await;
                    black_box(answer.expect("jsonrpsee answers add").0);
                }
            }
            start.elapsed()
        })
    })
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let server = Server::builder(Add).build();
    let module = jsonrpsee_module();

    // For profiling (`valgrind --tool=callgrind`): one rpcsmith case, one round.
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
    println!("median ns per call, {ROUNDS} rounds of {CALLS_PER_ROUND} calls");
    println!(
        "{:<22} {:>10} {:>10} {:>8}",
        "case", "rpcsmith", "jsonrpsee", "ratio"
    );
    for (name, batch_len) in [
        ("single call", 1),
        ("in batch of 100", 100),
        ("in batch of 1000", 1000),
    ] {
        let ours = rpcsmith_ns(&rt, &server, batch_len);
        let theirs = jsonrpsee_ns(&rt, &module, batch_len);
        println!(
            "{name:<22} {ours:>10.0} {theirs:>10.0} {:>7.1}x",
            theirs / ours
        );
    }
}
