//! Helpers shared by the integration tests (each test file is its own crate and
//! includes this module with `mod common;`).

use std::path::Path;

/// Writes `text` to `dir/rel`, creating parent directories.
pub fn write(dir: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}
