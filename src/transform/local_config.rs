//! Local configuration: resources annotated `config.kubernetes.io/local-config`
//! take part in the build (as replacement or name reference sources, say)
//! but are left out of its output.

use crate::resmap::ResMap;

/// The annotation that marks a resource as local configuration.
pub const ANNOTATION: &str = "config.kubernetes.io/local-config";

/// Whether the resource is local configuration. kustomize v5.5.0 drops a
/// resource carrying the annotation with any value except `"false"`.
pub fn is_local(r: &crate::resource::Resource) -> bool {
    r.annotation(ANNOTATION).is_some_and(|v| v != "false")
}

/// Drops local configuration; kustomize does this once, at the very end of
/// the top-level build (bases keep theirs for the overlay to use).
pub fn drop_local(rm: &mut ResMap) {
    rm.resources.retain(|r| !is_local(r));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Resource;

    fn cm(name: &str, local: Option<&str>) -> Resource {
        let mut r = Resource::new(crate::yaml::Node::from(&serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}
        })))
        .expect("resource");
        r.set_annotation(ANNOTATION, local);
        r
    }

    #[test]
    fn drops_all_but_false() {
        let mut rm = ResMap::new();
        rm.resources = vec![cm("a", None), cm("b", Some("true")), cm("c", Some("false")), cm("d", Some(""))];
        drop_local(&mut rm);
        let names: Vec<String> = rm.iter().map(|r| r.name()).collect();
        assert_eq!(names, ["a", "c"]);
    }
}
