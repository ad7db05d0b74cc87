//! The library's error type.
//!
//! Each kind of failure is its own variant, so a library user can match on it
//! (`Error::kind`) instead of reading message text; where it is known, the
//! variant carries the file and position it is about. Advice for the user
//! ("use --load-restrictor LoadRestrictionsNone to allow it", "did you mean
//! …") is data (`Error::hint`), not part of the message. The chain of
//! kustomizations and entries that led to an error is kept as `Context`
//! layers, outermost first; `Error::report` renders all of it for a terminal.

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
    /// Input kbuild recognises but does not handle (helm charts, external plugins).
    #[error("{what}")]
    Unsupported {
        /// What is not supported, and why.
        what: String,
        /// What to do instead.
        hint: Option<String>,
    },
    /// Any other problem, already phrased for the user.
    #[error("{0}")]
    Msg(String),
    /// An error with the context it happened in ("in kustomization X").
    #[error("{context}: {source}")]
    Context {
        /// Where or while doing what.
        context: String,
        /// The error itself.
        #[source]
        source: Box<Error>,
    },
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
    /// [`Error::Unsupported`].
    Unsupported,
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

    /// Wraps the error with a context line.
    pub fn context(self, context: impl Into<String>) -> Error {
        Error::Context {
            context: context.into(),
            source: Box::new(self),
        }
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
            Error::Unsupported { what, hint } => Error::Unsupported {
                what: what.clone(),
                hint: hint.clone(),
            },
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

    /// The context lines that led to the error, outermost first.
    pub fn contexts(&self) -> Vec<&str> {
        let mut out = Vec::new();
        let mut e = self;
        while let Error::Context { context, source } = e {
            out.push(context.as_str());
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
            Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::Msg(_) | Error::Context { .. } => ErrorKind::Other,
        }
    }

    /// What the user can do about the error, when kbuild knows.
    pub fn hint(&self) -> Option<&str> {
        match self.root() {
            Error::Restricted(_) => Some("use --load-restrictor LoadRestrictionsNone to allow it"),
            Error::Field(field) => field.hint.as_deref(),
            Error::Unsupported { hint, .. } => hint.as_deref(),
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
        write!(f, "{}", self.0.root())?;
        for context in self.0.contexts().iter().rev() {
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
    fn errors_stay_small() {
        // Every fallible function returns one: keep it no larger than before
        // the typed kinds (the YAML variant's 64 bytes).
        assert!(std::mem::size_of::<Error>() <= 64);
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
