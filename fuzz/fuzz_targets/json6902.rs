//! JSON 6902 patches on arbitrary documents: `target %% operations` (operations as JSON or
//! YAML). A successful patch must still print and parse back.

#![no_main]

#[path = "common/mod.rs"]
mod common;

use kbuild::merge::json6902;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let [target, ops] = common::parts(text, 2)[..] else { return };
    let Ok(targets) = kbuild::yaml::parse::parse_stream(target, "target") else { return };
    let Some(mut target) = targets.into_iter().next() else { return };
    let Ok(ops) = json6902::parse_ops(ops, "patch") else { return };
    if json6902::apply(&mut target, &ops).is_ok() {
        common::check_roundtrip(&target, "patched");
    }
});
