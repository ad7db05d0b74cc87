//! The kustomization file model (`Kustomization` and `Component`), deprecated
//! fields included.
//!
//! Decoded with [`crate::yaml::de`], which follows Go's `encoding/json` as
//! kustomize does: field names match case-insensitively, unknown fields are
//! errors, and string fields refuse numbers and booleans.

pub mod by_version;
pub mod config_text;
pub mod decode;
pub mod deprecated;
pub mod empty;
pub mod files;
pub mod helm;
pub mod plugin_config;

use crate::yaml::Node;
use indexmap::IndexMap;
use serde::Deserialize;

/// Names a kustomization file may have, in the order kustomize looks for them.
pub const FILE_NAMES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// A string-to-string map in file order (labels, annotations).
pub type StringMap = IndexMap<String, String>;

/// A kustomization or component file.
#[derive(Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Kustomization {
    /// `kustomize.config.k8s.io/v1beta1` for a Kustomization, `kustomize.config.k8s.io/v1alpha1`
    /// for a Component; may be left out.
    #[serde(default)]
    pub api_version: Option<String>,
    /// `Kustomization` (the default) or `Component` (a kustomization meant for other
    /// kustomizations' `components`).
    #[serde(default)]
    pub kind: Option<String>,
    /// kustomize's deprecation notices for this file (see [`deprecated`]), set when it is
    /// decoded; not a field of the file.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub deprecation_notices: Vec<String>,
    /// Kubernetes-style object metadata (`name`, `labels`, ...); the build does not use it.
    #[serde(default)]
    pub metadata: Option<Node>,
    /// The schema strategic merges take merge keys from: `path` of an OpenAPI document (for
    /// custom resources), or `version` of a built-in one (`v1.21.2`).
    #[serde(default)]
    pub openapi: Option<IndexMap<String, String>>,

    /// Prepended to the names of all resources, generated ones included, and to the
    /// references to them.
    #[serde(default)]
    pub name_prefix: Option<String>,
    /// Appended to the names of all resources (before a generated name's hash) and to the
    /// references to them.
    #[serde(default)]
    pub name_suffix: Option<String>,
    /// Set on all namespaced resources (cluster-scoped ones are left alone) and on fields
    /// that follow it, such as RoleBinding subjects naming the `default` ServiceAccount.
    #[serde(default)]
    pub namespace: Option<String>,
    /// Deprecated: use `labels` with `includeSelectors: true`. Added to the labels of all
    /// resources, to their selectors and to their pod templates.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub common_labels: Option<StringMap>,
    /// Labels to add to all resources; each entry says whether selectors and pod templates
    /// get them too.
    #[serde(default)]
    pub labels: Vec<Label>,
    /// Added to the annotations of all resources and of their pod templates.
    #[serde(default)]
    pub common_annotations: Option<StringMap>,

    /// Deprecated: use `patches`. Strategic-merge patches (file paths or inline YAML),
    /// each applied to the resource its own kind and name identify.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub patches_strategic_merge: Vec<String>,
    /// Deprecated: use `patches`. JSON 6902 patches, each with a `target` and a `path` or
    /// an inline `patch`.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub patches_json6902: Vec<Patch>,
    /// Strategic-merge or JSON 6902 patches, from a file or inline, applied to the resource
    /// the patch names or to every resource its `target` selects.
    #[serde(default)]
    pub patches: Vec<Patch>,
    /// Changes the name, tag or digest of matching container images.
    #[serde(default)]
    pub images: Vec<Image>,
    /// Deprecated: use `images`, to which these entries are appended.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub image_tags: Vec<Image>,
    /// Each copies a field's value from one resource into fields of others (inline, or a
    /// `path` to a file); run after the kustomization's other built-in transformers.
    #[serde(default)]
    pub replacements: Vec<ReplacementField>,
    /// Replica counts to set, on resources found by name.
    #[serde(default)]
    pub replicas: Vec<Replica>,
    /// Deprecated: use `replacements`. Each names a resource field whose value replaces
    /// `$(NAME)` in other resources' fields at the end of the build.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub vars: Vec<Var>,
    /// Output order: `legacy` (the default) or `fifo`. Read from the top kustomization
    /// only.
    #[serde(default)]
    pub sort_options: Option<SortOptions>,

    /// Resource files and directories of kustomizations (bases) to include, in order;
    /// kbuild reads local paths only, not git or http URLs.
    #[serde(default)]
    pub resources: Vec<String>,
    /// Directories of Components, applied in order to the resources accumulated so far
    /// (after generators, before this kustomization's transformers).
    #[serde(default)]
    pub components: Vec<String>,
    /// Files of OpenAPI definitions of custom resource types (not CRD manifests): their
    /// `x-kubernetes-*` extensions add name-reference, label, annotation and name-prefix fields.
    #[serde(default)]
    pub crds: Vec<String>,
    /// Deprecated: use `resources`, to which these entries are appended.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub bases: Vec<String>,

    /// ConfigMaps to generate from literals, files and env files; their names get a
    /// content-hash suffix unless `disableNameSuffixHash` is set.
    #[serde(default)]
    pub config_map_generator: Vec<GeneratorArgs>,
    /// Secrets to generate, as `configMapGenerator` does ConfigMaps (values base64-encoded
    /// under `data`).
    #[serde(default)]
    pub secret_generator: Vec<GeneratorArgs>,
    /// Settings shared by `helmCharts` (chart and config directories); alone, they do
    /// nothing.
    #[serde(default)]
    pub helm_globals: Option<helm::HelmGlobals>,
    /// Helm charts to inflate with `helm template` (with `--enable-helm`); their output
    /// joins the resources at the generator stage.
    #[serde(default)]
    pub helm_charts: Vec<helm::HelmChart>,
    /// Deprecated: use `helmCharts` and `helmGlobals`, which kustomize converts it to.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub helm_chart_inflation_generator: Vec<helm::HelmChartArgs>,
    /// Options for all of this kustomization's `configMapGenerator` and `secretGenerator`
    /// entries.
    #[serde(default)]
    pub generator_options: Option<GeneratorOptions>,

    /// Transformer configuration files: field specs that extend where prefixes, labels,
    /// annotations, namespaces, images, replicas, name references and vars are written.
    #[serde(default)]
    pub configurations: Vec<String>,
    /// Generator configs (files, kustomization directories or inline); built-in ones only
    /// (ConfigMapGenerator, SecretGenerator, IAMPolicyGenerator): kbuild runs no plugins.
    #[serde(default)]
    pub generators: Vec<String>,
    /// Transformer configs (files, kustomization directories or inline), run after the
    /// kustomization's own fields; built-in ones only (PatchTransformer, LabelTransformer, ...).
    #[serde(default)]
    pub transformers: Vec<String>,
    /// Validator plugins: kustomize has no built-in ones (it would run a built-in
    /// transformer as one), and kbuild runs no external plugins yet, so any entry is an
    /// error.
    #[serde(default)]
    pub validators: Vec<String>,
    /// `originAnnotations`, `transformerAnnotations`, `managedByLabel`: annotate each resource's
    /// origin and transformers, add the managed-by label. Read from the top kustomization.
    #[serde(default)]
    pub build_metadata: Vec<String>,
}

