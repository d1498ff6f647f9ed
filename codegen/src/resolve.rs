//! `$ref` resolution across the loaded files.
//!
//! A [`Location`] names one JSON value: a loaded file and a JSON pointer into it. The
//! [`Resolver`] owns every file read so far, resolves a `$ref` written at one location to
//! the location it designates (loading other files on demand), and follows chains of
//! `$ref`s, reporting pure-ref cycles.
//!
//! How a reference is resolved:
//!
//! - The fragment (after `#`) is percent-decoded, then read as a JSON pointer (`~0`, `~1`)
//!   into the target file: any value, not only `#/components/…`.
//! - A reference with a path part names another file: first relative to the directory of
//!   the referring file, then relative to each include directory in order (like
//!   `protoc -I`); the first that exists wins. Remote (`http:` …) references are refused:
//!   the generator never uses the network.
//! - A local pointer that leads nowhere from the document root is retried against each
//!   enclosing schema resource of the referring value (nearest first: an ancestor object
//!   holding `$schema`, `$id` or `definitions`). This is how documents that embed whole
//!   draft-07 schemas (with their own `#/definitions/…`) are read.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

use crate::error::{Cause, Diagnostic, Error, ErrorKind};
use crate::pointer;
use crate::source::Source;

/// One loaded file, by the order it was loaded (the root document is the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(u32);

impl FileId {
    /// The index of the file in load order (the root document is 0).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One JSON value: a file and an (escaped, RFC 6901) pointer into it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The file holding the value.
    pub file: FileId,
    /// The JSON pointer of the value in that file; empty for the file's root.
    pub pointer: String,
}

impl Location {
    /// The location of `pointer` in `file`.
    pub fn new(file: FileId, pointer: impl Into<String>) -> Self {
        Location {
            file,
            pointer: pointer.into(),
        }
    }

    /// The root value of `file`.
    pub fn root(file: FileId) -> Self {
        Location::new(file, String::new())
    }

    /// The member `key` (unescaped) of the object here.
    pub fn key(&self, key: &str) -> Self {
        Location::new(self.file, pointer::push(&self.pointer, key))
    }

    /// The element `index` of the array here.
    pub fn index(&self, index: usize) -> Self {
        Location::new(self.file, format!("{}/{index}", self.pointer))
    }

    /// The enclosing value; `None` at a file's root.
    pub fn parent(&self) -> Option<Self> {
        pointer::parent(&self.pointer).map(|p| Location::new(self.file, p))
    }
}

#[derive(Debug)]
struct Loaded {
    source: Source,
    /// The path the file was opened with (for `rerun-if-changed`).
    opened: PathBuf,
    /// The absolute, normalised directory holding the file (refs are relative to it).
    dir: PathBuf,
}

/// Every file loaded for one document, and the `$ref` resolution between them.
#[derive(Debug, Default)]
pub struct Resolver {
    files: Vec<Loaded>,
    by_path: HashMap<PathBuf, FileId>,
    failed: HashMap<PathBuf, (ErrorKind, Diagnostic)>,
    include_dirs: Vec<PathBuf>,
    /// Display directory of the root document, and its absolute form.
    base: Option<(PathBuf, PathBuf)>,
    /// Where each `$ref` chain followed so far ends: every location along a chain that
    /// holds a `$ref` → the first location without one. Long chains of aliases are then
    /// walked once, not once per alias (which made them quadratic).
    ends: HashMap<Location, Location>,
}

impl Resolver {
    /// An empty resolver that looks for referenced files in `include_dirs` after the
    /// referring file's directory.
    pub fn new(include_dirs: Vec<PathBuf>) -> Self {
        Resolver {
            include_dirs,
            ..Resolver::default()
        }
    }

    /// Loads a file (once: loading it again returns the same id). The first file loaded
    /// is the root document: diagnostics name it as given (an absolute path is shortened
    /// to what follows the current directory, or to its file name) and name every other
    /// file relative to it.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Io`] when the file cannot be read, [`ErrorKind::Syntax`] when it is
    /// not JSON.
    pub fn load(&mut self, path: impl AsRef<Path>) -> Result<FileId, Error> {
        self.load_path(path.as_ref())
            .map_err(|(kind, d)| Error::new(kind, vec![d]))
    }

