//! Times the front half (load + validate + resolve every `$ref`) per corpus document.
//!
//! `cargo bench -p rpcsmith-build --bench front` (release profile). Prints, per
//! document, the size and the best and median of several runs.

use std::time::{Duration, Instant};

use rpcsmith_build::{Options, load_document};

use rpcsmith_corpus as corpus;

const RUNS: usize = 15;

fn main() {
    let Some(dir) = corpus::dir() else { return };
    println!("| doc | size | best | median |");
    println!("|---|---:|---:|---:|");
    let mut total = Duration::ZERO;
    for (id, path) in corpus::DOCUMENTS {
        let mut options = Options::new();
        for include in corpus::include_dirs(path) {
            options = options.include_dir(dir.join(include));
        }
        let file = dir.join(path);
        let size = std::fs::metadata(&file).map_or(0, |m| m.len());
        let mut times: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let doc = load_document(&file, &options).expect("corpus documents load");
                std::hint::black_box(doc);
                start.elapsed()
            })
            .collect();
        times.sort();
        total += times[RUNS / 2];
        println!(
            "| {id} | {:.1} KB | {:.2} ms | {:.2} ms |",
            size as f64 / 1024.0,
            times[0].as_secs_f64() * 1e3,
            times[RUNS / 2].as_secs_f64() * 1e3
        );
    }
    println!(
        "whole corpus (sum of medians): {:.1} ms",
        total.as_secs_f64() * 1e3
    );
}
