//! The library's error type.

use std::path::PathBuf;

/// Everything that can go wrong while building.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Malformed YAML, with the position of the problem (1-based).
    #[error("{source_name}:{line}:{col}: {msg}")]
    Yaml {
        source_name: String,
        line: usize,
        col: usize,
        msg: String,
    },
    /// Any other problem, already phrased for the user.
    #[error("{0}")]
    Msg(String),
    /// An error with the context it happened in ("in kustomization X").
    #[error("{context}: {source}")]
    Context {
        context: String,
        #[source]
        source: Box<Error>,
    },
}

impl Error {
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
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
