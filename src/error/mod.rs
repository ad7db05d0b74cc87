//! The library's error type.
//!
//! Each kind of failure is its own variant, so a library user can match on it
//! (`Error::kind`) instead of reading message text; where it is known, the
//! variant carries the file and position it is about. Advice for the user
//! ("use --load-restrictor LoadRestrictionsNone to allow it", "did you mean
//! …") is data (`Error::hint`), not part of the message. The chain of
//! kustomizations and entries that led to an error is kept as `Context`
//! layers, outermost first; `Error::report` renders all of it for a terminal.

mod git;
mod helm;
mod plugin;
mod remote;

pub use git::GitError;
pub use helm::{HelmError, HelmProblem};
pub use plugin::{PluginError, PluginProblem};
pub use remote::{RemoteError, RemoteProblem};
use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong while building.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// Malformed YAML, with the position of the problem (1-based).
    #[error("{source_name}:{line}:{col}: {msg}")]
    Yaml {
        /// The file (or a name for text that is not a file).
        source_name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        col: usize,
        /// What is wrong.
        msg: String,
    },
    /// A field of a kustomization file with an unknown name, a wrong type or a
    /// bad value.
    #[error("{0}")]
    Field(Box<FieldError>),
    /// A file or directory an entry names does not exist.
    #[error("{what} '{}' does not exist", path.display())]
    NotFound {
        /// What the entry is ("resource", "patch file", …).
        what: String,
        /// The path as joined from the entry.
        path: PathBuf,
    },
    /// The load restrictor refused a file outside the kustomization's root.
    #[error(
        "security: file '{}' (resolved to '{}') is not in or below the kustomization root '{}'",
        .0.entry,
        .0.real.display(),
        .0.root.display()
    )]
    Restricted(Box<Restricted>),
    /// A base or component that contains a kustomization already being built.
    #[error(
        "cycle detected: '{}' ({}) contains a kustomization that is already being built: {}",
        .0.entry,
        .0.dir.display(),
        join_paths(&.0.chain)
    )]
    Cycle(Box<Cycle>),
    /// A helm chart that could not be inflated.
    #[error("{0}")]
    Helm(Box<HelmError>),
    /// A git revision could not be read (`kbuild diff --ref`).
    #[error("{0}")]
    Git(Box<GitError>),
    /// An external plugin (exec plugin, KRM function) that could not be loaded or run.
    #[error("{0}")]
    Plugin(Box<PluginError>),
    /// A remote entry (a git repository or a file over http) that could not be fetched.
    #[error("{0}")]
    Remote(Box<RemoteError>),
    /// Input past one of kbuild's documented bounds (depth of bases, field path
    /// length, output budget): what amplifies, and which flag or input to change.
    #[error("{}", .0.what)]
    Limit(Box<Limit>),
    /// Input kbuild recognises but does not handle (helm charts, external plugins).
    #[error("{what}")]
    Unsupported {
        /// What is not supported, and why.
        what: String,
        /// What to do instead.
        hint: Option<String>,
    },
    /// A resource id registered twice: two resources end up with the same
    /// kind, namespace and name (in one list, after a transformation, or a
    /// generator without `behavior: merge`/`replace` for an existing one).
    #[error("{msg}")]
    DuplicateId {
        /// The id the resources share, as kbuild prints it.
        id: String,
        /// The whole message.
        msg: String,
    },
    /// Something that must select resources selects none of them, or several
    /// where it needs exactly one: a replacement source, a var's objref, a
    /// generator with `behavior: merge`/`replace`, a patch without a target.
    #[error("{msg}")]
    NoMatch {
        /// How many resources matched: 0, or more than one.
        matched: usize,
        /// The whole message.
        msg: String,
    },
    /// A resource that is not a valid object: not a mapping, no kind or name,
    /// a List whose items are not a list, metadata or a field of the wrong type.
    #[error("{0}")]
    InvalidResource(String),
    /// A malformed patch: a strategic merge patch or its directives, a JSON
    /// 6902 patch or its operations, or a patch entry that cannot be applied.
    #[error("{0}")]
    InvalidPatch(String),
    /// A configuration that is wrong beyond the checks of [`Error::Field`]: a
    /// transformer or generator config, a field spec or field path, a
    /// selector, an OpenAPI schema or what a kustomization lists.
    #[error("{0}")]
    InvalidConfig(String),
    /// An `edit` command that cannot be carried out: its arguments, or what the
    /// kustomization file holds, do not allow it. The file is left as it was.
    #[error("{0}")]
    Edit(String),
    /// A file kbuild was asked to write that it will not write: read-only, a directory or
    /// a device in the way, a symlink that could lead out of the output directory, an
    /// `-o DIR` file name that leaves DIR, two renders of one name, a render manifest it
    /// cannot read. Nothing was written.
    #[error("{0}")]
    Output(String),
    /// Any other problem, already phrased for the user.
    #[error("{0}")]
    Msg(String),
    /// An error with the context it happened in: a kustomization file, an entry of one
    /// (with its line and column), or a step phrased for the user.
    #[error("{context}: {source}")]
    Context {
        /// Where or while doing what.
        context: Context,
        /// The error itself.
        #[source]
        source: Box<Error>,
    },
}