/// An entry of `labels`.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Label {
    /// The labels to add.
    #[serde(default)]
    pub pairs: StringMap,
    /// Also add the labels to selectors and pod templates, as `commonLabels` does.
    #[serde(default)]
    pub include_selectors: bool,
    /// Also add the labels to pod and job templates, but not to selectors (implied by
    /// `includeSelectors`).
    #[serde(default)]
    pub include_templates: bool,
    /// More fields to write the labels to.
    #[serde(default)]
    pub fields: Vec<FieldSpec>,
}

/// Where a transformer acts: resources of a kind (any when empty) and a path.
#[derive(Debug, Default, Deserialize, Clone, PartialEq, Hash)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldSpec {
    /// API group of the resources the spec applies to (any when empty).
    #[serde(default)]
    pub group: String,
    /// API version of the resources the spec applies to (any when empty).
    #[serde(default)]
    pub version: String,
    /// Kind of the resources the spec applies to (any when empty).
    #[serde(default)]
    pub kind: String,
    /// Slash-separated path of the field, e.g. `spec/template/metadata/labels`.
    #[serde(default)]
    pub path: String,
    /// Create the field when a resource lacks it.
    #[serde(default)]
    pub create: bool,
}

/// Selects resources: GVK, name and namespace (regular expressions in
/// `patches`), and label/annotation selectors.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selector {
    /// API group of the resources to select.
    #[serde(default)]
    pub group: String,
    /// API version of the resources to select.
    #[serde(default)]
    pub version: String,
    /// Kind of the resources to select.
    #[serde(default)]
    pub kind: String,
    /// Name of the resources to select (current or original).
    #[serde(default)]
    pub name: String,
    /// Namespace of the resources to select (current or original).
    #[serde(default)]
    pub namespace: String,
    /// A Kubernetes label selector (`app=web,tier in (a,b)`) the labels must satisfy.
    #[serde(default)]
    pub label_selector: String,
    /// A selector in label-selector syntax the annotations must satisfy.
    #[serde(default)]
    pub annotation_selector: String,
}

