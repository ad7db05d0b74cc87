//! The two directories `kubectl diff` hands its external diff program
//! (`KUBECTL_EXTERNAL_DIFF`): `LIVE-*` and `MERGED-*` under the temporary directory, one
//! file per object named `[group.]version.kind.namespace.name`, each holding the object as
//! YAML, or nothing when the object does not exist on that side (a new object has an
//! empty LIVE file). kubectl reads the program's exit status as diff(1)'s: 0 same,
//! 1 different, more than 1 an error.

use super::Side;
use crate::error::{Error, Result};
use crate::resource::parse::parse_resources;
use std::path::Path;

/// Every object in `dir`, in file-name order, as one side labelled with the directory.
pub fn load(dir: &Path) -> Result<Side> {
    let io = |e: std::io::Error| Error::Io {
        path: dir.to_path_buf(),
        source: e,
    };
    let meta = std::fs::metadata(dir).map_err(io)?;
    if !meta.is_dir() {
        return Err(Error::msg(format!(
            "'{}' is not a directory; with --kubectl, OLD and NEW are the directories kubectl diff passes (KUBECTL_EXTERNAL_DIFF)",
            dir.display()
        )));
    }
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        if entry.file_type().map_err(io)?.is_file() {
            names.push(entry.path());
        }
    }
    names.sort();
    let mut resources = Vec::new();
    for path in names {
        let bytes = super::inputs::read_named(&path)?;
        resources.extend(parse_resources(bytes, &path)?);
    }
    Ok(Side {
        label: dir.display().to_string(),
        resources,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_objects_and_empty_files() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\n";
        std::fs::write(tmp.path().join("v1.ConfigMap.ns.a"), cm).expect("write");
        std::fs::write(tmp.path().join("apps.v1.Deployment.ns.new"), "").expect("write");
        let side = super::load(tmp.path()).expect("loads");
        assert_eq!(side.resources.len(), 1);
        assert!(super::load(&tmp.path().join("v1.ConfigMap.ns.a")).is_err());
    }
}