/// Where, or while doing what, an error happened: one layer of [`Error::Context`].
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Context {
    /// A step, phrased for the user ("running generator from x").
    Text(String),
    /// In the kustomization file at this path.
    In(PathBuf),
    /// An entry of a kustomization file.
    Entry(Box<EntryContext>),
    /// An item of a list a step works through (`replacements[2]`), as its label reads
    /// (`replacements[2] (file 'r.yaml'), entry 1`): the build turns it into the
    /// item's [`Context::Entry`], with its line and column, when the list is a
    /// kustomization field.
    Item {
        /// The list's key (`replacements`).
        key: &'static str,
        /// The item's index in it.
        index: usize,
        /// What the context line says.
        label: String,
    },
}

/// See [`Context::Entry`].
#[derive(Clone, Debug)]
pub struct EntryContext {
    /// The kustomization file.
    pub file: PathBuf,
    /// Line and column (1-based) of the entry, when they are known.
    pub pos: Option<(usize, usize)>,
    /// Where in the file, as a field path (`resources[2]`, `patches[0].path`).
    pub field: String,
    /// The entry as written (credentials redacted).
    pub entry: String,
}

impl EntryContext {
    /// `file:line:column` (or the file alone when the position is not known).
    fn at(&self) -> String {
        match self.pos {
            Some((line, col)) => format!("{}:{line}:{col}", self.file.display()),
            None => self.file.display().to_string(),
        }
    }

    /// The first line of a report of `root`, an error about this entry.
    fn headline(&self, root: &Error) -> String {
        let msg = match root {
            // The entry says what was looked for; the path, where (the file name is
            // checked, so that another missing file, a kustomization file in the
            // directory the entry names, is reported as such).
            Error::NotFound { path, .. }
                if path.file_name().is_some()
                    && path.file_name() == std::path::Path::new(&self.entry).file_name() =>
            {
                format!("'{}' not found", self.entry)
            }
            other => other.to_string(),
        };
        format!("{}: {}: {msg}", self.at(), self.field)
    }
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Context::Text(text) | Context::Item { label: text, .. } => f.write_str(text),
            Context::In(file) => write!(f, "in {}", file.display()),
            // A step's entry (`replicas[0]`) has no text of its own to show.
            Context::Entry(e) if e.entry.is_empty() => write!(f, "{}: {}", e.at(), e.field),
            Context::Entry(e) => write!(f, "{}: {} '{}'", e.at(), e.field, e.entry),
        }
    }
}

/// See [`Error::Field`].
#[derive(Clone, Debug)]
pub struct FieldError {
    /// The kustomization file.
    pub file: PathBuf,
    /// Line and column (1-based) of the field, when they are known.
    pub pos: Option<(usize, usize)>,
    /// The dotted path of the field (`patches[0].target.kind`); empty for
    /// the whole file.
    pub path: String,
    /// What is wrong with it.
    pub msg: String,
    /// What to do about it ("did you mean 'namePrefix'?").
    pub hint: Option<String>,
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&field_message(&self.file, self.pos, &self.path, &self.msg))
    }
}