/// An entry of `patches` or `patchesJson6902`.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Patch {
    /// File holding the patch: a strategic-merge patch, or a list of JSON 6902 operations.
    #[serde(default)]
    pub path: String,
    /// The patch inline, in place of `path`.
    #[serde(default)]
    pub patch: String,
    /// The resources to patch; without it, the resource the patch itself names (strategic
    /// merge only).
    #[serde(default)]
    pub target: Option<Selector>,
    /// `allowNameChange`, `allowKindChange`: let the patch rename a resource or change its
    /// kind.
    #[serde(default)]
    pub options: IndexMap<String, bool>,
}

impl Patch {
    /// The option `name` (`allowNameChange`, `allowKindChange`). Since kustomize
    /// v5.8.0 options are a struct decoded by Go's encoding/json, which matches keys
    /// case-insensitively and lets the last match win (`typed`); before, they were a
    /// map read by exact key.
    pub fn option(&self, name: &str, typed: bool) -> bool {
        if typed {
            self.options
                .iter()
                .rev()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .is_some_and(|(_, v)| *v)
        } else {
            self.options.get(name).copied().unwrap_or(false)
        }
    }
}

/// An entry of `images`.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Image {
    /// The image to change: its name without tag or digest, matched as a regular expression.
    #[serde(default)]
    pub name: String,
    /// Replaces the image name.
    #[serde(default)]
    pub new_name: String,
    /// Replaces the tag (and drops a digest).
    #[serde(default)]
    pub new_tag: String,
    /// Appended to the image's tag (an untagged image gets `:` and the suffix) when neither
    /// `newTag` nor `digest` is set; drops the digest.
    #[serde(default)]
    pub tag_suffix: String,
    /// Replaces the tag and digest with this digest; with `newTag`, both are set.
    #[serde(default)]
    pub digest: String,
}

/// An entry of `replicas`.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Replica {
    /// Name (current or original) of the Deployments, ReplicaSets, ReplicationControllers
    /// or StatefulSets to scale.
    #[serde(default)]
    pub name: String,
    /// The replica count written to `spec.replicas`.
    #[serde(default)]
    pub count: i64,
}

