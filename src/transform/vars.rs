//! The deprecated `vars` field: named values read from one resource's field
//! and substituted for `$(NAME)` in other resources' fields.
//!
//! kustomize handles vars in two steps, and so does kbuild:
//! - when a kustomization (or component) has run its transformers, each of
//!   its vars is bound to the one resource whose current *or any previous* id
//!   matches the var's `objref` (so a var follows its object through
//!   `namePrefix`, `namespace` and later renames), and the var joins the set
//!   handed up to the including kustomization ([`declare`], [`absorb`]);
//! - once, at the top, after name hashes and name references, every var's
//!   value is read from its bound resource and `$(NAME)` is expanded in the
//!   `varReference` fields of every resource ([`resolve`]).

use crate::config::fieldspec::{CreateKind, SplitSpecs};
use crate::error::{Error, Result};
use crate::kustomization::{FieldSpec, Var};
use crate::resource::Resource;
use crate::resource::budget::Budget;
use crate::resource::id::{Gvk, ResId};
use crate::resource::resmap::ResMap;
use crate::resource::shared::{Step as TrailStep, trail_of};
use crate::yaml::Node;
use crate::yaml::map::Style;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The field a var reads when its `fieldref` is missing or empty.
const DEFAULT_FIELD_PATH: &str = "metadata.name";

/// A var as declared, with kustomize's defaults filled in.
#[derive(Clone, Debug)]
struct DeclaredVar {
    /// What `$(NAME)` references say.
    name: String,
    /// The object the var reads from (`objref`); an empty namespace matches
    /// any namespace for namespaced kinds.
    target: ResId,
    /// Dotted path of the field the var reads (`fieldref.fieldpath`).
    field_path: String,
    /// The kustomization file that declared the var (for messages).
    declared_in: PathBuf,
}

impl DeclaredVar {
    fn new(v: &Var, file: &Path) -> DeclaredVar {
        let t = &v.objref;
        // An `apiVersion` wins over `group`/`version`; like kustomize, a
        // value without exactly one slash is taken as a version.
        let gvk = if t.api_version.is_empty() {
            Gvk {
                group: t.group.as_str().into(),
                version: t.version.as_str().into(),
                kind: t.kind.as_str().into(),
            }
        } else {
            let parts: Vec<&str> = t.api_version.split('/').collect();
            let (group, version) = match parts.as_slice() {
                [g, v] => ((*g).into(), (*v).into()),
                _ => (t.group.as_str().into(), parts[0].into()),
            };
            Gvk {
                group,
                version,
                kind: t.kind.as_str().into(),
            }
        };
        let field_path = v
            .fieldref
            .as_ref()
            .map(|f| f.field_path.clone())
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| DEFAULT_FIELD_PATH.to_string());
        DeclaredVar {
            name: v.name.clone(),
            target: ResId {
                gvk,
                namespace: t.namespace.as_str().into(),
                name: t.name.as_str().into(),
            },
            field_path,
            declared_in: file.to_path_buf(),
        }
    }

    /// Whether `id` is the var's object. The GVK and name must be equal
    /// (an objref without a version matches no versioned resource, as in
    /// kustomize); the namespace counts only when the objref gives one or
    /// the kind is cluster-scoped.
    fn matches(&self, id: &ResId) -> bool {
        let t = &self.target;
        if t.gvk != id.gvk || t.name != id.name {
            return false;
        }
        let namespaced = crate::openapi::is_namespaced(&t.gvk.group, &t.gvk.version, &t.gvk.kind);
        if t.namespace.is_empty() && namespaced {
            return true;
        }
        t.effective_namespace() == id.effective_namespace()
    }

    /// The objref as a user wrote it: `Kind apiVersion [namespace/]name`.
    fn objref_text(&self) -> String {
        let t = &self.target;
        let api = t.gvk.api_version();
        let ns = if t.namespace.is_empty() {
            String::new()
        } else {
            format!("{}/", t.namespace)
        };
        let api = if api.is_empty() {
            "(no apiVersion)".to_string()
        } else {
            api
        };
        format!("{} {api} {ns}{}", t.gvk.kind, t.name)
    }
}

/// The vars of a kustomization and everything below it, by name.
#[derive(Clone, Debug, Default)]
pub struct VarSet {
    vars: BTreeMap<String, DeclaredVar>,
}

