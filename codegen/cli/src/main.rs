//! The `rpcsmith` command-line tool: the generator of `rpcsmith-build` for people who
//! commit generated code, and a checker for OpenRPC documents.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use rpcsmith_build::{Diagnostic, Error, ErrorKind, ParamsBy, Subscription, configure};

// The `mock` command's serving, apart from the argument parsing here.
mod serve;

const GENERATE_EXAMPLES: &str = "\
Examples:
  rpcsmith generate openrpc.json -o src/api.rs      client and server into src/api.rs
  rpcsmith generate openrpc.json --client           the client only, to standard output
  rpcsmith generate api/openrpc.json -I shared -o src/api.rs
                                                    $refs also looked up in shared/
  rpcsmith generate eth.json --server --partial -o src/eth.rs
                                                    a server trait whose methods answer
                                                    -32601 until implemented
  rpcsmith generate ws.json --server-to-client 'starknet_subscription*' -o src/ws.rs
                                                    those methods are sent by the server
  rpcsmith generate api.json --subscription 'watch=ticks,unsubscribe=stop' -o src/api.rs
                                                    `watch` subscribes; items on `ticks`
  rpcsmith generate eth.json --alias '/components/schemas/GenericTransaction/properties/input=data'
                                                    `data` accepted for `input` on decode
  rpcsmith generate api.json --params-object 'create_*' -o src/api.rs
                                                    their one param is the params object

Use the generated file as a module (`mod api;`); it links against the `rpcsmith` crate.
With a server, keep (and commit) the `<output>.discover.json` written beside it: the
module includes it as the document it answers on `rpc.discover`.";

const CHECK_EXAMPLES: &str = "\
Examples:
  rpcsmith check openrpc.json
  rpcsmith check --strict -I shared api/openrpc.json

Problems print as `file:line:col: at /json/pointer: message`, warnings prefixed with
`warning: `. Exit status: 0 when the document generates (warnings allowed unless
--strict), 1 when it does not.";

const DIFF_EXAMPLES: &str = "\
Examples:
  rpcsmith diff v1/openrpc.json v2/openrpc.json
  rpcsmith diff --format json old.json openrpc.json
  rpcsmith diff --old-include old-specs --new-include specs old-specs/api.json specs/api.json

Each difference prints as `breaks clients: …`, `breaks servers: …`, `breaks clients and
servers: …` or `compatible: …`, with its place in both documents. Exit status: 0 when
nothing breaks, 1 when something breaks clients or servers, 2 when a document does not
load (its problems are printed) or for a bad command line.";

const MOCK_EXAMPLES: &str = "\
Examples:
  rpcsmith mock openrpc.json                         HTTP and WebSocket on 127.0.0.1:8545
  rpcsmith mock openrpc.json --listen 127.0.0.1:0    on a free port (printed on stderr)
  rpcsmith mock openrpc.json --stdio                 one JSON message per line on stdin/stdout
  rpcsmith mock openrpc.json --error get_pet=404     get_pet answers its declared error 404

Params are checked (shape, names, required ones, each param's type and enum): -32602 when
they do not fit. A call whose params equal an example pairing's gets its result; any
other call a value generated from the result schema, the same for the same --seed. Each
call is logged on stderr.";

const EXAMPLES: &str = "\
Examples:
  rpcsmith generate openrpc.json -o src/api.rs      types, client and server into src/api.rs
  rpcsmith check openrpc.json                       print every problem; exit 1 on errors
  rpcsmith diff old.json new.json                   what breaks clients or servers; exit 1 if any

Run `rpcsmith help generate` or `rpcsmith help check` for more.";

/// Generates typed Rust JSON-RPC 2.0 clients, servers and types from OpenRPC documents.
#[derive(Debug, Parser)]
#[command(name = "rpcsmith", version)]
#[command(after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Writes the Rust module for an OpenRPC document (types, client, server).
    #[command(after_long_help = GENERATE_EXAMPLES)]
    Generate(Generate),
    /// Checks an OpenRPC document: prints every problem, fails on errors.
    #[command(after_long_help = CHECK_EXAMPLES)]
    Check(Check),
    /// Compares two versions of a document on the wire: what breaks existing clients,
    /// what breaks existing servers, what is compatible.
    #[command(after_long_help = DIFF_EXAMPLES)]
    Diff(Diff),
    /// Serves every method of a document without an implementation: answers from its
    /// examples when the params match one, else values generated from the result schema.
    #[command(after_long_help = MOCK_EXAMPLES)]
    Mock(serve::MockArgs),
}

