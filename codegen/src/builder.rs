//! The build.rs front-end: [`configure`] → setters → [`Builder::compile`].

use std::path::{Path, PathBuf};

use crate::emit::{cargo_lines, claim, one_line, write_if_changed};
use crate::error::{Diagnostic, Error, ErrorKind};
use crate::render::TemplateHelper;
use crate::settings::{Override, ParamsBy, Settings};
use crate::subscription::Subscription;

/// Starts configuring code generation from a build script.
///
/// ```no_run
/// // in build.rs's `fn main`
/// rpcsmith_build::configure()
///     .client(true)
///     .server(true)
///     .compile("openrpc.json")
///     .unwrap_or_else(|e| panic!("{e}"));
/// ```
pub fn configure() -> Builder {
    Builder {
        settings: Settings::default(),
        out_dir: None,
    }
}

/// What to generate and where; made by [`configure`], consumed by [`Builder::compile`].
///
/// Every setter takes and returns the builder by value.
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `compile` is called"]
pub struct Builder {
    settings: Settings,
    out_dir: Option<PathBuf>,
}

impl Builder {
    /// Whether to generate the typed client `<Doc>Client` and its batch builder
    /// (default `true`).
    pub fn client(mut self, enabled: bool) -> Self {
        self.settings.client = enabled;
        self
    }

    /// Whether to generate the server trait `<Doc>Server` and its dispatcher
    /// (default `true`).
    pub fn server(mut self, enabled: bool) -> Self {
        self.settings.server = enabled;
        self
    }

    /// Whether every method of the server trait `<Doc>Server` (and of `<Doc>Listener`)
    /// gets a default body that answers `-32601 Method not found` (a notification's does
    /// nothing), so that serving a few of a document's methods takes only those few
    /// (default `false`: a method left out is a compile error).
    ///
    /// The dispatcher still decodes a call's params before its handler runs, so a call
    /// of a method left out with params that do not fit is answered `-32602`; and
    /// `rpc.discover` still answers the whole document. That is deliberate: which default
    /// bodies an implementation overrides is not known to the generator nor visible at
    /// run time, and the document stays the contract that clients are generated from; a
    /// method it lists may answer `-32601` where it is not served. (A `Router` can
    /// serve several partial servers under one merged document.)
    pub fn partial(mut self, enabled: bool) -> Self {
        self.settings.partial = enabled;
        self
    }

    /// Whether to generate constraint checks (default `true`): the schema keywords the
    /// Rust types do not express (`minLength`/`maxLength`, `pattern`, the bounds,
    /// `multipleOf`, `minItems`/`maxItems`, `uniqueItems`, `minProperties`/
    /// `maxProperties`, `const`, the well-known `format`s; see the guide's
    /// validation chapter, `rpcsmith::guide::validation`). The dispatcher answers `-32602` naming the param, the JSON path
    /// and the keyword before the handler runs; a client built with
    /// `validate_params(true)` refuses to send such params. `false` generates none of it.
    pub fn validation(mut self, enabled: bool) -> Self {
        self.settings.validation = enabled;
        self
    }