impl VarSet {
    /// Whether no var was declared (then nothing is substituted at all).
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Adds a var; var names are unique across a whole build.
    fn insert(&mut self, v: DeclaredVar) -> Result<()> {
        if let Some(old) = self.vars.get(&v.name) {
            if old.declared_in == v.declared_in {
                return Err(Error::invalid_config(format!(
                    "var '{}' of {} reaches this build twice: the kustomization declaring it is included by two paths, and kustomize refuses duplicate var names",
                    v.name,
                    v.declared_in.display()
                )));
            }
            return Err(Error::invalid_config(format!(
                "var '{}' is declared twice, in {} and in {}: var names must be unique across everything a build includes",
                v.name,
                old.declared_in.display(),
                v.declared_in.display()
            )));
        }
        self.vars.insert(v.name.clone(), v);
        Ok(())
    }
}

/// Adds a base's vars to the including kustomization's.
pub(crate) fn absorb(set: &mut VarSet, other: VarSet) -> Result<()> {
    for v in other.vars.into_values() {
        set.insert(v)?;
    }
    Ok(())
}

/// Binds the `vars` of the kustomization `file` to their resources and adds
/// them to `set` (kustomize's MergeVars). A var whose object is not there is
/// kept unbound and fails at [`resolve`], as in kustomize; one whose objref
/// matches several resources fails now.
pub(crate) fn declare(rm: &mut ResMap, set: &mut VarSet, vars: &[Var], file: &Path) -> Result<()> {
    let declared: Vec<DeclaredVar> = vars.iter().map(|v| DeclaredVar::new(v, file)).collect();
    for v in &declared {
        let hits: Vec<usize> = rm
            .iter()
            .enumerate()
            .filter(|(_, r)| any_id(r).any(|id| v.matches(&id)))
            .map(|(i, _)| i)
            .collect();
        match hits.as_slice() {
            [] => {}
            [i] => rm.resources[*i].ref_var_names.push(v.name.clone()),
            _ => {
                let ids: Vec<String> = hits
                    .iter()
                    .map(|i| rm.resources[*i].id().to_string())
                    .collect();
                return Err(Error::no_match(
                    hits.len(),
                    format!(
                        "var '{}': its objref {} matches {} resources ({}); give the objref a namespace to pick one",
                        v.name,
                        v.objref_text(),
                        hits.len(),
                        ids.join(", ")
                    ),
                ));
            }
        }
    }
    for (i, v) in declared.iter().enumerate() {
        if declared[..i].iter().any(|w| w.name == v.name) {
            return Err(Error::invalid_config(format!(
                "var '{}' is declared twice in {}",
                v.name,
                file.display()
            )));
        }
    }
    for v in declared {
        set.insert(v)?;
    }
    Ok(())
}

/// The current id, then the previous ones (kustomize tries all).
fn any_id(r: &Resource) -> impl Iterator<Item = ResId> + '_ {
    std::iter::once(r.id()).chain(r.prev_ids.iter().cloned())
}

/// A var's value as kustomize reads it from its field.
#[derive(Clone, Debug, PartialEq)]
enum VarValue {
    Str(String),
    Int(i64),
    /// Integers above i64::MAX (go-yaml's uint64).
    Uint(u64),
    Float(f64),
    Bool(bool),
    /// A mapping or a list: kustomize leaves `$(NAME)` as it is.
    Composite,
}

impl VarValue {
    fn from_node(n: &Node) -> VarValue {
        match n {
            Node::Str(s) => VarValue::Str(s.to_string()),
            Node::Int(i) => VarValue::Int(*i),
            Node::Uint(u) => VarValue::Uint(*u),
            Node::Float(f) => VarValue::Float(*f),
            Node::Bool(b) => VarValue::Bool(*b),
            // kustomize hands back the text of a null scalar.
            Node::Null => VarValue::Str("null".to_string()),
            Node::Seq(_) | Node::Map(_) => VarValue::Composite,
        }
    }
}