#[derive(Debug, Args)]
struct Diff {
    /// The old version of the document.
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The new version of the document.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// A directory where `$ref`s of both documents are looked for after the referring
    /// file's own directory. Repeatable.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Like --include, for the old document only.
    #[arg(long = "old-include", value_name = "DIR")]
    old_include: Vec<PathBuf>,
    /// Like --include, for the new document only.
    #[arg(long = "new-include", value_name = "DIR")]
    new_include: Vec<PathBuf>,
    /// Methods whose wire name matches PATTERN are sent by the server to the client
    /// (`*` matches any run of characters): for them, what would break clients breaks
    /// servers and the reverse. Repeatable.
    #[arg(long = "server-to-client", value_name = "PATTERN")]
    server_to_client: Vec<String>,
    /// How to print the differences.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Text)]
    format: Format,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One difference per paragraph, then a summary line.
    Text,
    /// One JSON object: `{"findings": [...]}`.
    Json,
}

#[derive(Debug, Args)]
struct Generate {
    #[command(flatten)]
    input: Input,
    /// The file to write (only when its content changes); standard output when absent.
    /// With a server, the document it answers on `rpc.discover` is written beside it
    /// (`src/api.rs` includes `src/api.discover.json`); on standard output the module
    /// holds the document itself.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Generate the client. With neither --client nor --server, both are generated.
    #[arg(long)]
    client: bool,
    /// Generate the server trait and dispatcher.
    #[arg(long)]
    server: bool,
    /// Give every server trait method a default body answering -32601 (Method not
    /// found), so that an implementation writes only the methods it serves.
    #[arg(long)]
    partial: bool,
    /// The name the generated code is named after (`<Name>Client`); default: the
    /// document's title, or its file name.
    #[arg(long, value_name = "NAME")]
    module: Option<String>,
    /// How the client sends the params of methods whose paramStructure is `either` (or
    /// absent): as an array (every server that takes both shapes takes it) or an object.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = EitherDefault::Position)]
    either_default: EitherDefault,
    /// A directory of handlebars templates: `DIR/<name>.hbs` replaces the built-in
    /// template of that name (`client.hbs`, `types/struct.hbs`, …); any other `.hbs`
    /// file is a partial named by its path without `.hbs` (`{{> parts/doc}}`).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
}

/// `--either-default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EitherDefault {
    /// An object keyed by param name.
    Name,
    /// An array in declaration order.
    Position,
}

#[derive(Debug, Args)]
struct Check {
    #[command(flatten)]
    input: Input,
}

#[derive(Debug, Args)]
struct Input {
    /// The OpenRPC document (JSON).
    #[arg(value_name = "DOC")]
    document: PathBuf,
    /// A directory where files named by `$ref`s are looked for after the referring file's
    /// own directory. Repeatable.
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    include: Vec<PathBuf>,
    /// Treat warnings as errors.
    #[arg(long)]
    strict: bool,
    /// Methods whose wire name matches PATTERN are sent by the server to the client
    /// (`*` matches any run of characters: `starknet_subscription*`, or `*` for a
    /// document of what the client serves); they get `<Doc>Push` and `<Doc>Listener`
    /// instead of client and server methods. Repeatable. A pattern that matches no
    /// method is a warning.
    #[arg(long = "server-to-client", value_name = "PATTERN")]
    server_to_client: Vec<String>,
    /// Marks the methods matching PATTERN as sent by either side (MCP's `ping`):
    /// they get client, server, push and listener items. Repeatable.
    #[arg(long = "both-ways", value_name = "PATTERN")]
    both_ways: Vec<String>,
    /// Declares METHOD a subscribe method, for a document that cannot say so itself
    /// (as its `x-subscription` would): `METHOD=NOTIFICATION[,id=PARAM][,item=PARAM]
    /// [,unsubscribe=METHOD][,end=METHOD][,result=id|item][,pull]`, every part optional
    /// (`METHOD=` infers them all). Repeatable.
    #[arg(long = "subscription", value_name = "METHOD=SPEC", value_parser = subscription)]
    subscriptions: Vec<(String, Subscription)>,
    /// The methods matching PATTERN (`*` matches any run of characters; `*` alone: every
    /// method with one param) take their one by-name param as the whole params object:
    /// sent and read as the params themselves. Repeatable.
    #[arg(long = "params-object", value_name = "PATTERN")]
    params_object: Vec<String>,
    /// Recognise no subscription from the conventions of real documents (Starknet's
    /// `<prefix>_subscribe<X>`, Ethereum's `eth_subscribe`): only declared ones.
    #[arg(long)]
    no_conventions: bool,
    #[command(flatten)]
    overrides: Overrides,
}

/// `--subscription METHOD=SPEC`.
fn subscription(text: &str) -> Result<(String, Subscription), String> {
    let (method, spec) = text.split_once('=').ok_or(
        "expected METHOD=NOTIFICATION[,id=PARAM][,item=PARAM][,unsubscribe=METHOD][,end=METHOD][,result=id|item][,pull]",
    )?;
    if method.is_empty() {
        return Err("the subscribe method's name is empty".to_owned());
    }
    let subscription = Subscription::parse(spec).map_err(|e| e.to_string())?;
    Ok((method.to_owned(), subscription))
}

