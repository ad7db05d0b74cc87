//! The kustomization file model (`Kustomization` and `Component`), deprecated
//! fields included.
//!
//! Decoded with [`crate::yaml::de`], which follows Go's `encoding/json` as
//! kustomize does: field names match case-insensitively, unknown fields are
//! errors, and string fields refuse numbers and booleans.

pub mod decode;
pub mod files;
pub mod plugin_config;

use crate::yaml::Node;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::Deserialize;

/// Names a kustomization file may have, in the order kustomize looks for them.
pub const FILE_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

pub type StringMap = IndexMap<String, String>;

/// A kustomization or component file.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Kustomization {
    #[serde(default)]
    pub api_version: Option<String>,
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: Option<Node>,
    #[serde(default)]
    pub openapi: Option<IndexMap<String, String>>,

    #[serde(default)]
    pub name_prefix: Option<String>,
    #[serde(default)]
    pub name_suffix: Option<String>,
    #[serde(default)]
    pub namespace: Option<String>,
    #[schemars(extend("deprecated" = true))]
    #[serde(default)]
    pub common_labels: Option<StringMap>,
    #[serde(default)]
    pub labels: Vec<Label>,
    #[serde(default)]
    pub common_annotations: Option<StringMap>,

    #[schemars(extend("deprecated" = true))]
    #[serde(default)]
    pub patches_strategic_merge: Vec<String>,
    #[schemars(extend("deprecated" = true))]
    #[serde(default)]
    pub patches_json6902: Vec<Patch>,
    #[serde(default)]
    pub patches: Vec<Patch>,
    #[serde(default)]
    pub images: Vec<Image>,
    #[schemars(extend("deprecated" = true))]
    #[serde(default)]
    pub image_tags: Vec<Image>,
    #[serde(default)]
    pub replacements: Vec<ReplacementField>,
    #[serde(default)]
    pub replicas: Vec<Replica>,
    #[schemars(extend("deprecated" = true))]
    #[serde(default)]
    pub vars: Vec<Var>,
    #[serde(default)]
    pub sort_options: Option<SortOptions>,

    #[serde(default)]
    pub resources: Vec<String>,
    #[serde(default)]
    pub components: Vec<String>,
    #[serde(default)]
    pub crds: Vec<String>,
    #[schemars(extend("deprecated" = true))]
    #[serde(default)]
    pub bases: Vec<String>,

    #[serde(default)]
    pub config_map_generator: Vec<GeneratorArgs>,
    #[serde(default)]
    pub secret_generator: Vec<GeneratorArgs>,
    #[serde(default)]
    pub helm_globals: Option<Node>,
    #[serde(default)]
    pub helm_charts: Option<Node>,
    #[serde(default)]
    pub helm_chart_inflation_generator: Option<Node>,
    #[serde(default)]
    pub generator_options: Option<GeneratorOptions>,

    #[serde(default)]
    pub configurations: Vec<String>,
    #[serde(default)]
    pub generators: Vec<String>,
    #[serde(default)]
    pub transformers: Vec<String>,
    #[serde(default)]
    pub validators: Vec<String>,
    #[serde(default)]
    pub build_metadata: Vec<String>,
}

/// An entry of `labels`.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Label {
    #[serde(default)]
    pub pairs: StringMap,
    #[serde(default)]
    pub include_selectors: bool,
    #[serde(default)]
    pub include_templates: bool,
    #[serde(default)]
    pub fields: Vec<FieldSpec>,
}

/// Where a transformer acts: resources of a kind (any when empty) and a path.
#[derive(Debug, Default, Deserialize, Clone, PartialEq, Hash, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldSpec {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub create: bool,
}

/// Selects resources: GVK, name and namespace (regular expressions in
/// `patches`), and label/annotation selectors.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selector {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub label_selector: String,
    #[serde(default)]
    pub annotation_selector: String,
}

/// An entry of `patches` or `patchesJson6902`.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Patch {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub patch: String,
    #[serde(default)]
    pub target: Option<Selector>,
    #[serde(default)]
    pub options: IndexMap<String, bool>,
}

/// An entry of `images`.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Image {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub new_name: String,
    #[serde(default)]
    pub new_tag: String,
    #[serde(default)]
    pub tag_suffix: String,
    #[serde(default)]
    pub digest: String,
}

/// An entry of `replicas`.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Replica {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub count: i64,
}

/// An entry of `replacements`: inline, or a file of replacements.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplacementField {
    #[serde(default)]
    pub path: String,
    #[serde(default)]
    pub source: Option<Node>,
    #[serde(default)]
    pub targets: Option<Node>,
}

/// A deprecated `vars` entry.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Var {
    pub name: String,
    #[serde(default)]
    pub objref: VarTarget,
    #[serde(default)]
    pub fieldref: Option<FieldRef>,
}

#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VarTarget {
    #[serde(default)]
    pub group: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub api_version: String,
}

#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldRef {
    /// kustomize spells this key in lower case (`fieldpath`); field names
    /// match case-insensitively, so `fieldPath` is read too.
    #[serde(default, rename = "fieldpath")]
    pub field_path: String,
}

/// `sortOptions`.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SortOptions {
    #[serde(default)]
    pub order: String,
    #[serde(default)]
    pub legacy_sort_options: Option<LegacySortOptions>,
}

#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LegacySortOptions {
    #[serde(default)]
    pub order_first: Vec<String>,
    #[serde(default)]
    pub order_last: Vec<String>,
}

/// A `configMapGenerator` or `secretGenerator` entry.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeneratorArgs {
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub behavior: String,
    #[serde(default)]
    pub literals: Vec<String>,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub envs: Vec<String>,
    /// Deprecated single env file.
    #[schemars(extend("deprecated" = true))]
    #[serde(default)]
    pub env: String,
    #[serde(default)]
    pub options: Option<GeneratorOptions>,
    /// Secret type (secretGenerator only).
    #[serde(default, rename = "type")]
    pub secret_type: String,
}

/// `generatorOptions`, and per-generator `options`.
#[derive(Debug, Default, Deserialize, Clone, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeneratorOptions {
    #[serde(default)]
    pub labels: StringMap,
    #[serde(default)]
    pub annotations: StringMap,
    #[serde(default)]
    pub disable_name_suffix_hash: Option<bool>,
    #[serde(default)]
    pub immutable: Option<bool>,
}

impl Kustomization {
    /// Folds deprecated fields into their replacements, as kustomize does
    /// before building (`bases` into `resources`, `imageTags` into `images`,
    /// a generator's `env` into `envs`).
    pub fn fix_deprecated(&mut self) {
        self.resources.append(&mut self.bases);
        self.images.append(&mut self.image_tags);
        for g in self
            .config_map_generator
            .iter_mut()
            .chain(self.secret_generator.iter_mut())
        {
            if !g.env.is_empty() {
                g.envs.push(std::mem::take(&mut g.env));
            }
        }
    }

    pub fn is_component(&self) -> bool {
        self.kind.as_deref() == Some("Component")
    }
}

/// The JSON schema of kustomization files (`kustomization.schema.json`),
/// generated from these types.
pub fn schema_json() -> String {
    let mut schema = schemars::schema_for!(Kustomization);
    if let Some(obj) = schema.as_object_mut() {
        obj.insert(
            "title".to_string(),
            serde_json::Value::String(
                "kustomization.yaml (as read by kbuild and kustomize v5.5.0)".to_string(),
            ),
        );
    }
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