/// An entry of `replacements`: inline, or a file of replacements.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplacementField {
    /// File holding a list of replacements, in place of an inline one.
    #[serde(default)]
    pub path: String,
    /// Where the value comes from: one resource (group, version, kind, name, namespace)
    /// and its `fieldPath` (default `metadata.name`).
    #[serde(default)]
    pub source: Option<Node>,
    /// Where the value goes: `select`/`reject` selectors, `fieldPaths` and `options`
    /// (`delimiter`, `index`, `create`).
    #[serde(default)]
    pub targets: Option<Node>,
    /// The value itself, a string, in place of a `source` (kustomize v5.7.0 and later;
    /// v5.5.0 refuses the field).
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub source_value: Option<Node>,
}

/// A field that is there, even as `null`, is `Some` (v5.5.0 refuses an unknown
/// field whatever its value); `#[serde(default)]` makes a missing one `None`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Option<Node>, D::Error> {
    Node::deserialize(d).map(Some)
}

/// A deprecated `vars` entry.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Var {
    /// The name `$(NAME)` references use.
    pub name: String,
    /// The resource the var reads, matched by its current or any earlier id.
    #[serde(default)]
    pub objref: VarTarget,
    /// The field the var reads (default `metadata.name`).
    #[serde(default)]
    pub fieldref: Option<FieldRef>,
}

/// A var's `objref`: the resource it reads, by GVK, name and namespace.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VarTarget {
    /// API group of the resource.
    #[serde(default)]
    pub group: String,
    /// API version of the resource.
    #[serde(default)]
    pub version: String,
    /// Kind of the resource.
    #[serde(default)]
    pub kind: String,
    /// Name of the resource.
    #[serde(default)]
    pub name: String,
    /// Namespace of the resource; when empty, a namespaced resource matches in any
    /// namespace.
    #[serde(default)]
    pub namespace: String,
    /// `group/version` in one field (without a slash, a version); wins over `group` and
    /// `version`.
    #[serde(default)]
    pub api_version: String,
}

/// A var's `fieldref`: the field it reads.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldRef {
    /// Dotted path of the field (default `metadata.name`). kustomize spells the key
    /// `fieldpath`; `fieldPath` is read too, as field names match case-insensitively.
    #[serde(default, rename = "fieldpath")]
    pub field_path: String,
}

/// `sortOptions`.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SortOptions {
    /// `legacy` (the default: kinds in kustomize's order, then by GVK, namespace and name)
    /// or `fifo` (the order resources were loaded in).
    #[serde(default)]
    pub order: String,
    /// With `order: legacy`, the kinds to put first and last.
    #[serde(default)]
    pub legacy_sort_options: Option<LegacySortOptions>,
}

/// `sortOptions.legacySortOptions`: kind lists that replace kustomize's built-in ones.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LegacySortOptions {
    /// Kinds that come first, in this order.
    #[serde(default)]
    pub order_first: Vec<String>,
    /// Kinds that come last, in this order.
    #[serde(default)]
    pub order_last: Vec<String>,
}

/// A `configMapGenerator` or `secretGenerator` entry.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeneratorArgs {
    /// Namespace of the generated object (with `name`, what `merge` and `replace` match).
    #[serde(default)]
    pub namespace: String,
    /// Name of the generated object, before prefix, suffix and hash.
    #[serde(default)]
    pub name: String,
    /// `create` (the default), or `merge`/`replace` with a base's object of the same name
    /// and namespace.
    #[serde(default)]
    pub behavior: String,
    /// Entries written as `KEY=VALUE`.
    #[serde(default)]
    pub literals: Vec<String>,
    /// Files whose contents become entries, keyed by file name or `key=path`
    /// (non-UTF-8 contents go to a ConfigMap's `binaryData`).
    #[serde(default)]
    pub files: Vec<String>,
    /// Env files whose `KEY=VALUE` lines become entries.
    #[serde(default)]
    pub envs: Vec<String>,
    /// Deprecated: use `envs`, to which this env file is appended.
    #[cfg_attr(feature = "schema", schemars(extend("deprecated" = true)))]
    #[serde(default)]
    pub env: String,
    /// Options for this generator on top of `generatorOptions`: its labels and
    /// annotations win, and a flag is on when either sets it.
    #[serde(default)]
    pub options: Option<GeneratorOptions>,
    /// The Secret's `type` (secretGenerator only; `Opaque` when empty).
    #[serde(default, rename = "type")]
    pub secret_type: String,
}