/// Overrides of the generated types, each keyed by a schema's JSON pointer
/// (`/components/schemas/Pet`, a property's `…/properties/id`, `file.json#/Pet`); one
/// that matches nothing is a warning.
#[derive(Debug, Args)]
struct Overrides {
    /// Name the type of the schema at POINTER NAME. Repeatable.
    #[arg(long, value_name = "POINTER=NAME", value_parser = pointer_and)]
    rename: Vec<(String, String)>,
    /// Use the Rust type PATH instead of generating one for the schema at POINTER.
    /// Repeatable.
    #[arg(long, value_name = "POINTER=PATH", value_parser = pointer_and)]
    replace: Vec<(String, String)>,
    /// Derive PATH on the type of the schema at POINTER (`*`: every type). Repeatable.
    #[arg(long, value_name = "POINTER=PATH", value_parser = pointer_and)]
    derive: Vec<(String, String)>,
    /// Make the property at POINTER optional though `required` lists it. Repeatable.
    #[arg(long, value_name = "POINTER")]
    optional: Vec<String>,
    /// Accept the property at POINTER under the member name NAME too on decode.
    /// Repeatable.
    #[arg(long, value_name = "POINTER=NAME", value_parser = pointer_and)]
    alias: Vec<(String, String)>,
    /// Keep the members a schema allows without describing them (no
    /// `additionalProperties`) in a flattened map, so values re-encode with them.
    #[arg(long)]
    keep_undescribed: bool,
    /// Type `type: number` as `serde_json::Number` (exact to every digit) instead of
    /// `f64`.
    #[arg(long)]
    exact_numbers: bool,
}

impl Overrides {
    fn apply(&self, builder: rpcsmith_build::Builder) -> rpcsmith_build::Builder {
        let builder = self.rename.iter().fold(builder, |b, (p, v)| b.rename(p, v));
        let builder = self
            .replace
            .iter()
            .fold(builder, |b, (p, v)| b.replace(p, v));
        let builder = self.derive.iter().fold(builder, |b, (p, v)| b.derive(p, v));
        let builder = self.alias.iter().fold(builder, |b, (p, v)| b.alias(p, v));
        self.optional
            .iter()
            .fold(builder, |b, p| b.optional(p))
            .keep_undescribed(self.keep_undescribed)
            .exact_numbers(self.exact_numbers)
    }
}

/// `POINTER=VALUE`, split at the last `=` (a Rust name or path has none).
fn pointer_and(arg: &str) -> Result<(String, String), String> {
    match arg.rsplit_once('=') {
        Some((pointer, value)) if !pointer.is_empty() && !value.is_empty() => {
            Ok((pointer.to_owned(), value.to_owned()))
        }
        _ => Err(format!("expected POINTER=VALUE, found {arg:?}")),
    }
}

