//! The `rpcsmith` command-line tool: the generator of `rpcsmith-build` for people who
//! commit generated code, and a checker for OpenRPC documents.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use rpcsmith_build::{Diagnostic, Error, ErrorKind, ParamsBy, configure};

const GENERATE_EXAMPLES: &str = "\
Examples:
  rpcsmith generate openrpc.json -o src/api.rs      client and server into src/api.rs
  rpcsmith generate openrpc.json --client           the client only, to standard output
  rpcsmith generate api/openrpc.json -I shared -o src/api.rs
                                                    $refs also looked up in shared/
  rpcsmith generate ws.json --server-to-client 'starknet_subscription*' -o src/ws.rs
                                                    those methods are sent by the server
  rpcsmith generate eth.json --alias '/components/schemas/GenericTransaction/properties/input=data'
                                                    `data` accepted for `input` on decode

Use the generated file as a module (`mod api;`); it links against the `rpcsmith` crate.";

const CHECK_EXAMPLES: &str = "\
Examples:
  rpcsmith check openrpc.json
  rpcsmith check --strict -I shared api/openrpc.json

Problems print as `file:line:col: at /json/pointer: message`, warnings prefixed with
`warning: `. Exit status: 0 when the document generates (warnings allowed unless
--strict), 1 when it does not.";

const EXAMPLES: &str = "\
Examples:
  rpcsmith generate openrpc.json -o src/api.rs      types, client and server into src/api.rs
  rpcsmith check openrpc.json                       print every problem; exit 1 on errors

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
}

#[derive(Debug, Args)]
struct Generate {
    #[command(flatten)]
    input: Input,
    /// The file to write (only when its content changes); standard output when absent.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Generate the client. With neither --client nor --server, both are generated.
    #[arg(long)]
    client: bool,
    /// Generate the server trait and dispatcher.
    #[arg(long)]
    server: bool,
    /// The name the generated code is named after (`<Name>Client`); default: the
    /// document's title, or its file name.
    #[arg(long, value_name = "NAME")]
    module: Option<String>,
    /// How the client sends the params of methods whose paramStructure is `either` (or
    /// absent): as an array (every server that takes both shapes takes it) or an object.
    #[arg(long, value_enum, value_name = "HOW", default_value_t = EitherDefault::Position)]
    either_default: EitherDefault,
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
    #[command(flatten)]
    overrides: Overrides,
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
            .fold(builder, |b, pattern| b.server_to_client(pattern))
            .strict(self.strict);
        self.overrides.apply(builder)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Generate(args) => generate(args),
        Command::Check(args) => check(args),
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
        .either_default(match args.either_default {
            EitherDefault::Name => ParamsBy::Name,
            EitherDefault::Position => ParamsBy::Position,
        });
    if let Some(name) = &args.module {
        builder = builder.module(name);
    }
    let generated = match rpcsmith_build::generate(&args.input.document, builder.settings()) {
        Ok(generated) => generated,
        Err(error) => return failed(&args.input, &error),
    };
    print_diagnostics(&generated.warnings)?;
    match &args.output {
        Some(path) => {
            if let Some(error) = overwrites_an_input(path, &generated.files_read) {
                return failed(&args.input, &error);
            }
            if let Err(error) = rpcsmith_build::write_if_changed(path, &generated.source) {
                return failed(&args.input, &error);
            }
        }
        None => std::io::stdout()
            .lock()
            .write_all(generated.source.as_bytes())
            .context("cannot write to standard output")?,
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: &Check) -> anyhow::Result<ExitCode> {
    let builder = args.input.builder();
    match rpcsmith_build::generate(&args.input.document, builder.settings()) {
        Ok(generated) => {
            print_diagnostics(&generated.warnings)?;
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

fn print_diagnostics(diagnostics: &[Diagnostic]) -> anyhow::Result<()> {
    let mut err = std::io::stderr().lock();
    for d in diagnostics {
        writeln!(err, "{d}").context("cannot write to standard error")?;
    }
    Ok(())
}
