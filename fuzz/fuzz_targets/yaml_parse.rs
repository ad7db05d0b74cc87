//! YAML parsing and scalar resolution, as resources and as a kustomization file: any text
//! gives values or an error, never a panic or a hang.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = kbuild::yaml::parse::parse_stream(text, "fuzz.yaml");
    let _ = kbuild::yaml::parse::parse_document(text, "kustomization.yaml");
});