/// See [`Error::Restricted`].
#[derive(Clone, Debug)]
pub struct Restricted {
    /// The entry as written.
    pub entry: String,
    /// The file it resolves to.
    pub real: PathBuf,
    /// The root of the kustomization that names it.
    pub root: PathBuf,
}

/// See [`Error::Limit`].
#[derive(Clone, Debug)]
pub struct Limit {
    /// Which bound, where, and what exceeded it.
    pub what: String,
    /// What to do about it.
    pub hint: String,
}

/// See [`Error::Cycle`].
#[derive(Clone, Debug)]
pub struct Cycle {
    /// The entry as written.
    pub entry: String,
    /// The directory it resolves to.
    pub dir: PathBuf,
    /// The directories being built, outermost first, then `dir` again.
    pub chain: Vec<PathBuf>,
}

/// The kind of an [`Error`], for matching without its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// [`Error::Io`].
    Io,
    /// [`Error::Yaml`].
    Yaml,
    /// [`Error::Field`].
    Field,
    /// [`Error::NotFound`].
    NotFound,
    /// [`Error::Restricted`].
    Restricted,
    /// [`Error::Cycle`].
    Cycle,
    /// [`Error::Helm`].
    Helm,
    /// [`Error::Git`].
    Git,
    /// [`Error::Plugin`].
    Plugin,
    /// [`Error::Remote`].
    Remote,
    /// [`Error::Limit`].
    Limit,
    /// [`Error::Unsupported`].
    Unsupported,
    /// [`Error::DuplicateId`].
    DuplicateId,
    /// [`Error::NoMatch`].
    NoMatch,
    /// [`Error::InvalidResource`].
    InvalidResource,
    /// [`Error::InvalidPatch`].
    InvalidPatch,
    /// [`Error::InvalidConfig`].
    InvalidConfig,
    /// [`Error::Edit`].
    Edit,
    /// [`Error::Output`].
    Output,
    /// [`Error::Msg`].
    Other,
}

fn field_message(
    file: &std::path::Path,
    pos: Option<(usize, usize)>,
    path: &str,
    msg: &str,
) -> String {
    let at = match pos {
        Some((line, col)) => format!("{}:{line}:{col}", file.display()),
        None => file.display().to_string(),
    };
    if path.is_empty() {
        format!("{at}: invalid kustomization: {msg}")
    } else {
        format!("{at}: invalid kustomization: field {path}: {msg}")
    }
}

fn join_paths(chain: &[PathBuf]) -> String {
    chain
        .iter()
        .map(|d| d.display().to_string())
        .collect::<Vec<_>>()
        .join(" -> ")
}

impl Error {
    /// An error of kind [`ErrorKind::Other`] with this message.
    pub fn msg(s: impl Into<String>) -> Error {
        Error::Msg(s.into())
    }

    /// An [`Error::Limit`].
    pub(crate) fn limit(what: impl Into<String>, hint: impl Into<String>) -> Error {
        Error::Limit(Box::new(Limit {
            what: what.into(),
            hint: hint.into(),
        }))
    }

    /// An [`Error::DuplicateId`]: `msg` is the whole message, `id` the id in it.
    pub(crate) fn duplicate_id(id: impl Into<String>, msg: impl Into<String>) -> Error {
        Error::DuplicateId {
            id: id.into(),
            msg: msg.into(),
        }
    }

    /// An [`Error::NoMatch`] for a selection that found `matched` resources.
    pub(crate) fn no_match(matched: usize, msg: impl Into<String>) -> Error {
        Error::NoMatch {
            matched,
            msg: msg.into(),
        }
    }

    /// An [`Error::InvalidResource`] with this message.
    pub(crate) fn invalid_resource(msg: impl Into<String>) -> Error {
        Error::InvalidResource(msg.into())
    }

    /// An [`Error::InvalidPatch`] with this message.
    pub(crate) fn invalid_patch(msg: impl Into<String>) -> Error {
        Error::InvalidPatch(msg.into())
    }

    /// An [`Error::InvalidConfig`] with this message.
    pub(crate) fn invalid_config(msg: impl Into<String>) -> Error {
        Error::InvalidConfig(msg.into())
    }