/// `generatorOptions`, and per-generator `options`.
#[derive(Debug, Default, Deserialize, Clone)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GeneratorOptions {
    /// Labels added to the generated objects.
    #[serde(default)]
    pub labels: StringMap,
    /// Annotations added to the generated objects.
    #[serde(default)]
    pub annotations: StringMap,
    /// Leave the content-hash suffix off the generated names.
    #[serde(default)]
    pub disable_name_suffix_hash: Option<bool>,
    /// Set `immutable: true` on the generated objects.
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

    /// Whether the file is a Component (`kind: Component`).
    pub fn is_component(&self) -> bool {
        self.kind.as_deref() == Some("Component")
    }
}

/// The JSON schema of kustomization files (`kustomization.schema.json`),
/// generated from these types, then given what the types do not say: the values `kind`
/// and `apiVersion` may take, and field names in any case (kustomize decodes through Go's
/// `encoding/json`, which matches field names case-insensitively; kbuild does the same).
#[cfg(feature = "schema")]
pub fn schema_json() -> String {
    use serde_json::{Value, json};
    let mut schema = schemars::schema_for!(Kustomization);
    if let Some(obj) = schema.as_object_mut() {
        obj.insert(
            "title".to_string(),
            Value::String(
                "kustomization.yaml (as read by kbuild and kustomize v5.8.1 and v5.5.0)"
                    .to_string(),
            ),
        );
        if let Some(Value::Object(kind)) = obj.get_mut("properties").and_then(|p| p.get_mut("kind"))
        {
            kind.insert("enum".into(), json!(["Kustomization", "Component", null]));
        }
        any_case_field_names(obj, "#");
        if let Some(Value::Object(defs)) = obj.get_mut("$defs") {
            for (name, def) in defs.iter_mut() {
                if let Value::Object(def) = def {
                    any_case_field_names(def, &format!("#/$defs/{name}"));
                }
            }
        }
        // The apiVersion each kind takes (kustomize's check; leaving it out is allowed).
        let api = |v: &str| json!({ "properties": { "apiVersion": { "enum": [v, null] } } });
        obj.insert(
            "allOf".into(),
            json!([{
                "if": { "properties": { "kind": { "const": "Component" } }, "required": ["kind"] },
                "then": api("kustomize.config.k8s.io/v1alpha1"),
                "else": api("kustomize.config.k8s.io/v1beta1"),
            }]),
        );
    }
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Adds to the object schema at `pointer` a `patternProperties` entry for every other
/// spelling of each of its field names, referring to the field's schema.
#[cfg(feature = "schema")]
fn any_case_field_names(object: &mut serde_json::Map<String, serde_json::Value>, pointer: &str) {
    use serde_json::{Value, json};
    let Some(Value::Object(props)) = object.get("properties") else {
        return;
    };
    let patterns: serde_json::Map<String, Value> = props
        .keys()
        .map(|name| {
            let pattern: String = name
                .chars()
                .map(|c| match (c.to_ascii_lowercase(), c.to_ascii_uppercase()) {
                    (l, u) if l != u => format!("[{l}{u}]"),
                    _ => c.to_string(),
                })
                .collect();
            let target = format!(
                "{pointer}/properties/{}",
                name.replace('~', "~0").replace('/', "~1")
            );
            (format!("^{pattern}$"), json!({ "$ref": target }))
        })
        .collect();
    object.insert("patternProperties".into(), Value::Object(patterns));
}