    fn load_path(&mut self, opened: &Path) -> Result<FileId, (ErrorKind, Diagnostic)> {
        let absolute = absolute(opened);
        let key = std::fs::canonicalize(opened).unwrap_or_else(|_| absolute.clone());
        if let Some(&id) = self.by_path.get(&key) {
            return Ok(id);
        }
        if let Some(failure) = self.failed.get(&key) {
            return Err(failure.clone());
        }
        if self.base.is_none() {
            let shown = root_display(opened, &absolute);
            let shown_dir = shown.parent().map(Path::to_path_buf).unwrap_or_default();
            let dir = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
            self.base = Some((shown_dir, dir));
        }
        let shown = self.display_of(&absolute);
        match Source::read(opened, shown) {
            Ok(source) => {
                let id = FileId(self.files.len() as u32);
                let dir = absolute.parent().map(Path::to_path_buf).unwrap_or_default();
                let opened = opened.to_path_buf();
                self.files.push(Loaded {
                    source,
                    opened,
                    dir,
                });
                self.by_path.insert(key, id);
                Ok(id)
            }
            Err(failure) => {
                self.failed.insert(key, failure.clone());
                Err(failure)
            }
        }
    }

    /// How diagnostics name the file at `absolute`: relative to the root document.
    fn display_of(&self, absolute: &Path) -> PathBuf {
        match &self.base {
            Some((shown_dir, dir)) => normalize(&shown_dir.join(relative(absolute, dir))),
            None => absolute.file_name().map(PathBuf::from).unwrap_or_default(),
        }
    }

    /// The value at `location`; `None` when the pointer leads nowhere.
    pub fn get(&self, location: &Location) -> Option<&Value> {
        let root = self.files.get(location.file.index())?.source.value();
        if location.pointer.is_empty() {
            Some(root)
        } else {
            root.pointer(&location.pointer)
        }
    }

    /// How diagnostics name `file` (never an absolute path of this machine).
    pub fn display_path(&self, file: FileId) -> &Path {
        self.files
            .get(file.index())
            .map_or(Path::new(""), |f| f.source.path())
    }

    /// The 1-based `(line, column)` of `location`: where its value starts in its file, or
    /// where it would be for a pointer that reaches no value (its nearest enclosing value).
    pub fn position(&self, location: &Location) -> (usize, usize) {
        self.files
            .get(location.file.index())
            .map_or((0, 0), |f| f.source.position(&location.pointer))
    }

    /// An error diagnostic at `location`.
    pub fn error_at(&self, location: &Location, message: impl Into<String>) -> Diagnostic {
        let file = self.display_path(location.file).to_path_buf();
        Diagnostic::error(file, self.position(location), &location.pointer, message)
    }

    /// A warning diagnostic at `location`.
    pub fn warning_at(&self, location: &Location, message: impl Into<String>) -> Diagnostic {
        let file = self.display_path(location.file).to_path_buf();
        Diagnostic::warning(file, self.position(location), &location.pointer, message)
    }

    /// `path#pointer` for messages; just `#pointer` inside `within`.
    pub fn describe(&self, location: &Location, within: FileId) -> String {
        if location.file == within {
            format!("#{}", location.pointer)
        } else {
            let path = self.display_path(location.file).display();
            format!("{path}#{}", location.pointer)
        }
    }

    /// Every file read, as opened (for `cargo:rerun-if-changed`), in load order.
    pub fn files_read(&self) -> Vec<PathBuf> {
        self.files.iter().map(|f| f.opened.clone()).collect()
    }

    /// How many files are loaded.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// How many elements the array at `location` has; 0 where there is no array.
    pub fn array_len(&self, location: &Location) -> usize {
        self.get(location)
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }

    /// The `$ref` string of the object at `location`, if it has one.
    pub fn ref_at(&self, location: &Location) -> Option<&str> {
        self.get(location)?.get("$ref")?.as_str()
    }