    /// The message of an error that is only a message ([`Error::Msg`] and the
    /// kinds that replaced it), for a caller that adds a prefix to it in place.
    pub(crate) fn message_mut(&mut self) -> Option<&mut String> {
        match self {
            Error::DuplicateId { msg, .. } | Error::NoMatch { msg, .. } => Some(msg),
            Error::InvalidResource(msg)
            | Error::InvalidPatch(msg)
            | Error::InvalidConfig(msg)
            | Error::Edit(msg)
            | Error::Output(msg)
            | Error::Msg(msg) => Some(msg),
            _ => None,
        }
    }

    /// Wraps the error with a context line.
    pub fn context(self, context: impl Into<String>) -> Error {
        self.within(Context::Text(context.into()))
    }

    /// Wraps the error with a structured context layer.
    pub fn within(self, context: Context) -> Error {
        Error::Context {
            context,
            source: Box::new(self),
        }
    }

    /// Wraps the error as one about the item `index` of the list `key`, labelled `label`
    /// (see [`Context::Item`]).
    pub fn in_item(self, key: &'static str, index: usize, label: impl Into<String>) -> Error {
        self.within(Context::Item {
            key,
            index,
            label: label.into(),
        })
    }

    /// Wraps the error as one in the kustomization file `file`.
    pub fn in_file(self, file: impl Into<PathBuf>) -> Error {
        self.within(Context::In(file.into()))
    }

    /// Wraps the error as one about an entry of a kustomization file.
    pub fn at_entry(self, entry: EntryContext) -> Error {
        self.within(Context::Entry(Box::new(entry)))
    }

    /// A copy that renders the same and has the same kind (an I/O error's
    /// source becomes its message: `std::io::Error` cannot be copied).
    pub fn duplicate(&self) -> Error {
        match self {
            Error::Io { path, source } => Error::Io {
                path: path.clone(),
                source: std::io::Error::new(source.kind(), source.to_string()),
            },
            Error::Yaml {
                source_name,
                line,
                col,
                msg,
            } => Error::Yaml {
                source_name: source_name.clone(),
                line: *line,
                col: *col,
                msg: msg.clone(),
            },
            Error::Field(field) => Error::Field(field.clone()),
            Error::NotFound { what, path } => Error::NotFound {
                what: what.clone(),
                path: path.clone(),
            },
            Error::Restricted(r) => Error::Restricted(r.clone()),
            Error::Cycle(c) => Error::Cycle(c.clone()),
            Error::Helm(h) => Error::Helm(h.clone()),
            Error::Git(g) => Error::Git(g.clone()),
            Error::Plugin(p) => Error::Plugin(p.clone()),
            Error::Remote(r) => Error::Remote(r.clone()),
            Error::Limit(l) => Error::Limit(l.clone()),
            Error::Unsupported { what, hint } => Error::Unsupported {
                what: what.clone(),
                hint: hint.clone(),
            },
            Error::DuplicateId { id, msg } => Error::DuplicateId {
                id: id.clone(),
                msg: msg.clone(),
            },
            Error::NoMatch { matched, msg } => Error::NoMatch {
                matched: *matched,
                msg: msg.clone(),
            },
            Error::InvalidResource(m) => Error::InvalidResource(m.clone()),
            Error::InvalidPatch(m) => Error::InvalidPatch(m.clone()),
            Error::InvalidConfig(m) => Error::InvalidConfig(m.clone()),
            Error::Edit(m) => Error::Edit(m.clone()),
            Error::Output(m) => Error::Output(m.clone()),
            Error::Msg(m) => Error::Msg(m.clone()),
            Error::Context { context, source } => Error::Context {
                context: context.clone(),
                source: Box::new(source.duplicate()),
            },
        }
    }

    /// The error without its context layers.
    pub fn root(&self) -> &Error {
        match self {
            Error::Context { source, .. } => source.root(),
            other => other,
        }
    }

    /// The context layers that led to the error, outermost first.
    pub fn contexts(&self) -> Vec<&Context> {
        let mut out = Vec::new();
        let mut e = self;
        while let Error::Context { context, source } = e {
            out.push(context);
            e = source;
        }
        out
    }