impl Input {
    fn builder(&self) -> rpcsmith_build::Builder {
        let builder = self
            .include
            .iter()
            .fold(configure(), |b, dir| b.include_dir(dir));
        let builder = self
            .server_to_client
            .iter()
            .fold(builder, |b, pattern| b.server_to_client(pattern));
        let builder = self
            .both_ways
            .iter()
            .fold(builder, |b, pattern| b.both_ways(pattern));
        let builder = self
            .params_object
            .iter()
            .fold(builder, |b, pattern| b.params_object(pattern));
        let builder = self
            .subscriptions
            .iter()
            .fold(builder, |b, (method, s)| b.subscription(method, s.clone()))
            .conventions(!self.no_conventions)
            .strict(self.strict);
        self.overrides.apply(builder)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Generate(args) => generate(args),
        Command::Check(args) => check(args),
        Command::Diff(args) => diff(args),
        Command::Mock(args) => serve::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            // Writing to a closed stderr is not worth a panic.
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn generate(args: &Generate) -> anyhow::Result<ExitCode> {
    let both = !args.client && !args.server;
    let mut builder = args
        .input
        .builder()
        .client(both || args.client)
        .server(both || args.server)
        .partial(args.partial)
        .either_default(match args.either_default {
            EitherDefault::Name => ParamsBy::Name,
            EitherDefault::Position => ParamsBy::Position,
        });
    if let Some(name) = &args.module {
        builder = builder.module(name);
    }
    if let Some(dir) = &args.templates {
        builder = builder.templates_dir(dir);
    }
    let mut settings = builder.settings().clone();
    // Declared `mod api;`, the file sets its own lint levels.
    settings.module_file = true;
    // The document answered on `rpc.discover` goes beside the output file, named after
    // it (`src/api.rs` includes `src/api.discover.json`); standard output has no file
    // beside it, so the module holds the document itself.
    match &args.output {
        Some(path) => {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            settings.document_file = Some(format!("{stem}.discover.json"));
        }
        None => settings.document_inline = true,
    }
    let generated = match rpcsmith_build::generate(&args.input.document, &settings) {
        Ok(generated) => generated,
        Err(error) => return failed(&args.input, &error),
    };
    print_diagnostics(&generated.warnings)?;
    print_notes(&generated.notes)?;
    match &args.output {
        Some(path) => write_beside(path, &generated, &args.input),
        None => {
            std::io::stdout()
                .lock()
                .write_all(generated.source.as_bytes())
                .context("cannot write to standard output")?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Writes the module to `path` and the files it includes beside it, each only when it
/// changed; none when one of them would overwrite a file the generator read.
fn write_beside(
    path: &Path,
    generated: &rpcsmith_build::Generated,
    input: &Input,
) -> anyhow::Result<ExitCode> {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut files = vec![(path.to_path_buf(), generated.source.as_str())];
    for beside in &generated.beside {
        files.push((dir.join(&beside.name), beside.contents.as_str()));
    }
    for (file, _) in &files {
        if let Some(error) = overwrites_an_input(file, &generated.files_read) {
            return failed(input, &error);
        }
    }
    for (file, contents) in files {
        if let Err(error) = rpcsmith_build::write_if_changed(&file, contents) {
            return failed(input, &error);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: &Check) -> anyhow::Result<ExitCode> {
    let builder = args.input.builder();
    match rpcsmith_build::generate(&args.input.document, builder.settings()) {
        Ok(generated) => {
            print_diagnostics(&generated.warnings)?;
            print_notes(&generated.notes)?;
            let n = generated.warnings.len();
            let summary = format!(
                "{}: ok, {n} warning{}",
                args.input.document.display(),
                if n == 1 { "" } else { "s" }
            );
            writeln!(std::io::stderr(), "{summary}").context("cannot write to standard error")?;
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => failed(&args.input, &error),
    }
}

fn diff(args: &Diff) -> anyhow::Result<ExitCode> {
    let mut options = rpcsmith_cli::diff::Options::new();
    for dir in &args.include {
        options = options.include_dir(dir);
    }
    for dir in &args.old_include {
        options = options.old_include_dir(dir);
    }
    for dir in &args.new_include {
        options = options.new_include_dir(dir);
    }
    for pattern in &args.server_to_client {
        options = options.server_to_client(pattern);
    }
    let report = match rpcsmith_cli::diff::diff(&args.old, &args.new, &options) {
        Ok(report) => report,
        Err(error) => {
            print_diagnostics(error.diagnostics())?;
            return Ok(ExitCode::from(2));
        }
    };
    let text = match args.format {
        Format::Text => report.to_string(),
        Format::Json => serde_json::to_string_pretty(&report).context("cannot write JSON")?,
    };
    writeln!(std::io::stdout().lock(), "{text}").context("cannot write to standard output")?;
    Ok(if report.is_breaking() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The error when `output` is a file the generator read (`generate api.json -o
/// api.json`, or a file its `$ref`s reach): writing would destroy an input.
fn overwrites_an_input(output: &Path, files_read: &[PathBuf]) -> Option<Error> {
    let output_file = std::fs::canonicalize(output).ok()?;
    files_read
        .iter()
        .any(|f| std::fs::canonicalize(f).is_ok_and(|f| f == output_file))
        .then(|| {
            let message = "the output is a file the generator read (the document or a file its $refs reach): refusing to overwrite it";
            let d = Diagnostic::error(output, (0, 0), "", message);
            Error::new(ErrorKind::Io, vec![d])
        })
}

/// Prints every diagnostic of a failed generation; exit status 1.
fn failed(input: &Input, error: &Error) -> anyhow::Result<ExitCode> {
    print_diagnostics(error.diagnostics())?;
    let errors = error.diagnostics().iter().filter(|d| d.is_error()).count();
    let plural = if errors == 1 { "" } else { "s" };
    let doc = input.document.display();
    writeln!(std::io::stderr(), "{doc}: failed, {errors} error{plural}")
        .context("cannot write to standard error")?;
    Ok(ExitCode::FAILURE)
}

/// Prints what the generator recognised, one line each.
fn print_notes(notes: &[String]) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for note in notes {
        writeln!(err, "{note}").context("cannot write to standard error")?;
    }
    Ok(())
}

fn print_diagnostics(diagnostics: &[Diagnostic]) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for d in diagnostics {
        writeln!(err, "{d}").context("cannot write to standard error")?;
    }
    Ok(())
}
