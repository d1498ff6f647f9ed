//! What the diff reports: one [`Finding`] per difference, with who it breaks and where it
//! is in both documents.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

/// Who a difference breaks (see the table in [`crate::diff`]). Neither: compatible.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Breaks {
    /// A client built against the old document fails against a server of the new one.
    pub clients: bool,
    /// A server built against the old document fails a client of the new one (or no
    /// longer implements what the new document describes).
    pub servers: bool,
}

impl Breaks {
    /// Breaks nobody.
    pub const COMPATIBLE: Breaks = Breaks {
        clients: false,
        servers: false,
    };
    /// Breaks existing clients only.
    pub const CLIENTS: Breaks = Breaks {
        clients: true,
        servers: false,
    };
    /// Breaks existing servers only.
    pub const SERVERS: Breaks = Breaks {
        clients: false,
        servers: true,
    };
    /// Breaks both.
    pub const BOTH: Breaks = Breaks {
        clients: true,
        servers: true,
    };

    /// Whether it breaks anyone.
    pub fn is_breaking(self) -> bool {
        self.clients || self.servers
    }

    /// `breaks clients`, `breaks servers`, `breaks clients and servers` or `compatible`.
    pub fn label(self) -> &'static str {
        match (self.clients, self.servers) {
            (true, true) => "breaks clients and servers",
            (true, false) => "breaks clients",
            (false, true) => "breaks servers",
            (false, false) => "compatible",
        }
    }
}

/// What kind of difference a finding is; its JSON name is the kebab-case of the variant
/// (`method-removed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kind {
    /// A method is gone.
    MethodRemoved,
    /// A method is new.
    MethodAdded,
    /// A method without a result (a notification) now has one.
    NotificationBecameRequest,
    /// A method with a result no longer has one.
    RequestBecameNotification,
    /// `paramStructure` changed.
    ParamStructureChanged,
    /// A param is gone.
    ParamRemoved,
    /// A param is new.
    ParamAdded,
    /// An optional param is now required.
    ParamNowRequired,
    /// A required param is now optional.
    ParamNowOptional,
    /// Params sent by position moved.
    ParamOrderChanged,
    /// A param at the same place has another name.
    ParamRenamed,
    /// The JSON types a schema allows changed.
    TypeChanged,
    /// Alternatives (`oneOf`/`anyOf`) appeared, went or changed.
    AlternativesChanged,
    /// `enum` or `const` values changed.
    ValuesChanged,
    /// A bound (`minimum`, `maxLength`, `minItems`, …) changed.
    BoundChanged,
    /// `pattern`, `format` or `multipleOf` changed.
    FormatChanged,
    /// An object member is gone.
    MemberRemoved,
    /// An object member is new.
    MemberAdded,
    /// An optional object member is now required.
    MemberNowRequired,
    /// A required object member is now optional.
    MemberNowOptional,
    /// `additionalProperties` changed.
    AdditionalMembersChanged,
    /// A declared error is gone.
    ErrorRemoved,
    /// A declared error is new.
    ErrorAdded,
    /// A declared error's message changed.
    ErrorMessageChanged,
    /// A declared error's `data` changed.
    ErrorDataChanged,
    /// How many declared errors share a code changed.
    ErrorCountChanged,
    /// A method or param became deprecated (or no longer is).
    DeprecationChanged,
    /// `not`, `if`/`then`/`else` or `patternProperties` changed.
    ApplicatorChanged,
    /// Tuple `items` (one schema per position) changed.
    TupleChanged,
    /// A change whose direction could not be worked out (a `pattern` outside what is
    /// compared): it may break either side, check it by hand. Counted as compatible.
    DirectionUnknown,
}

/// One end of a finding: a place in one of the two documents.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Place {
    /// The file, as the loader names it.
    pub file: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The JSON pointer in that file.
    pub pointer: String,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        let file = self.file.display();
        write!(f, "{file}:{}:{}: at {pointer}", self.line, self.column)
    }
}

/// One difference between the two documents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// What changed.
    pub kind: Kind,
    /// Who it breaks.
    pub breaks: Breaks,
    /// What changed, in one line, in the documents' terms.
    pub message: String,
    /// The schema it is in, by its `$ref` name or title, and the members from there
    /// (`` `TXN_RECEIPT`.execution_status ``); `None` for a method, a param, an error, or a
    /// schema without a name on the way.
    pub schema: Option<String>,
    /// Where the difference is met on the wire: `method params.name.member[]`, one per
    /// use (a changed shared schema is met through every method that uses it).
    pub uses: Vec<String>,
    /// Where it is in the old document (where it was, or the place that lacks it).
    pub old: Place,
    /// Where it is in the new document (where it is, or the place that lacks it).
    pub new: Place,
}

/// How many uses a finding's text names before `(+N more)`.
const USES_SHOWN: usize = 3;

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.kind {
            Kind::DirectionUnknown => "direction unknown",
            _ => self.breaks.label(),
        };
        write!(f, "{label}: ")?;
        if let Some(schema) = &self.schema {
            write!(f, "{schema}: ")?;
        }
        write!(f, "{}", self.message)?;
        let shown: Vec<&str> = self
            .uses
            .iter()
            .take(USES_SHOWN)
            .map(String::as_str)
            .collect();
        if !shown.is_empty() {
            write!(f, " (in {}", shown.join(", "))?;
            if self.uses.len() > USES_SHOWN {
                write!(f, " and {} more", self.uses.len() - USES_SHOWN)?;
            }
            write!(f, ")")?;
        }
        write!(f, "\n  old: {}\n  new: {}", self.old, self.new)
    }
}
