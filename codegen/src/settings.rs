//! What one generation is asked to produce: the settings the `build.rs` builder and the
//! CLI collect, and the pipeline reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Diagnostic, Error, ErrorKind};
use crate::load::Options;
use crate::render::TemplateHelper;
use crate::subscription::Subscription;

/// Everything a generation run is configured with.
///
/// The build.rs builder (`configure()`) and the CLI fill it; the pipeline only reads it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Settings {
    /// How the document is loaded: include directories for `$ref`s, strictness.
    pub load: Options,
    /// Emit the typed client (`<Doc>Client` and its batch builder).
    pub client: bool,
    /// Emit the server trait (`<Doc>Server`) and its dispatcher.
    pub server: bool,
    /// Give every method of the handler traits (`<Doc>Server`, `<Doc>Listener`) a default
    /// body answering `-32601`, so that a server implements only what it serves.
    pub partial: bool,
    /// Generate constraint checks (default `true`): the keywords of the schemas that
    /// the Rust types do not express (`minLength`, `pattern`, `maximum`, …), checked
    /// by the dispatcher before each handler runs, and by the client before sending
    /// when it is built with `validate_params(true)`.
    pub validation: bool,
    /// The module name (file stem of the output, `include_api!` name); by default the
    /// `<Doc>` of `<Doc>Client` (the document's title, or its file name) in snake case.
    pub module: Option<String>,
    /// How a method whose `paramStructure` is `either` (or absent) sends its params:
    /// by position unless set (every server that takes both shapes takes an array, and
    /// many, such as Ethereum nodes, take nothing else).
    pub either_default: ParamsBy,
    /// Per-schema overrides, keyed by the schema's JSON pointer in the root document
    /// (`/components/schemas/Pet`, or a property's: `/components/schemas/Pet/properties/id`)
    /// or `file#pointer` for another file.
    pub overrides: BTreeMap<String, Override>,
    /// A directory whose `*.hbs` files replace the built-in templates of the same name;
    /// its other `*.hbs` files are partials, named by their path in it without `.hbs`.
    pub templates_dir: Option<PathBuf>,
    /// Partials the templates may include (`{{> name}}`): name → file. They take
    /// precedence over a partial of `templates_dir` of the same name.
    pub template_partials: BTreeMap<String, PathBuf>,
    /// Rust helpers the templates may call (`{{name arg key=value}}`), by name.
    pub template_helpers: BTreeMap<String, TemplateHelper>,
    /// Wire-name patterns of the methods the server sends to the client (`*` matches any
    /// run of characters: `starknet_subscription*`, `*`). Every other method goes from
    /// the client to the server. A pattern that matches no method is a warning.
    pub server_to_client: Vec<String>,
    /// Wire-name patterns of the methods either side sends (MCP's `ping`, progress and
    /// cancellation): they get client, server, push and listener items alike. They take
    /// precedence over [`Settings::server_to_client`]. A pattern that matches no method
    /// is a warning.
    pub both_ways: Vec<String>,
    /// Subscriptions declared for documents that cannot say so themselves, by subscribe
    /// method (wire name). They take precedence over the method's `x-subscription`.
    pub subscriptions: BTreeMap<String, Subscription>,
    /// Whether subscriptions are recognised from the conventions of real documents:
    /// Starknet's `<prefix>_subscribe<X>` and Ethereum's `eth_subscribe` (default
    /// `true`).
    pub conventions: bool,
    /// Keep the members an object schema allows without describing them (no
    /// `additionalProperties`: JSON Schema accepts any other member) in a flattened map
    /// of JSON values, so that a value re-encodes with them (default `false`: a struct
    /// has its listed fields only, and other members are dropped on decode).
    pub keep_undescribed: bool,
    /// Implement `schemars::JsonSchema` on every generated type, returning the
    /// document's own schema of it (the user's crate enables the runtime's `schemars`
    /// feature). Off by default.
    pub json_schema: bool,
    /// Wire-name patterns (`*` matches any run of characters; `*` alone: the whole
    /// document) of the methods whose one by-name param is in fact the whole params
    /// object: some generators describe `{"a": 1, "b": 2}` as one param `request` of
    /// that object's schema. For them the client sends that param's value as the params
    /// themselves, and the server reads the params as that value. A matched method
    /// without exactly one param is a warning.
    pub params_object: Vec<String>,
    /// Type `type: number` as `serde_json::Number`, exact to every digit, instead of
    /// `f64` (default `false`: `f64`, an integral value within ±2^53 written without
    /// `.0`).
    pub exact_numbers: bool,
    /// The file, beside the module's file, that holds the document answered on
    /// `rpc.discover`: the module includes it (`include_str!`), and whoever writes the
    /// module writes it too ([`Generated::beside`](crate::Generated::beside)). Default:
    /// `<module>.discover.json`.
    pub document_file: Option<String>,
    /// Embed the document answered on `rpc.discover` in the module as one string literal
    /// instead of in a file beside it (default `false`): for a module with no file
    /// beside it, such as one written to standard output.
    pub document_inline: bool,
    /// The module is a module file of its own (`mod api;`, what the CLI writes) rather
    /// than `include!`d: it begins with an inner attribute allowing the lints generated
    /// code can trigger (default `false`: whoever includes it allows them, as
    /// `rpcsmith::include_api!` does).
    pub module_file: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            load: Options::new(),
            client: true,
            server: true,
            partial: false,
            validation: true,
            module: None,
            either_default: ParamsBy::Position,
            overrides: BTreeMap::new(),
            templates_dir: None,
            template_partials: BTreeMap::new(),
            template_helpers: BTreeMap::new(),
            server_to_client: Vec::new(),
            both_ways: Vec::new(),
            subscriptions: BTreeMap::new(),
            conventions: true,
            params_object: Vec::new(),
            keep_undescribed: false,
            json_schema: false,
            exact_numbers: false,
            document_file: None,
            document_inline: false,
            module_file: false,
        }
    }
}

