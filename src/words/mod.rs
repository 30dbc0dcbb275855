//! The words of mail and forum posts: templates rendered with minijinja (those of
//! templates/, or a referee's own folder over them), text wrapped to a width, and text
//! from outside made inert before it is shown. Below the operations on game files and
//! the mail layer, which both write with them.

pub mod templates;
pub mod text;

use std::path::PathBuf;

pub use templates::Templates;
pub use text::{fit_subject, inert, quoted_lines, wrap, FOREIGN_LINE_CHARS, SUBJECT_CHARS, WIDTH};

/// What can go wrong with a template.
#[derive(Debug, thiserror::Error)]
pub enum WordsError {
    #[error("template {name}: {error}")]
    Template { name: String, error: String },
    /// A referee's own template could not be read.
    #[error("cannot read or write {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl WordsError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> WordsError {
        let path = path.into();
        move |source| WordsError::Io { path, source }
    }
}