    /// The directory the module is written to (default: cargo's `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Adds a directory where files named by `$ref`s are looked for after the referring
    /// file's own directory, like `protoc -I`. Repeatable; searched in the order added.
    pub fn include_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.settings.load = self.settings.load.include_dir(dir);
        self
    }

    /// The module's name: the output is `<name>.rs`, and `include_api!("name")` includes
    /// it. It must be a Rust identifier. By default, the `<Doc>` of `<Doc>Client` in snake
    /// case: from the document's `info.title` when it reads as a name (`Petstore` →
    /// `petstore`), else from its file name (`refs-openrpc.json` → `refs`).
    pub fn module(mut self, name: impl Into<String>) -> Self {
        self.settings.module = Some(name.into());
        self
    }

    /// Whether every warning fails the build (default `false`).
    pub fn strict(mut self, strict: bool) -> Self {
        self.settings.load = self.settings.load.strict(strict);
        self
    }

    /// How the client sends the params of a method whose `paramStructure` is `either` or
    /// absent (default [`ParamsBy::Position`]: a server that takes both shapes takes an
    /// array, and Ethereum-style nodes take nothing else; the param names of such
    /// documents are often labels, not names the server knows).
    pub fn either_default(mut self, by: ParamsBy) -> Self {
        self.settings.either_default = by;
        self
    }

    /// Marks the methods whose wire name matches `pattern` as sent by the server to the
    /// client (a subscription's notifications, a language server's requests to its
    /// editor); every other method goes from the client to the server. In `pattern`, `*`
    /// matches any run of characters: `"starknet_subscription*"`, or `"*"` for a document
    /// that describes what the client serves. Repeatable. A pattern that matches no
    /// method is a warning naming it.
    ///
    /// For those methods the module has, instead of client methods and server trait
    /// methods, `<Doc>Push` (the server's typed sender, over the client of a connection:
    /// `rpcsmith::transport::peer::remote(&cx)` or a `Hub`'s) and the trait
    /// `<Doc>Listener` with its `<Doc>ListenerDispatcher` (the client's handlers, given to
    /// its peer's `serve`). `.client(true)` emits the listener, `.server(true)` the push.
    pub fn server_to_client(mut self, pattern: impl Into<String>) -> Self {
        self.settings.server_to_client.push(pattern.into());
        self
    }

    /// Marks the methods whose wire name matches `pattern` (as in
    /// [`Builder::server_to_client`]) as sent by either side, as MCP's `ping`,
    /// `notifications/progress` and `notifications/cancelled` are: each gets a client
    /// method and a server trait method, and a `<Doc>Push` method and a `<Doc>Listener`
    /// method. It takes precedence over `server_to_client`. Repeatable; a pattern that
    /// matches no method is a warning naming it.
    pub fn both_ways(mut self, pattern: impl Into<String>) -> Self {
        self.settings.both_ways.push(pattern.into());
        self
    }

    /// Marks the methods matching `pattern` (wire names, `*` matching any run of
    /// characters, `*` alone every method) as taking their one param as the whole params
    /// object: the client sends the param's value as the params, the server reads the
    /// params as it (for documents whose generator describes the params object as one
    /// by-name param, such as `request`). Repeatable. See [`Settings::params_object`].
    ///
    /// [`Settings::params_object`]: crate::Settings::params_object
    pub fn params_object(mut self, pattern: impl Into<String>) -> Self {
        self.settings.params_object.push(pattern.into());
        self
    }

    /// Declares `method` (its wire name) a subscribe method whose items travel as
    /// `subscription` says, for a document that cannot say so itself (it takes precedence
    /// over the method's `x-subscription`). Parts left out are inferred.
    ///
    /// ```no_run
    /// use rpcsmith_build::Subscription;
    /// rpcsmith_build::configure()
    ///     .subscription(
    ///         "starknet_subscribeNewHeads",
    ///         Subscription::notification("starknet_subscriptionNewHeads")
    ///             .id("subscription_id")
    ///             .item("result")
    ///             .unsubscribe("starknet_unsubscribe"),
    ///     )
    ///     .compile("starknet_ws_api.json")
    ///     .unwrap_or_else(|e| panic!("{e}"));
    /// ```
    ///
    /// The client's method then returns a `Subscription<Item>` (a stream of typed items),
    /// the server trait's method returns the `Items<Item>` to send, and the runtime
    /// answers the unsubscribe method. A subscription that cannot be tied to the
    /// document's methods is a warning naming it, and its methods stay plain.
    pub fn subscription(mut self, method: impl Into<String>, subscription: Subscription) -> Self {
        self.settings
            .subscriptions
            .insert(method.into(), subscription);
        self
    }

    /// Whether subscriptions are recognised from the conventions of real documents
    /// (default `true`): Starknet's `<prefix>_subscribe<X>` with its notification
    /// `<prefix>_subscription<X>` and `<prefix>_unsubscribe`, and Ethereum's
    /// `eth_subscribe` / `eth_subscription` / `eth_unsubscribe`. Off, only the
    /// subscriptions declared (by `x-subscription` or [`subscription`](Self::subscription))
    /// are generated as such.
    pub fn conventions(mut self, recognise: bool) -> Self {
        self.settings.conventions = recognise;
        self
    }

    /// A directory whose `*.hbs` files replace the built-in templates of the same name
    /// (`module.hbs`, `types.hbs`, `types/struct.hbs`, `client.hbs`, `server.hbs`, …; copy
    /// them from the repository's `templates/`); the others stay built in. Any other
    /// `.hbs` file in it is a partial, named by its path without `.hbs` (`doc.hbs` is
    /// `{{> doc}}`, `parts/doc.hbs` is `{{> parts/doc}}`). Templates are rendered by the
    /// `handlebars` crate, in strict mode, without HTML escaping. The output is still
    /// parsed and formatted, so a template that writes invalid Rust fails the build,
    /// naming it. A directory that does not exist fails the build; a partial that no
    /// template includes is a warning (a misspelt `clinet.hbs` would not be used).
    pub fn templates_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.settings.templates_dir = Some(dir.into());
        self
    }

    /// Registers the file at `path` as the partial `name`, which templates include as
    /// `{{> name}}` (with a context: `{{> name field}}`; with hash arguments:
    /// `{{> name key=value}}`). Cargo reruns the build when the file changes.
    pub fn template_partial(mut self, name: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        self.settings
            .template_partials
            .insert(name.into(), path.into());
        self
    }

    /// Registers a Rust helper the templates call as `{{name arg… key=value…}}`: any
    /// [`handlebars::HelperDef`], for instance made with
    /// [`handlebars::handlebars_helper!`] (this crate re-exports the `handlebars` it
    /// renders with, so the versions match). A helper of the name of a built-in one
    /// (`if`, `each`, …) replaces it.
    ///
    /// ```
    /// use rpcsmith_build::handlebars::handlebars_helper;
    ///
    /// handlebars_helper!(shout: |text: String| text.to_uppercase());
    /// let builder = rpcsmith_build::configure().helper("shout", shout);
    /// # let _ = builder;
    /// ```
    pub fn helper(
        mut self,
        name: impl Into<String>,
        helper: impl handlebars::HelperDef + Send + Sync + 'static,
    ) -> Self {
        self.settings
            .template_helpers
            .insert(name.into(), TemplateHelper::new(helper));
        self
    }

    /// Keeps the members an object schema allows without describing them: where a schema
    /// does not say `additionalProperties`, JSON Schema accepts members it does not list,
    /// and with this on, its struct gets a flattened `extra` map of JSON values that
    /// holds them, so a value re-encodes with them. Off by default (the struct has the
    /// listed fields only; other members are dropped on decode).
    pub fn keep_undescribed(mut self, keep: bool) -> Self {
        self.settings.keep_undescribed = keep;
        self
    }

    /// Implements `schemars::JsonSchema` on every generated type, returning the document's
    /// own schema of it (not one derived again from the Rust type): the JSON written in
    /// the document, each `$ref` turned into the schemars generator's reference to the
    /// type it names, so the schema resolves wherever it goes (an MCP tool's input
    /// schema, an OpenAPI document). The crate then needs the runtime's `schemars`
    /// feature (`rpcsmith = { …, features = ["schemars"] }`). Off by default.
    pub fn json_schema(mut self, implement: bool) -> Self {
        self.settings.json_schema = implement;
        self
    }

    /// Types `type: number` as `serde_json::Number`, exact to every digit (beyond 2^53
    /// too), instead of `f64` (the default; the runtime writes an integral `f64` within
    /// ±2^53 as an integer, so values keep their text).
    pub fn exact_numbers(mut self, exact: bool) -> Self {
        self.settings.exact_numbers = exact;
        self
    }

    /// Names the type generated for the schema at `pointer` `name` instead of the derived
    /// name. `pointer` is the schema's JSON pointer in the document
    /// (`/components/schemas/Pet`) or `file#pointer` for a schema in another file, the file
    /// relative to the document (`defs/pet.json#/Pet`).
    pub fn rename(mut self, pointer: impl Into<String>, name: impl Into<String>) -> Self {
        self.entry(pointer).rename = Some(name.into());
        self
    }

    /// Generates no type for the schema at `pointer` and uses the existing Rust type at
    /// `path` (`crate::money::Amount`) wherever it is used. The type must implement what
    /// generated types derive: `Debug`, `Clone`, `PartialEq`, `Serialize`, `Deserialize`.
    pub fn replace(mut self, pointer: impl Into<String>, path: impl Into<String>) -> Self {
        self.entry(pointer).replace = Some(path.into());
        self
    }

    /// Adds a derive (`schemars::JsonSchema`) to the type generated for the schema at
    /// `pointer`, or to every generated type when `pointer` is `*`. Repeatable.
    pub fn derive(mut self, pointer: impl Into<String>, path: impl Into<String>) -> Self {
        self.entry(pointer).derives.push(path.into());
        self
    }

    /// Makes the property at `pointer` (`/components/schemas/Tx/properties/blockTimestamp`)
    /// optional though its schema's `required` lists it: for a peer that leaves it out
    /// where the document says it may not. Its field becomes an `Option`.
    pub fn optional(mut self, pointer: impl Into<String>) -> Self {
        self.entry(pointer).optional = true;
        self
    }

    /// Accepts the property at `pointer` (`/components/schemas/GenericTransaction/properties/input`)
    /// under the member name `name` too on decode (`data`): for peers that send it so. It is
    /// still written under its own name. Repeatable.
    pub fn alias(mut self, pointer: impl Into<String>, name: impl Into<String>) -> Self {
        self.entry(pointer).aliases.push(name.into());
        self
    }

    fn entry(&mut self, pointer: impl Into<String>) -> &mut Override {
        self.settings.overrides.entry(pointer.into()).or_default()
    }

    /// The settings collected so far.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Generates the module for the OpenRPC document at `path` and writes it to
    /// `<out_dir>/<module>.rs` (and the short `<module>.mod.rs` that
    /// `rpcsmith::include_api!("<module>")` includes, and the files the module includes:
    /// `<module>.discover.json`, the document its server answers on `rpc.discover`) when
    /// its content changed, then prints
    /// `cargo:rerun-if-changed=` for every file read and `cargo:warning=` for every warning.
    ///
    /// # Errors
    ///
    /// An [`Error`] whose `Display` lists every problem as `file:line:col: at /pointer:
    /// message`: the document cannot be read, is not valid OpenRPC, has a `$ref` that
    /// cannot be resolved, cannot be generated, has warnings under [`strict`](Self::strict);
    /// or `OUT_DIR` is not set, or the output cannot be written, or another document was
    /// generated into the same module file earlier in this build (two `compile` calls
    /// with the same module name: give one another [`module`](Self::module)).
    pub fn compile(self, path: impl AsRef<Path>) -> Result<(), Error> {
        // A failed build script is always rerun by cargo, so a failure prints nothing.
        let emitted = self.emit(path)?;
        for line in emitted.cargo_lines() {
            println!("{line}");
        }
        Ok(())
    }

    /// Like [`compile`](Self::compile), without printing: returns what was written and the
    /// lines cargo should be told.
    ///
    /// # Errors
    ///
    /// As [`compile`](Self::compile).
    pub fn emit(self, path: impl AsRef<Path>) -> Result<Emitted, Error> {
        let path = path.as_ref();
        let out_dir = self
            .out_dir
            .clone()
            .or_else(|| std::env::var_os("OUT_DIR").map(PathBuf::from))
            .ok_or_else(|| no_out_dir(path))?;
        let generated = crate::generate::generate(path, &self.settings)?;
        let module = generated.module;
        let mut files_read = vec![path.to_path_buf()];
        // The directory too: a template added to it must rerun the build.
        files_read.extend(self.settings.templates_dir.clone());
        merge_files(&mut files_read, generated.files_read);
        let file = out_dir.join(format!("{module}.rs"));
        claim(&file, &module, path)?;
        let mut written = write_if_changed(&file, &generated.source)?;
        for beside in &generated.beside {
            written |= write_if_changed(&out_dir.join(&beside.name), &beside.contents)?;
        }
        write_if_changed(
            &out_dir.join(format!("{module}.mod.rs")),
            &wrapper(&module, path),
        )?;
        Ok(Emitted {
            file,
            module,
            written,
            files_read,
            warnings: generated.warnings,
            notes: generated.notes,
        })
    }
}