/// Reads every var's value and expands `$(NAME)` in the `specs` fields of
/// every resource. Does nothing when there are no vars.
pub(crate) fn resolve(
    rm: &mut ResMap,
    set: &VarSet,
    specs: &[FieldSpec],
    budget: &Budget,
    warnings: &mut Vec<String>,
) -> Result<()> {
    if set.is_empty() {
        return Ok(());
    }
    // A typed field a replacement wrote a text into keeps its tag in kustomize, which
    // reads the two together when it reads a var's value from the field or prints the
    // resource (refvar substitutes in strings only, so it leaves such a field alone, and
    // nothing after the vars' pass changes it): read them so here.
    for r in rm.iter_mut().filter(|r| r.untagged) {
        crate::transform::deferred_check::resolve(
            r,
            crate::transform::deferred_check::Resolving::KeptForVars,
        )?;
    }
    let mut values = BTreeMap::new();
    for v in set.vars.values() {
        values.insert(v.name.clone(), value_of(rm, v)?);
    }
    // kustomize never creates a missing field here, whatever `create` says.
    let specs = crate::config::fieldspec::without_create(specs);
    let specs = SplitSpecs::new(&specs);
    let mut trail = Vec::new();
    // The vars a reference took a value from (kustomize counts a hit only for a string,
    // number or boolean value).
    let mut used = BTreeSet::new();
    for r in rm.iter_mut() {
        let gvk = r.gvk();
        if r.untagged {
            // kustomize tags every string it substitutes in `!!str`, untagged ones too.
            let mut reached = Vec::new();
            specs
                .apply_traced(
                    r.node_mut(),
                    &gvk,
                    CreateKind::Scalar,
                    &mut trail,
                    &mut |n, at| {
                        reached.push(trail_of(at, None));
                        substitute(n, &values, &mut used, budget)
                    },
                )
                .map_err(|e| e.context(format!("substituting vars in {}", r.id())))?;
            for at in reached {
                tag_strings(r.node_mut(), &at);
            }
            continue;
        }
        specs
            .apply(r.node_mut(), &gvk, CreateKind::Scalar, &mut |n| {
                substitute(n, &values, &mut used, budget)
            })
            .map_err(|e| e.context(format!("substituting vars in {}", r.id())))?;
    }
    // kustomize logs this line (through Go's log package, so with a timestamp; and its
    // names in Go's random map order, where kbuild sorts them).
    let unused: Vec<&str> = values
        .keys()
        .filter(|k| !used.contains(k.as_str()))
        .map(String::as_str)
        .collect();
    if !unused.is_empty() {
        warnings.push(format!(
            "well-defined vars that were never replaced: {}",
            unused.join(",")
        ));
    }
    Ok(())
}

/// Ends the untagged state ([`Style::Untagged`]) of the strings at `at`: the field, or
/// the values of the mapping there.
fn tag_strings(node: &mut Node, at: &[TrailStep]) {
    fn untag(m: &mut crate::yaml::map::Map, i: usize) {
        if m.style_at(i) == Style::Untagged {
            m.set_style_at(i, Style::Plain);
        }
    }
    let Some((m, i)) = crate::merge::scalar_style::entry_at(node, at) else {
        return;
    };
    untag(m, i);
    if let Some((_, Node::Map(inner))) = m.get_index_mut(i) {
        for j in 0..inner.len() {
            untag(inner, j);
        }
    }
}

