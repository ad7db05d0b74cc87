//! Reading the inputs of `merge3` and `apply`: a YAML file, a directory of YAML files, or a
//! kustomization (built first), keeping where each document came from so that results can
//! be written back in place.

use std::path::{Path, PathBuf};

use crate::build::{BuildOptions, build};
use crate::error::Error;
use crate::yaml::{Node, emit, parse};

/// Where a document was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Document `index` (0-based, empty documents not counted) of a file.
    File {
        /// The file, as named or as found under a directory.
        path: PathBuf,
        /// The document's position in the file.
        index: usize,
    },
    /// A resource built from a kustomization.
    Built,
    /// A document read from standard input.
    Stdin,
}

/// Documents read from one input, with their origins.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    /// The documents, in input order (a built kustomization's in output order).
    pub docs: Vec<Node>,
    /// Where each document of `docs` came from, at the same index.
    pub origins: Vec<Origin>,
    /// The YAML files read, in order (empty for a kustomization).
    pub files: Vec<PathBuf>,
}

/// Reads an input: a directory with a kustomization file is built; any other directory
/// contributes every `.yaml`/`.yml` file below it (sorted by path); a file is read as a
/// YAML stream, and `-` is standard input.
pub fn load(path: &Path, options: &BuildOptions) -> Result<Loaded, Error> {
    if path == Path::new("-") {
        return load_stdin();
    }
    let meta = std::fs::metadata(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    if meta.is_dir() {
        if crate::load::find_kustomization_file(path).is_ok() {
            let resmap = build(path, options)
                .map_err(|e| e.context(format!("building {}", path.display())))?;
            let docs: Vec<Node> = resmap.iter().map(|r| r.node().clone()).collect();
            let origins = vec![Origin::Built; docs.len()];
            return Ok(Loaded {
                docs,
                origins,
                files: Vec::new(),
            });
        }
        let mut files: Vec<PathBuf> = walkdir::WalkDir::new(path)
            .into_iter()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_type().is_file())
            .map(|e| e.into_path())
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
            .collect();
        files.sort();
        let mut loaded = Loaded::default();
        for file in files {
            read_file(&file, &mut loaded)?;
        }
        return Ok(loaded);
    }
    let mut loaded = Loaded::default();
    read_file(path, &mut loaded)?;
    Ok(loaded)
}

fn load_stdin() -> Result<Loaded, Error> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map_err(|e| Error::Io {
        path: PathBuf::from("<stdin>"),
        source: e,
    })?;
    let text = crate::yaml::utf8(bytes, Path::new("<stdin>"))?;
    let docs = parse::parse_stream(&text, "<stdin>")?;
    let origins = vec![Origin::Stdin; docs.len()];
    Ok(Loaded {
        docs,
        origins,
        files: Vec::new(),
    })
}

/// Reads a file named on the command line: a regular file, or a pipe or character device
/// read to its end (`<(command)`, process substitution, names a pipe `/dev/fd/N`).
pub fn read_named(path: &Path) -> Result<Vec<u8>, Error> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path).map(|m| m.file_type());
    if kind.is_ok_and(|k| k.is_fifo() || k.is_char_device()) {
        return std::fs::read(path).map_err(|e| Error::Io {
            path: path.to_path_buf(),
            source: e,
        });
    }
    crate::load::read_file(path)
}

fn read_file(path: &Path, loaded: &mut Loaded) -> Result<(), Error> {
    let text = crate::yaml::utf8(read_named(path)?, path)?;
    let docs = parse::parse_stream(&text, &path.display().to_string())?;
    for (index, doc) in docs.into_iter().enumerate() {
        loaded.docs.push(doc);
        loaded.origins.push(Origin::File {
            path: path.to_path_buf(),
            index,
        });
    }
    loaded.files.push(path.to_path_buf());
    Ok(())
}

/// The new contents of each file of `files` when its documents are replaced: `docs` pairs
/// each remaining document with the file it goes to (documents of a file keep the given
/// order). A file left without documents is returned with empty contents.
pub fn render_files(files: &[PathBuf], docs: &[(PathBuf, &Node)]) -> Vec<(PathBuf, String)> {
    // Grouped once: a scan of every document per file was quadratic in a directory of
    // thousands of one-resource files.
    let mut by_file: std::collections::HashMap<&Path, Vec<&Node>> =
        std::collections::HashMap::new();
    for (path, node) in docs {
        by_file.entry(path.as_path()).or_default().push(*node);
    }
    files
        .iter()
        .map(|file| {
            let mine = by_file.get(file.as_path()).map_or(&[][..], Vec::as_slice);
            (file.clone(), emit::emit_stream_refs(mine))
        })
        .collect()
}
