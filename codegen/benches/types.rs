//! Times whole generation of the types module (load, validate, resolve, type space,
//! render, format) per corpus document.
//!
//! `cargo bench -p rpcsmith-build --bench types` (release profile). Prints, per
//! document, the size, the number of types, and the best and median of several runs.

use std::time::{Duration, Instant};

use rpcsmith_build::{Settings, generate};

use rpcsmith_corpus as corpus;

const RUNS: usize = 9;

fn main() {
    let Some(dir) = corpus::dir() else { return };
    println!("| doc | size | types | best | median |");
    println!("|---|---:|---:|---:|---:|");
    let mut total = Duration::ZERO;
    for (id, path) in corpus::DOCUMENTS {
        let mut settings = Settings::types_only();
        for include in corpus::include_dirs(path) {
            settings.load = settings.load.include_dir(dir.join(include));
        }
        let file = dir.join(path);
        let size = std::fs::metadata(&file).map_or(0, |m| m.len());
        let mut types = 0;
        let mut times: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                let report = generate(&file, &settings).expect("corpus documents generate");
                let elapsed = start.elapsed();
                types = report.types;
                std::hint::black_box(report);
                elapsed
            })
            .collect();
        times.sort();
        total += times[RUNS / 2];
        println!(
            "| {id} | {:.1} KB | {types} | {:.2} ms | {:.2} ms |",
            size as f64 / 1024.0,
            times[0].as_secs_f64() * 1e3,
            times[RUNS / 2].as_secs_f64() * 1e3
        );
    }
    println!("| all | | | | {:.1} ms |", total.as_secs_f64() * 1e3);
}