/// The value of a var, from the resource it was bound to.
fn value_of(rm: &ResMap, v: &DeclaredVar) -> Result<VarValue> {
    let Some(r) = rm.iter().find(|r| r.ref_var_names.contains(&v.name)) else {
        // kustomize compares the objref's group and version exactly.
        let hint = if v.target.gvk.version.is_empty() {
            "; the objref has no apiVersion, and kustomize matches apiVersion exactly: add one"
        } else {
            ""
        };
        return Err(Error::no_match(
            0,
            format!(
                "var '{}' declared in {}: no resource matches its objref {} (it must name a resource, by its original or current id, of the kustomization that declares the var or of its bases){hint}",
                v.name,
                v.declared_in.display(),
                v.objref_text()
            ),
        ));
    };
    let steps = parse_field_path(&v.field_path);
    let Some(n) = lookup_steps(r.node(), &steps) else {
        return Err(Error::invalid_config(format!(
            "var '{}' declared in {}: field '{}' not found in {}",
            v.name,
            v.declared_in.display(),
            v.field_path,
            r.id()
        )));
    };
    // The mapping holding the field, and its key: where kbuild keeps a scalar's text.
    let holder = match steps.split_last() {
        Some((Step::Field(key), parents)) => lookup_steps(r.node(), parents)
            .and_then(Node::as_map)
            .map(|m| (m, key.as_str())),
        _ => None,
    };
    // The text the number, boolean or timestamp was written as (`Map::typed_text`).
    let text = holder.and_then(|(m, key)| m.typed_text(key));
    // A number or boolean a strategic merge wrote over a quoted value: kbuild holds the
    // string (it prints so), kyaml the tag, which GetFieldValue converts.
    if let Node::Str(_) = n
        && let Some(text) = holder.and_then(|(m, key)| m.quoted_typed_text(key))
        && let Ok(typed) = crate::yaml::parse::resolve_resource_scalar(text, None)
        && matches!(
            typed,
            Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_)
        )
    {
        return match typed {
            Node::Bool(b) => Ok(VarValue::Bool(b)),
            typed => value_of_number(&typed, Some(text), v, r),
        };
    }
    match n {
        // kyaml's GetFieldValue gives a timestamp's text as written (`2024-01-01`).
        Node::Str(_) if let Some(text) = text => Ok(VarValue::Str(text.to_owned())),
        // kyaml's GetFieldValue converts the *text* of an `!!int` or `!!float` scalar
        // again, with Go's `strconv.Atoi` and `strconv.ParseFloat`, not the value the
        // YAML reader resolved: `017` gives 17 (not octal 15), and a spelling those
        // refuse (`0x1F`, `1_000`, `.inf`, above 2^63) fails the build, which kustomize
        // reports as the field not being found.
        Node::Int(_) | Node::Uint(_) | Node::Float(_) => value_of_number(n, text, v, r),
        n => Ok(VarValue::from_node(n)),
    }
}

/// A var's number as kyaml's `GetFieldValue` reads it: Go's `strconv.Atoi` or
/// `strconv.ParseFloat` of the scalar's text (`text`, or the value's usual spelling).
fn value_of_number(
    n: &Node,
    text: Option<&str>,
    v: &DeclaredVar,
    r: &Resource,
) -> Result<VarValue> {
    let spelled = text.map_or_else(
        || match n {
            Node::Float(f) if !f.is_finite() => ".inf".to_owned(),
            Node::Float(f) => f.to_string(),
            Node::Uint(u) => u.to_string(),
            Node::Int(i) => i.to_string(),
            _ => String::new(),
        },
        str::to_owned,
    );
    let converted = match n {
        Node::Float(_) => go_parse_float(&spelled).map(VarValue::Float),
        _ => go_atoi(&spelled).map(VarValue::Int),
    };
    let how = if matches!(n, Node::Float(_)) {
        "Go's strconv.ParseFloat"
    } else {
        "Go's strconv.Atoi takes decimal digits only, up to 2^63-1"
    };
    converted.ok_or_else(|| {
        Error::invalid_config(format!(
            "var '{}' declared in {}: field '{}' of {} is `{spelled}`, which kustomize reads as a number and cannot convert ({how}), so it fails with \"field specified in var not found in corresponding resource\"; quote the value to read it as a string",
            v.name,
            v.declared_in.display(),
            v.field_path,
            r.id(),
        ))
    })
}

