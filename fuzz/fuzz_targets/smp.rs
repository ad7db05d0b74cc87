//! Strategic merge patch on arbitrary documents: `target %% patch`. The target's schema comes
//! from its apiVersion/kind (built-in table), so seeds with real kinds reach the list-merge
//! strategies. A successful merge must still print and parse back.

#![no_main]

#[path = "common/mod.rs"]
mod common;

use kbuild::yaml::parse::parse_stream;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let [target, patch] = common::parts(text, 2)[..] else { return };
    let (Ok(targets), Ok(patches)) = (parse_stream(target, "target"), parse_stream(patch, "patch"))
    else {
        return;
    };
    let (Some(mut target), Some(patch)) = (targets.into_iter().next(), patches.into_iter().next())
    else {
        return;
    };
    if kbuild::merge::smp::apply(&mut target, &patch, None).is_ok() {
        common::check_roundtrip(&target, "merged");
    }
});
