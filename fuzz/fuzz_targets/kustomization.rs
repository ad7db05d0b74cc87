//! Kustomization file deserialisation: any text decodes to a `Kustomization` or an error.

#![no_main]

use kbuild::kustomization::Kustomization;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(node) = kbuild::yaml::parse::parse_document(text, "kustomization.yaml") else { return };
    if let Ok(mut k) = kbuild::yaml::de::from_node::<Kustomization>(&node) {
        k.fix_deprecated();
        let _ = k.is_component();
    }
    let _ = kbuild::yaml::de::from_node_lenient::<Kustomization>(&node);
});