/// Go's `strconv.ParseFloat(s, 64)` for the texts a YAML reader resolves as floats:
/// decimal digits with `_` between digits, an optional exponent; `None` for what Go
/// refuses (`.inf`, `.nan`, a misplaced `_`, out of range).
fn go_parse_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if s.contains('_') {
        // Go's underscoreOK: every `_` sits between two digits.
        let b = body.as_bytes();
        let ok = b.iter().enumerate().all(|(i, &c)| {
            c != b'_'
                || (i > 0
                    && b[i - 1].is_ascii_digit()
                    && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        });
        if !ok {
            return None;
        }
    }
    let plain: String = s.chars().filter(|&c| c != '_').collect();
    // Rust also reads `inf` and `nan` words; Go does too, but YAML spells them with a
    // dot (`.inf`), which Go refuses; hex floats are not resolved as floats by YAML.
    if !plain
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    plain.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// Expands vars in a field reached by a `varReference` spec: a string, the
/// string values of a mapping, or a list of strings.
fn substitute(
    n: &mut Node,
    values: &BTreeMap<String, VarValue>,
    used: &mut BTreeSet<String>,
    budget: &Budget,
) -> Result<()> {
    match n {
        Node::Str(s) => *n = expand(s, values, used, budget)?,
        Node::Map(m) => {
            for v in m.values_mut() {
                if let Node::Str(s) = v {
                    *v = expand(s, values, used, budget)?;
                }
            }
        }
        Node::Seq(items) => {
            for item in items.iter_mut() {
                let Node::Str(s) = item else {
                    // kustomize refuses such a list outright.
                    return Err(Error::invalid_resource(format!(
                        "vars are substituted only in lists of strings, but this list holds a {}",
                        item.type_name()
                    )));
                };
                *item = expand(s, values, used, budget)?;
            }
        }
        Node::Null | Node::Int(_) | Node::Uint(_) | Node::Float(_) | Node::Bool(_) => {}
    }
    Ok(())
}

/// Expands `$(NAME)` references in `input` the way kustomize (and
/// Kubernetes) do: `$$` is an escaped `$`, an unknown or unfinished reference
/// stays as written, and a string that is exactly one reference takes the
/// var's value with its type (a number stays a number).
///
/// Each expanded reference is charged to `budget` before it is copied: a field
/// that repeats a large var's reference thousands of times fails instead of
/// filling memory.
fn expand(
    input: &str,
    values: &BTreeMap<String, VarValue>,
    used: &mut BTreeSet<String>,
    budget: &Budget,
) -> Result<Node> {
    let b = input.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut checkpoint = 0;
    let mut cursor = 0;
    while cursor < b.len() {
        if b[cursor] == b'$' && cursor + 1 < b.len() {
            out.extend_from_slice(&b[checkpoint..cursor]);
            let rest = &b[cursor + 1..];
            let advance = match rest[0] {
                b'$' => {
                    out.push(b'$');
                    1
                }
                b'(' => match rest.iter().position(|c| *c == b')') {
                    Some(close) => {
                        let name = String::from_utf8_lossy(&rest[1..close]);
                        let value = values.get(name.as_ref());
                        if value.is_some_and(|v| *v != VarValue::Composite)
                            && !used.contains(name.as_ref())
                        {
                            used.insert(name.to_string());
                        }
                        if cursor == 0 && close + 2 == b.len() {
                            let node = whole_value(&name, value)?;
                            budget.charge(crate::resource::budget::node_bytes(&node), "vars")?;
                            return Ok(node);
                        }
                        let text = text_value(&name, value);
                        budget.charge(text.len() as u64, "vars")?;
                        out.extend_from_slice(text.as_bytes());
                        close + 1
                    }
                    None => {
                        out.extend_from_slice(b"$(");
                        1
                    }
                },
                other => {
                    // kustomize copies the byte after a lone `$` as if it
                    // were a character of its own (Latin-1), which garbles a
                    // multi-byte character there; the bytes left over are
                    // invalid UTF-8 (see the end).
                    out.push(b'$');
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(char::from(other).encode_utf8(&mut tmp).as_bytes());
                    1
                }
            };
            cursor += advance;
            checkpoint = cursor + 1;
        }
        cursor += 1;
    }
    out.extend_from_slice(&b[checkpoint.min(b.len())..]);
    // Bytes that are not UTF-8 (the garbled character above) make go-yaml write the
    // string as `!!binary`, whose base64 text is what kustomize prints.
    Ok(Node::text(match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => crate::generate::encode_base64(e.as_bytes()),
    }))
}

/// The node for a string that is exactly `$(name)`.
///
/// kustomize's refvar writes a float var as `strconv.FormatFloat(f, 'f', -1, 64)` under a
/// `!!float` tag. go-yaml, turning the resource into JSON, reads a `!!float` whose text
/// is an integer as that integer made a float, but only from int64: an integer text from
/// 2^63 up to 2^64 reads as a uint64, which it refuses to make a float (a number above
/// int64 that a JSON 6902 patch read back as a float64, then a var). The build fails there.
fn whole_value(name: &str, value: Option<&VarValue>) -> Result<Node> {
    Ok(match value {
        Some(VarValue::Str(s)) => Node::text(s.clone()),
        Some(VarValue::Int(i)) => Node::Int(*i),
        Some(VarValue::Uint(u)) => Node::Uint(*u),
        Some(VarValue::Float(f))
            if (9_223_372_036_854_775_808.0..18_446_744_073_709_551_616.0).contains(f) =>
        {
            let text = crate::yaml::emit::format_float(*f);
            // A context, not a plain message, so the field walk does not prefix it.
            return Err(Error::invalid_resource(format!(
                "yaml: cannot decode !!int `{text}` as a !!float"
            ))
            .context(format!(
                "var '{name}' is the float {text}: kustomize writes it with a !!float tag and \
                 a text that reads as an unsigned integer, and cannot turn the resource into JSON"
            )));
        }
        Some(VarValue::Float(f)) => Node::Float(*f),
        Some(VarValue::Bool(b)) => Node::Bool(*b),
        Some(VarValue::Composite) | None => Node::text(format!("$({name})")),
    })
}