impl Settings {
    /// Whether the method named `method` is sent by the server to the client: its wire
    /// name matches one of the [`server_to_client`](Self::server_to_client) patterns.
    pub fn is_server_to_client(&self, method: &str) -> bool {
        self.server_to_client
            .iter()
            .any(|pattern| crate::direction::matches(pattern, method))
    }

    /// The settings that generate the types alone (every schema as a Rust type): the
    /// defaults with neither client nor server.
    pub fn types_only() -> Settings {
        Settings {
            client: false,
            server: false,
            ..Settings::default()
        }
    }

    /// The module name: the one set, or `doc_words` (the words `<Doc>` of `<Doc>Client`
    /// is made of: the document's title or file name) in snake case, word by word.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Invalid`], naming `document`, when the name set is not a Rust
    /// identifier (a keyword, `my-api`, `r#x`).
    pub(crate) fn module_name(&self, document: &Path, doc_words: &str) -> Result<String, Error> {
        let Some(name) = &self.module else {
            return Ok(crate::naming::module_name(doc_words));
        };
        if syn::parse_str::<syn::Ident>(name).is_ok() && !name.starts_with("r#") {
            return Ok(name.clone());
        }
        let message = format!("module name {name:?} is not a Rust identifier");
        let d = Diagnostic::error(document, (0, 0), "", message);
        Err(Error::new(ErrorKind::Invalid, vec![d]))
    }
}

/// How params go on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamsBy {
    /// An object keyed by param name.
    Name,
    /// An array in declaration order.
    Position,
}

/// What to do differently for one schema.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Override {
    /// Give the generated type this name instead of the derived one.
    pub rename: Option<String>,
    /// Do not generate a type: use this existing Rust path (`crate::money::Amount`).
    pub replace: Option<String>,
    /// Extra derives on the generated type (`schemars::JsonSchema`).
    pub derives: Vec<String>,
    /// For a property: optional even though `required` lists it (a value without it
    /// decodes, as `None`).
    pub optional: bool,
    /// For a property: other member names accepted on decode (`data` for `input`); the
    /// member is still written under its own name.
    pub aliases: Vec<String>,
}
