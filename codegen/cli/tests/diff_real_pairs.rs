//! The diff on real version pairs from the public history of the corpus's projects
//! (Starknet specs, execution-apis, MetaMask's multichain API, Lotus, OpenRPC examples),
//! kept under `tests/fixtures/diff-history` (its README names each source, tag and
//! license). Each report is compared whole with `tests/golden/diff-history/<pair>.txt`,
//! whose every finding was checked by hand against the two JSON files; the README lists,
//! pair by pair, the changes on the wire and which finding reports each (recall), and
//! the findings that report none (false claims: none).
//!
//! `RPCSMITH_BLESS=1 cargo test -p rpcsmith-cli --test diff_real_pairs` rewrites the
//! goldens; review the diff, finding by finding, against the README.

#[path = "../../tests/support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use rpcsmith_cli::diff::{self, Options, Report};

const DIR: &str = "tests/fixtures/diff-history";

/// One real pair: the golden's name, the old and new documents (relative to [`DIR`]),
/// and the include directory of each side (Starknet's `$ref`s are relative to the
/// repository's root), if any.
struct Pair {
    name: &'static str,
    old: &'static str,
    new: &'static str,
    includes: Option<(&'static str, &'static str)>,
}

const fn pair(name: &'static str, old: &'static str, new: &'static str) -> Pair {
    Pair {
        name,
        old,
        new,
        includes: None,
    }
}

const fn starknet(name: &'static str, old: &'static str, new: &'static str) -> Pair {
    Pair {
        name,
        old,
        new,
        includes: Some((old, new)),
    }
}

/// Every pair; Starknet's as (old tag, new tag) directories holding `api/…`.
const PAIRS: &[Pair] = &[
    starknet("starknet-v0.9.0-v0.10.0", "v0.9.0", "v0.10.0"),
    starknet("starknet-v0.10.2-v0.10.3", "v0.10.2", "v0.10.3"),
    starknet("starknet-v0.8.0-v0.8.1", "v0.8.0", "v0.8.1"),
    pair("execution-apis-2ba4a3e-dcf9a1d", "old.json", "new.json"),
    pair("execution-apis-754437c-de98d33", "old.json", "new.json"),
    pair(
        "metamask-multichain-v0.11.0-v0.15.0",
        "openrpc-v0.11.0.json",
        "openrpc-v0.15.0.json",
    ),
    pair(
        "lotus-v2-full-v1.35.0-v1.36.0",
        "full-v1.35.0.json",
        "full-v1.36.0.json",
    ),
    pair(
        "open-rpc-examples-1.2.7-1.7.2",
        "petstore-openrpc-1.2.7.json",
        "petstore-openrpc-1.7.2.json",
    ),
    pair(
        "open-rpc-examples-1.2.7-1.7.2",
        "petstore-expanded-openrpc-1.2.7.json",
        "petstore-expanded-openrpc-1.7.2.json",
    ),
    pair(
        "open-rpc-examples-1.2.7-1.7.2",
        "params-by-name-petstore-openrpc-1.2.7.json",
        "params-by-name-petstore-openrpc-1.7.2.json",
    ),
];

/// The Starknet documents compared in each Starknet pair.
const STARKNET_DOCUMENTS: &[&str] = &["api/starknet_api_openrpc.json", "api/starknet_ws_api.json"];

/// The reports of `pair`, each headed by the documents compared.
fn reports(pair: &Pair) -> Vec<(String, Report)> {
    let dir = Path::new(DIR).join(pair.name);
    let documents: Vec<(PathBuf, PathBuf)> = match pair.includes {
        Some((old, new)) => STARKNET_DOCUMENTS
            .iter()
            .map(|d| (dir.join(old).join(d), dir.join(new).join(d)))
            .filter(|(o, _)| o.is_file())
            .collect(),
        None => vec![(dir.join(pair.old), dir.join(pair.new))],
    };
    let mut options = Options::new();
    if let Some((old, new)) = pair.includes {
        options = options
            .old_include_dir(dir.join(old))
            .new_include_dir(dir.join(new));
    }
    documents
        .into_iter()
        .map(|(old, new)| {
            let report = diff::diff(&old, &new, &options)
                .unwrap_or_else(|e| panic!("{}: {e}", old.display()));
            let head = format!("# {} → {}", old.display(), new.display());
            (head, report)
        })
        .collect()
}

#[test]
fn real_pairs_report_what_changed_on_the_wire() {
    let bless = std::env::var_os("RPCSMITH_BLESS").is_some_and(|v| v == "1");
    let goldens = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/diff-history");
    let mut texts: Vec<(&str, String)> = Vec::new();
    for pair in PAIRS {
        let mut text = String::new();
        for (head, report) in reports(pair) {
            text.push_str(&format!("{head}\n{report}\n"));
        }
        match texts.iter_mut().find(|(name, _)| *name == pair.name) {
            Some((_, all)) => all.push_str(&text),
            None => texts.push((pair.name, text)),
        }
    }
    let mut mismatches = Vec::new();
    for (name, text) in texts {
        let golden = goldens.join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(&goldens).unwrap();
            std::fs::write(&golden, &text).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if expected != text {
            mismatches.push(format!("{name}:\n{}", support::diff(&expected, &text)));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{}\n(rerun with RPCSMITH_BLESS=1 and check each finding against the README)",
        mismatches.join("\n")
    );
}

/// The counts the README gives, pair by pair: (findings, break clients, break servers).
#[test]
fn each_pair_has_the_findings_counted_by_hand() {
    let expected: &[(&str, usize, usize, usize)] = &[
        ("starknet-v0.9.0-v0.10.0", 15, 4, 10),
        ("starknet-v0.10.2-v0.10.3", 0, 0, 0),
        ("starknet-v0.8.0-v0.8.1", 2, 0, 2),
        ("execution-apis-2ba4a3e-dcf9a1d", 11, 0, 11),
        ("execution-apis-754437c-de98d33", 5, 0, 3),
        ("metamask-multichain-v0.11.0-v0.15.0", 7, 0, 0),
        ("lotus-v2-full-v1.35.0-v1.36.0", 1, 0, 1),
        ("open-rpc-examples-1.2.7-1.7.2", 14, 8, 9),
    ];
    for &(name, findings, clients, servers) in expected {
        let (mut n, mut c, mut s) = (0, 0, 0);
        for pair in PAIRS.iter().filter(|p| p.name == name) {
            for (_, report) in reports(pair) {
                let (rc, rs, _) = report.counts();
                n += report.findings.len();
                c += rc;
                s += rs;
            }
        }
        assert_eq!((n, c, s), (findings, clients, servers), "{name}");
    }
}

/// Each pair read backwards finds as many differences, with who breaks swapped: what
/// narrowed one way widens the other.
#[test]
fn each_pair_backwards_swaps_who_breaks() {
    for pair in PAIRS {
        let backwards = Pair {
            name: pair.name,
            old: pair.new,
            new: pair.old,
            includes: pair.includes.map(|(old, new)| (new, old)),
        };
        let forwards: Vec<Report> = reports(pair).into_iter().map(|r| r.1).collect();
        let reversed: Vec<Report> = reports(&backwards).into_iter().map(|r| r.1).collect();
        for (f, r) in forwards.iter().zip(&reversed) {
            let (fc, fs, fo) = f.counts();
            let (rc, rs, ro) = r.counts();
            assert_eq!(
                (f.findings.len(), fc, fs, fo),
                (r.findings.len(), rs, rc, ro),
                "{} backwards:\n{r}",
                pair.name
            );
        }
    }
}