fn merge_files(files: &mut Vec<PathBuf>, more: Vec<PathBuf>) {
    for f in more {
        if !files.contains(&f) {
            files.push(f);
        }
    }
}

fn no_out_dir(path: &Path) -> Error {
    let d = Diagnostic::error(
        path,
        (0, 0),
        "",
        "OUT_DIR is not set (cargo sets it only while it runs a build script): call `compile` from `build.rs`, or give the builder `.out_dir(\"…\")`",
    );
    Error::new(ErrorKind::Io, vec![d])
}

/// The file `include_api!("name")` includes: it declares the module and includes the
/// generated file beside it (`include!` paths are relative to the including file).
/// The generated file sets its own lint levels (`templates/module.hbs`).
fn wrapper(module: &str, document: &Path) -> String {
    let from = document.file_name().unwrap_or_default().to_string_lossy();
    format!(
        "// @generated by rpcsmith-build: the module `rpcsmith::include_api!(\"{module}\")` declares.\n\
         ::rpcsmith::__private::generated_module! {{\n    \
         /// The API generated from `{from}`.\n    \
         mod {module} {{\n        include!(\"{module}.rs\");\n    }}\n}}\n"
    )
}

/// What [`Builder::emit`] did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Emitted {
    /// The file holding the module.
    pub file: PathBuf,
    /// The module name (the file's stem).
    pub module: String,
    /// Whether the file, or a file it includes, was written (`false`: they already held
    /// this content).
    pub written: bool,
    /// Every file read: the document, the files its `$ref`s reach, user templates.
    pub files_read: Vec<PathBuf>,
    /// The warnings.
    pub warnings: Vec<Diagnostic>,
    /// What the generator recognised (subscriptions), one line each, `note: ` first.
    pub notes: Vec<String>,
}

impl Emitted {
    /// The lines [`Builder::compile`] prints: `cargo:rerun-if-changed=` for each file read,
    /// then `cargo:warning=` for each warning and each note, one line each.
    pub fn cargo_lines(&self) -> Vec<String> {
        let mut lines = cargo_lines(&self.files_read, &self.warnings);
        lines.extend(
            self.notes
                .iter()
                .map(|n| format!("cargo:warning={}", one_line(n))),
        );
        lines
    }
}