/// The text of `$(name)` inside a longer string (Go's `%v` of the value).
fn text_value(name: &str, value: Option<&VarValue>) -> String {
    match value {
        Some(VarValue::Str(s)) => s.clone(),
        Some(VarValue::Int(i)) => i.to_string(),
        Some(VarValue::Uint(u)) => u.to_string(),
        Some(VarValue::Float(f)) => go_float_v(*f),
        Some(VarValue::Bool(b)) => b.to_string(),
        Some(VarValue::Composite) | None => format!("$({name})"),
    }
}

/// Go's `%v` of a float64 (`%g` with the shortest digits that round-trip):
/// exponent form (`1e+06`, `1.5e-05`) when the decimal exponent is below -4
/// or at least 6, plain digits otherwise.
fn go_float_v(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    format!("{f}")
}

/// One step of a var's `fieldpath`.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    /// A mapping key.
    Field(String),
    /// A list index (`0`, `[0]`, `ports[0]`).
    Index(usize),
    /// `-`: the last list element.
    Last,
    /// `[key=value]`: the first list element whose `key` field is `value`;
    /// with an empty key, the first scalar element equal to `value`.
    Match(String, String),
    /// Something kustomize cannot look up (a negative index, `*`, `[x]`).
    Invalid,
}

/// Parses a `fieldref.fieldpath` as kustomize does: split on `.` (`\.`
/// escapes one); a bracketed part that spans dots and has no `=` is a key
/// holding dots (`metadata.annotations.[a.b/c]`); a trailing `[N]` is an
/// index; empty parts are dropped and parts are trimmed.
fn parse_field_path(path: &str) -> Vec<Step> {
    let mut parts: Vec<String> = Vec::new();
    for piece in path.split('.') {
        match parts.last_mut() {
            Some(last) if last.ends_with('\\') => {
                last.pop();
                last.push('.');
                last.push_str(piece);
            }
            _ => parts.push(piece.to_string()),
        }
    }
    let parts = if path.contains('[') {
        join_brackets(parts)
    } else {
        parts
    };
    let mut out = Vec::new();
    for part in parts {
        for p in split_index(&part) {
            let p = p.trim();
            if !p.is_empty() {
                out.push(step(p));
            }
        }
    }
    out
}

/// Rejoins parts split inside `[...]`; without `=` the brackets go.
fn join_brackets(parts: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut iter = parts.into_iter();
    while let Some(part) = iter.next() {
        if !part.starts_with('[') || part.ends_with(']') {
            out.push(part);
            continue;
        }
        let mut joined = part;
        for next in iter.by_ref() {
            joined.push('.');
            joined.push_str(&next);
            if next.ends_with(']') {
                break;
            }
        }
        if !joined.contains('=') && joined.ends_with(']') {
            joined = joined[1..joined.len() - 1].to_string();
        }
        out.push(joined);
    }
    out
}

/// `name[N]` is `name` then index `N` (`[N]` alone is just the index).
fn split_index(part: &str) -> Vec<String> {
    if let Some(open) = part.strip_suffix(']').and_then(|p| p.rfind('[')) {
        let digits = &part[open + 1..part.len() - 1];
        if !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) {
            let mut v = Vec::new();
            if open > 0 {
                v.push(part[..open].to_string());
            }
            v.push(digits.to_string());
            return v;
        }
    }
    vec![part.to_string()]
}

/// One path element: a number is an index (Go's `Atoi` accepts a sign).
fn step(p: &str) -> Step {
    if let Some(n) = go_atoi(p) {
        return usize::try_from(n).map(Step::Index).unwrap_or(Step::Invalid);
    }
    match p {
        "-" => Step::Last,
        "*" => Step::Invalid,
        _ if p.starts_with('[') && p.ends_with(']') && p.len() >= 2 => {
            match p[1..p.len() - 1].split_once('=') {
                Some((k, v)) => Step::Match(k.to_string(), v.to_string()),
                None => Step::Invalid,
            }
        }
        _ => Step::Field(p.to_string()),
    }
}