    /// What kind of error this is (context layers looked through).
    pub fn kind(&self) -> ErrorKind {
        match self.root() {
            Error::Io { .. } => ErrorKind::Io,
            Error::Yaml { .. } => ErrorKind::Yaml,
            Error::Field(_) => ErrorKind::Field,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::Restricted(_) => ErrorKind::Restricted,
            Error::Cycle(_) => ErrorKind::Cycle,
            Error::Helm(_) => ErrorKind::Helm,
            Error::Git(_) => ErrorKind::Git,
            Error::Plugin(_) => ErrorKind::Plugin,
            Error::Remote(_) => ErrorKind::Remote,
            Error::Limit(_) => ErrorKind::Limit,
            Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::DuplicateId { .. } => ErrorKind::DuplicateId,
            Error::NoMatch { .. } => ErrorKind::NoMatch,
            Error::InvalidResource(_) => ErrorKind::InvalidResource,
            Error::InvalidPatch(_) => ErrorKind::InvalidPatch,
            Error::InvalidConfig(_) => ErrorKind::InvalidConfig,
            Error::Edit(_) => ErrorKind::Edit,
            Error::Output(_) => ErrorKind::Output,
            Error::Msg(_) | Error::Context { .. } => ErrorKind::Other,
        }
    }

    /// What the user can do about the error, when kbuild knows.
    pub fn hint(&self) -> Option<&str> {
        match self.root() {
            Error::Restricted(_) => Some("use --load-restrictor LoadRestrictionsNone to allow it"),
            Error::Field(field) => field.hint.as_deref(),
            Error::Unsupported { hint, .. } => hint.as_deref(),
            Error::Limit(l) => Some(&l.hint),
            Error::Helm(h) => h.hint(),
            Error::Git(g) => g.hint(),
            Error::Plugin(p) => p.hint(),
            Error::Remote(r) => r.hint(),
            _ => None,
        }
    }

    /// The whole error for a terminal: the problem first, then the chain of
    /// contexts that led to it (innermost first, one indented line each), then
    /// the hint.
    pub fn report(&self) -> Report<'_> {
        Report(self)
    }
}