    /// Resolves `reference`, the `$ref` written in the object at `from`, to the location
    /// it designates, loading another file if it names one.
    ///
    /// # Errors
    ///
    /// A diagnostic at `from`'s `$ref` naming the reference when it is malformed, remote,
    /// names a file that cannot be found or read, or points to nothing.
    pub fn resolve_ref(
        &mut self,
        from: &Location,
        reference: &str,
    ) -> Result<Location, Diagnostic> {
        let (path_part, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let fail = |this: &Self, why: String| {
            this.error_at(
                &from.key("$ref"),
                format!("unresolvable $ref \"{reference}\": {why}"),
            )
        };
        let Some(target_pointer) = pointer::percent_decode(fragment) else {
            return Err(fail(self, "bad percent-encoding in the fragment".into()));
        };
        if !pointer::is_valid(&target_pointer) {
            let why = "the fragment is not a JSON pointer (anchors and $id are not supported)";
            return Err(fail(self, why.into()));
        }
        let file = if path_part.is_empty() {
            from.file
        } else {
            self.load_referenced(from, path_part)
                .map_err(|(why, cause)| Diagnostic {
                    cause,
                    ..fail(self, why)
                })?
        };
        let target = Location::new(file, target_pointer.into_owned());
        if self.get(&target).is_some() {
            return Ok(target);
        }
        if path_part.is_empty()
            && let Some(found) = self.within_enclosing_schema(from, &target.pointer)
        {
            return Ok(found);
        }
        let mut why = format!("no value at {}", display_pointer(&target.pointer));
        if file != from.file {
            why.push_str(&format!(" in {}", self.display_path(file).display()));
        }
        Err(fail(self, why))
    }

    /// Loads the file a reference names: relative to the referring file, then to each
    /// include directory. The error is the reason, for the caller's message.
    fn load_referenced(
        &mut self,
        from: &Location,
        path_part: &str,
    ) -> Result<FileId, (String, Option<Cause>)> {
        if path_part.contains("://") || path_part.starts_with("urn:") {
            return Err(("remote references are not supported".into(), None));
        }
        let decoded = pointer::percent_decode(path_part)
            .ok_or_else(|| ("bad percent-encoding in the file path".to_string(), None))?;
        let relative_path: PathBuf = Path::new(decoded.as_ref())
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect();
        let from_dir = match self.files.get(from.file.index()) {
            Some(f) => f.dir.clone(),
            None => return Err(("the referring file is not loaded".into(), None)),
        };
        let mut candidates = vec![from_dir.join(&relative_path)];
        candidates.extend(self.include_dirs.iter().map(|d| d.join(&relative_path)));
        let Some(found) = candidates.iter().find(|c| c.is_file()) else {
            let why = self.not_found(&from_dir, &relative_path);
            let cause = Cause::MissingFile {
                path: relative_path,
            };
            return Err((why, Some(cause)));
        };
        self.load_path(found)
            .map_err(|(_, d)| (format!("cannot load it: {d}"), None))
    }

    /// Why a referenced file was not found, and what would find it: each absolute path
    /// tried with the folder it was resolved against (the referring file's, then each
    /// include directory); and where a folder above the referring file holds the file
    /// (references written relative to a repository's root, as Starknet's `./api/…`), the
    /// include directory that would find it, written as the document's path was given.
    fn not_found(&self, from_dir: &Path, relative_path: &Path) -> String {
        let mut why = format!(
            "file not found: tried {} (resolved against {}, the folder of the file holding the $ref)",
            absolute(&from_dir.join(relative_path)).display(),
            from_dir.display(),
        );
        for dir in self.include_dirs.iter().map(|d| absolute(d)) {
            let tried = absolute(&dir.join(relative_path));
            why.push_str(&format!(
                ", then {} (include directory {})",
                tried.display(),
                dir.display()
            ));
        }
        let holder = from_dir
            .ancestors()
            .skip(1)
            .find(|folder| folder.join(relative_path).is_file());
        if let Some(folder) = holder {
            let dir = self.as_given(folder);
            why.push_str(&format!(
                "; it exists under {}: add `.include_dir(\"{dir}\")` to the builder (CLI: `-I {dir}`)",
                folder.display(),
            ));
        }
        why
    }

    /// The folder `absolute` as a path the user can pass where they passed the root
    /// document's: relative like it when the document was named relative to the current
    /// directory, else absolute.
    fn as_given(&self, absolute: &Path) -> String {
        let relative_to_current = self.base.as_ref().is_some_and(|(shown_dir, dir)| {
            let shown_dir = if shown_dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                shown_dir.as_path()
            };
            shown_dir.is_relative() && self::absolute(shown_dir) == *dir
        });
        if !relative_to_current {
            return absolute.display().to_string();
        }
        let shown = self.display_of(absolute);
        if shown.as_os_str().is_empty() {
            ".".to_owned()
        } else {
            shown.display().to_string()
        }
    }