/// Go's `strconv.Atoi`: optional sign, then decimal digits.
fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// The node a var's field path (parsed) reaches, if any.
fn lookup_steps<'a>(node: &'a Node, steps: &[Step]) -> Option<&'a Node> {
    steps.iter().try_fold(node, |n, s| match (s, n) {
        (Step::Field(k), Node::Map(m)) => m.get(k),
        (Step::Index(i), Node::Seq(items)) => items.get(*i),
        (Step::Last, Node::Seq(items)) => items.last(),
        (Step::Match(k, v), Node::Seq(items)) => items.iter().find(|item| {
            let value = if k.is_empty() {
                Some(*item)
            } else {
                item.get(k)
            };
            value.and_then(Node::scalar_string).is_some_and(|s| &s == v)
        }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals() -> BTreeMap<String, VarValue> {
        let mut m = BTreeMap::new();
        m.insert("S".to_string(), VarValue::Str("svc".to_string()));
        m.insert("P".to_string(), VarValue::Int(8080));
        m.insert("B".to_string(), VarValue::Bool(true));
        m.insert("F".to_string(), VarValue::Float(1.5));
        m.insert("M".to_string(), VarValue::Composite);
        m
    }

    fn ex(s: &str) -> Node {
        expand(s, &vals(), &mut BTreeSet::new(), &Budget::default()).expect("within the budget")
    }

    #[test]
    fn whole_reference_keeps_type() {
        assert_eq!(ex("$(P)"), Node::Int(8080));
        assert_eq!(ex("$(B)"), Node::Bool(true));
        assert_eq!(ex("$(F)"), Node::Float(1.5));
        assert_eq!(ex("$(S)"), Node::Str("svc".into()));
        assert_eq!(ex("$(M)"), Node::Str("$(M)".into()));
        assert_eq!(ex("$(NOPE)"), Node::Str("$(NOPE)".into()));
    }

    #[test]
    fn references_inside_text() {
        assert_eq!(
            ex("http://$(S):$(P)/x"),
            Node::Str("http://svc:8080/x".into())
        );
        assert_eq!(ex("x$(F)y$(B)"), Node::Str("x1.5ytrue".into()));
        assert_eq!(ex("a$(NOPE)b"), Node::Str("a$(NOPE)b".into()));
    }

    #[test]
    fn escapes_and_unfinished_references() {
        assert_eq!(ex("$$(S)"), Node::Str("$(S)".into()));
        assert_eq!(ex("a$$b"), Node::Str("a$b".into()));
        assert_eq!(ex("$(S"), Node::Str("$(S".into()));
        assert_eq!(ex("$x$"), Node::Str("$x$".into()));
        assert_eq!(ex("$"), Node::Str("$".into()));
        assert_eq!(ex("$()"), Node::Str("$()".into()));
    }

    #[test]
    fn go_float_formatting() {
        assert_eq!(go_float_v(1.5), "1.5");
        assert_eq!(go_float_v(100000.0), "100000");
        assert_eq!(go_float_v(1e6), "1e+06");
        assert_eq!(go_float_v(1234567.0), "1.234567e+06");
        assert_eq!(go_float_v(0.00001), "1e-05");
    }

    #[test]
    fn field_paths() {
        use Step::*;
        assert_eq!(
            parse_field_path("spec.ports[0].port"),
            vec![
                Field("spec".into()),
                Field("ports".into()),
                Index(0),
                Field("port".into())
            ]
        );
        assert_eq!(
            parse_field_path("metadata.annotations.[a.b/c]"),
            vec![
                Field("metadata".into()),
                Field("annotations".into()),
                Field("a.b/c".into())
            ]
        );
        assert_eq!(
            parse_field_path("spec.ports.[name=http].port"),
            vec![
                Field("spec".into()),
                Field("ports".into()),
                Match("name".into(), "http".into()),
                Field("port".into())
            ]
        );
        assert_eq!(
            parse_field_path("a\\.b..c"),
            vec![Field("a.b".into()), Field("c".into())]
        );
        assert_eq!(parse_field_path("a.[-1]"), vec![Field("a".into()), Invalid]);
        assert_eq!(parse_field_path("a.+1"), vec![Field("a".into()), Index(1)]);
    }

    fn lookup<'a>(node: &'a Node, path: &str) -> Option<&'a Node> {
        lookup_steps(node, &parse_field_path(path))
    }

    #[test]
    fn lookups() {
        let n = Node::from(&serde_json::json!({
            "spec": {"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]}
        }));
        assert_eq!(lookup(&n, "spec.ports[1].port"), Some(&Node::Int(2)));
        assert_eq!(
            lookup(&n, "spec.ports.-.name"),
            Some(&Node::Str("b".into()))
        );
        assert_eq!(
            lookup(&n, "spec.ports.[port=1].name"),
            Some(&Node::Str("a".into()))
        );
        assert_eq!(lookup(&n, "spec.ports[5].port"), None);
        assert_eq!(lookup(&n, "spec.ports[name=a].port"), None);
    }

    fn res(v: serde_json::Value) -> Resource {
        Resource::new(Node::from(&v)).expect("resource")
    }

    fn var(name: &str, kind: &str, obj: &str, ns: &str, path: &str) -> Var {
        let mut v = Var {
            name: name.to_string(),
            ..Var::default()
        };
        v.objref.api_version = "v1".to_string();
        v.objref.kind = kind.to_string();
        v.objref.name = obj.to_string();
        v.objref.namespace = ns.to_string();
        if !path.is_empty() {
            v.fieldref = Some(crate::kustomization::FieldRef {
                field_path: path.to_string(),
            });
        }
        v
    }

    #[test]
    fn binds_by_previous_id_and_substitutes() {
        let mut svc = res(serde_json::json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "db", "namespace": "prod"},
            "spec": {"ports": [{"port": 5432}]}
        }));
        svc.store_prev_id();
        svc.set_name("p-db");
        let pod = res(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app"},
            "spec": {"containers": [{"name": "c", "args": ["$(DB):$(PORT)", "$(PORT)"]}]}
        }));
        let mut rm = ResMap::new();
        rm.append_all(vec![svc, pod]).expect("append");
        let mut set = VarSet::default();
        let vars = [
            var("DB", "Service", "db", "", ""),
            var("PORT", "Service", "db", "prod", "spec.ports[0].port"),
        ];
        declare(&mut rm, &mut set, &vars, Path::new("k.yaml")).expect("declare");
        let specs =
            crate::config::fieldspec::from_table(crate::config::var_reference_specs::VAR_REFERENCE);
        resolve(&mut rm, &set, &specs, &Budget::default(), &mut Vec::new()).expect("resolve");
        let args = rm.resources[1]
            .node()
            .get_path(&["spec", "containers"])
            .and_then(Node::as_seq)
            .expect("containers")[0]
            .get("args")
            .cloned();
        assert_eq!(
            args,
            Some(Node::Seq(vec![
                Node::Str("p-db:5432".into()),
                Node::Int(5432)
            ]))
        );
    }

    #[test]
    fn namespace_in_objref_must_match() {
        let svc = res(serde_json::json!({
            "apiVersion": "v1", "kind": "Service", "metadata": {"name": "db", "namespace": "a"}
        }));
        let mut rm = ResMap::new();
        rm.append_all(vec![svc]).expect("append");
        let mut set = VarSet::default();
        declare(
            &mut rm,
            &mut set,
            &[var("X", "Service", "db", "b", "")],
            Path::new("k.yaml"),
        )
        .expect("declare");
        let err = resolve(&mut rm, &set, &[], &Budget::default(), &mut Vec::new())
            .expect_err("unbound var");
        assert!(
            err.to_string()
                .contains("no resource matches its objref Service v1 b/db"),
            "{err}"
        );
    }

    #[test]
    fn duplicate_names_are_refused() {
        let mut set = VarSet::default();
        let mut rm = ResMap::new();
        declare(
            &mut rm,
            &mut set,
            &[var("X", "Service", "a", "", "")],
            Path::new("base/k.yaml"),
        )
        .expect("declare");
        let mut other = VarSet::default();
        declare(
            &mut rm,
            &mut other,
            &[var("X", "Service", "b", "", "")],
            Path::new("other/k.yaml"),
        )
        .expect("declare");
        let err = absorb(&mut set, other).expect_err("duplicate");
        assert!(
            err.to_string()
                .contains("var 'X' is declared twice, in base/k.yaml and in other/k.yaml"),
            "{err}"
        );
    }
}