/// See [`Error::report`].
pub struct Report<'a>(&'a Error);

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut all = self.0.contexts();
        // A step's own label (`replacements[0]`) said again by its entry's place: the
        // entry stands for both.
        let labels: Vec<String> = all
            .iter()
            .filter_map(|c| match c {
                Context::Entry(e) => Some(e.field.clone()),
                _ => None,
            })
            .collect();
        all.retain(|c| {
            !matches!(c, Context::Text(text) | Context::Item { label: text, .. }
                if labels.contains(text))
        });
        let mut shown = all.len();
        // An error about an entry starts where the entry is written, unless it has a
        // position of its own (in the file the entry names), or is about the whole
        // build (a bound passed): then the entry is the first line of the chain.
        let own_position = matches!(
            self.0.root(),
            Error::Yaml { .. } | Error::Field(_) | Error::Limit(_)
        );
        match all.last() {
            Some(Context::Entry(entry)) if !own_position => {
                f.write_str(&entry.headline(self.0.root()))?;
                shown -= 1;
            }
            _ => write!(f, "{}", self.0.root())?,
        }
        // The chain: one line per kustomization, innermost first. A kustomization file
        // is not named again outside an entry of it.
        let lines: Vec<String> = all[..shown]
            .iter()
            .enumerate()
            .filter(|(i, c)| {
                let Context::In(file) = c else { return true };
                // The nearest entry inside it: in the same file, it names the file.
                let inner = all[i + 1..].iter().find_map(|c| match c {
                    Context::Entry(e) => Some(&e.file),
                    _ => None,
                });
                inner != Some(file)
            })
            .map(|(_, c)| match c {
                Context::Entry(_) => format!("from {c}"),
                other => other.to_string(),
            })
            .collect();
        // A chain of thousands of bases has thousands of context lines: the innermost
        // and outermost ones say where and from what; the middle repeats the pattern.
        const EACH_END: usize = 10;
        let n = lines.len();
        for (i, context) in lines.iter().rev().enumerate() {
            if n > 3 * EACH_END && i >= EACH_END && i < n - EACH_END {
                if i == EACH_END {
                    write!(f, "\n  ... {} more lines like these ...", n - 2 * EACH_END)?;
                }
                continue;
            }
            write!(f, "\n  {context}")?;
        }
        if let Some(hint) = self.0.hint() {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_of_deep_chains_keep_both_ends() {
        let mut e = Error::msg("too deep");
        for i in 0..100 {
            e = e.context(format!("level {i}"));
        }
        let text = e.report().to_string();
        assert_eq!(text.lines().count(), 1 + 10 + 1 + 10, "{text}");
        assert!(text.contains("\n  level 0\n"), "{text}");
        assert!(
            text.contains("\n  ... 80 more lines like these ...\n"),
            "{text}"
        );
        assert!(text.ends_with("\n  level 99"), "{text}");
        let mut e = Error::msg("shallow");
        for i in 0..30 {
            e = e.context(format!("level {i}"));
        }
        assert_eq!(e.report().to_string().lines().count(), 31);
    }

    #[test]
    fn errors_stay_small() {
        // Every fallible function returns one: keep it no larger than before
        // the typed kinds (the YAML variant's 64 bytes).
        assert!(std::mem::size_of::<Error>() <= 64);
    }

    #[test]
    fn each_new_kind_reports_its_kind_and_renders_its_message() {
        let cases = [
            (
                Error::duplicate_id("ConfigMap.v1.[noGrp]/x.[noNs]", "two of ConfigMap x"),
                ErrorKind::DuplicateId,
                "two of ConfigMap x",
            ),
            (
                Error::no_match(0, "no resource matches"),
                ErrorKind::NoMatch,
                "no resource matches",
            ),
            (
                Error::invalid_resource("missing kind"),
                ErrorKind::InvalidResource,
                "missing kind",
            ),
            (
                Error::invalid_patch("the patch is empty"),
                ErrorKind::InvalidPatch,
                "the patch is empty",
            ),
            (
                Error::invalid_config("bad field path"),
                ErrorKind::InvalidConfig,
                "bad field path",
            ),
            (Error::msg("other"), ErrorKind::Other, "other"),
        ];
        for (e, kind, text) in cases {
            assert_eq!(e.kind(), kind, "{e}");
            assert_eq!(e.to_string(), text);
            assert_eq!(e.hint(), None);
            let copy = e.duplicate();
            assert_eq!((copy.kind(), copy.to_string()), (kind, text.to_string()));
            // Context layers keep the kind and come after the message.
            let wrapped = e.context("in /t/kustomization.yaml");
            assert_eq!(wrapped.kind(), kind);
            assert_eq!(
                wrapped.report().to_string(),
                format!("{text}\n  in /t/kustomization.yaml")
            );
        }
    }

    #[test]
    fn message_mut_reaches_only_plain_messages() {
        let mut e = Error::invalid_config("x");
        if let Some(m) = e.message_mut() {
            m.insert_str(0, "fieldName: a: ");
        }
        assert_eq!(e.to_string(), "fieldName: a: x");
        assert_eq!(e.kind(), ErrorKind::InvalidConfig);
        let mut wrapped = Error::msg("x").context("c");
        assert!(wrapped.message_mut().is_none());
        let mut not_found = Error::NotFound {
            what: "resource".into(),
            path: "/t/a.yaml".into(),
        };
        assert!(not_found.message_mut().is_none());
    }

    #[test]
    fn report_puts_the_problem_first_and_the_chain_after() {
        let e = Error::Restricted(Box::new(Restricted {
            entry: "../x.yaml".into(),
            real: "/r/x.yaml".into(),
            root: "/r/app".into(),
        }))
        .context("accumulating resources from '../x.yaml'")
        .context("in /r/app/kustomization.yaml");
        assert_eq!(e.kind(), ErrorKind::Restricted);
        assert_eq!(
            e.report().to_string(),
            "security: file '../x.yaml' (resolved to '/r/x.yaml') is not in or below the \
             kustomization root '/r/app'\n  accumulating resources from '../x.yaml'\n  in \
             /r/app/kustomization.yaml\nhint: use --load-restrictor LoadRestrictionsNone to \
             allow it"
        );
    }
}