    /// Retries a local pointer against each enclosing schema resource of `from`.
    fn within_enclosing_schema(&self, from: &Location, target: &str) -> Option<Location> {
        let mut ancestor = from.parent();
        while let Some(at) = ancestor {
            if at.pointer.is_empty() {
                return None;
            }
            let is_resource = self.get(&at).and_then(Value::as_object).is_some_and(|o| {
                o.contains_key("$schema") || o.contains_key("$id") || o.contains_key("definitions")
            });
            if is_resource {
                let candidate = Location::new(at.file, format!("{}{target}", at.pointer));
                if self.get(&candidate).is_some() {
                    return Some(candidate);
                }
            }
            ancestor = at.parent();
        }
        None
    }

    /// Follows `$ref` from `location` until a value that has none, and returns it.
    /// Every object with a string `$ref` is followed, whatever sibling keywords it has
    /// (read them at the locations along the way if they matter). Where a chain ends is
    /// remembered, so following it again (or from any link of it) takes one lookup.
    ///
    /// # Errors
    ///
    /// The first unresolvable link (see [`Resolver::resolve_ref`]), or a cycle of pure
    /// references (`A → B → A`), reported at the `$ref` of the cycle's smallest location
    /// (so every way into one cycle gives the same diagnostic).
    pub fn deref(&mut self, location: &Location) -> Result<Location, Diagnostic> {
        let mut chain: Vec<Location> = Vec::new();
        let mut on_chain: HashSet<Location> = HashSet::new();
        let mut current = location.clone();
        let end = loop {
            if let Some(end) = self.ends.get(&current) {
                break end.clone();
            }
            let Some(reference) = self.ref_at(&current).map(str::to_owned) else {
                break current;
            };
            if !on_chain.insert(current.clone()) {
                let start = chain.iter().position(|l| *l == current).unwrap_or(0);
                return Err(self.cycle_error(&chain[start..]));
            }
            let next = self.resolve_ref(&current, &reference)?;
            chain.push(current);
            current = next;
        };
        for link in chain {
            self.ends.insert(link, end.clone());
        }
        Ok(end)
    }

    /// The cycle, reported once however it is reached: at its smallest location, listed
    /// from there.
    fn cycle_error(&self, cycle: &[Location]) -> Diagnostic {
        let start = (0..cycle.len()).min_by_key(|&i| &cycle[i]).unwrap_or(0);
        let first = &cycle[start];
        let steps: Vec<String> = cycle[start..]
            .iter()
            .chain(&cycle[..start])
            .chain(std::iter::once(first))
            .map(|l| self.describe(l, first.file))
            .collect();
        let message = format!("$ref cycle: {}", steps.join(" -> "));
        self.error_at(&first.key("$ref"), message)
    }
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the root"
    } else {
        pointer
    }
}

/// How the root document is named: as given when relative; an absolute path is shortened
/// to what follows the current directory, else to its file name.
fn root_display(given: &Path, absolute: &Path) -> PathBuf {
    if given.is_relative() {
        return given.to_path_buf();
    }
    let cwd = std::env::current_dir().map(|d| normalize(&d)).ok();
    if let Some(rest) = cwd.and_then(|d| absolute.strip_prefix(d).ok().map(Path::to_path_buf)) {
        return rest;
    }
    absolute.file_name().map(PathBuf::from).unwrap_or_default()
}

/// `path` made absolute against the current directory and normalised lexically.
fn absolute(path: &Path) -> PathBuf {
    normalize(&std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// Removes `.` and folds `name/..` lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out.iter().collect()
}

/// `path` relative to `base` (both absolute and normalised), lexically, with `..`.
fn relative(path: &Path, base: &Path) -> PathBuf {
    let p: Vec<_> = path.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out
}
