//! Which output resource `kbuild explain RESOURCE` means: the spellings kubectl users
//! write — `Kind/name`, `Kind/namespace/name`, `group/Kind/name` (when the kind alone is
//! ambiguous), `group/Kind/namespace/name` — matched against the output's final names,
//! the kind without regard to case (`deployment/web`).

use crate::error::{Error, Result};
use crate::resource::Resource;
use crate::resource::resmap::ResMap;
use foldhash::{HashMap, HashMapExt};

/// One reading of the words of a RESOURCE argument.
struct Reading<'a> {
    group: Option<&'a str>,
    kind: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
}

impl Reading<'_> {
    fn matches(&self, r: &Resource) -> bool {
        let id = r.id();
        id.gvk.kind.eq_ignore_ascii_case(self.kind)
            && id.name == self.name
            && self.group.is_none_or(|g| id.gvk.group == g)
            && self
                .namespace
                .is_none_or(|ns| id.effective_namespace() == ns)
    }
}

/// How a resource is named in messages and in `explain`'s heading: the shortest spelling
/// that names it alone in `resmap`.
pub fn spelling(resmap: &ResMap, r: &Resource) -> String {
    // Only the resources of its kind and name count: one pass, without an index of every
    // name of the build (a tenth of `explain`'s report on the medium bench tree).
    let id = r.id();
    Names::counting(resmap.iter().filter(|o| {
        let other = o.id();
        other.gvk.kind == id.gvk.kind && other.name == id.name
    }))
    .spelling(r)
}

/// How many resources of a resource map share each kind and name (with the same namespace,
/// with the same group): counted once, for naming every resource of a build
/// (`build --provenance`), which asking the whole map again for each resource made
/// quadratic.
pub struct Names {
    kind_name: HashMap<(String, String), usize>,
    with_namespace: HashMap<(String, String, String), usize>,
    with_group: HashMap<(String, String, String), usize>,
}

impl Names {
    /// The counts of `resmap`.
    pub fn of(resmap: &ResMap) -> Names {
        Names::counting(resmap.iter())
    }

    /// The counts of `resources`.
    fn counting<'r>(resources: impl Iterator<Item = &'r Resource>) -> Names {
        let mut names = Names {
            kind_name: HashMap::new(),
            with_namespace: HashMap::new(),
            with_group: HashMap::new(),
        };
        for r in resources {
            let id = r.id();
            let (kind, name) = (id.gvk.kind.to_string(), id.name.to_string());
            *names
                .with_namespace
                .entry((kind.clone(), name.clone(), id.namespace.to_string()))
                .or_default() += 1;
            *names
                .with_group
                .entry((kind.clone(), name.clone(), id.gvk.group.to_string()))
                .or_default() += 1;
            *names.kind_name.entry((kind, name)).or_default() += 1;
        }
        names
    }

    /// The shortest spelling that names `r` alone in the counted map.
    pub fn spelling(&self, r: &Resource) -> String {
        let id = r.id();
        let ns = id.namespace.as_str();
        let (kind, name) = (id.gvk.kind.to_string(), id.name.to_string());
        let kind_name = format!("{kind}/{name}");
        let group = if id.gvk.group.is_empty() {
            "core"
        } else {
            id.gvk.group.as_str()
        };
        let count = |m: &HashMap<(String, String, String), usize>, third: &str| {
            m.get(&(kind.clone(), name.clone(), third.to_string()))
                .copied()
                .unwrap_or(0)
        };
        if self.kind_name.get(&(kind.clone(), name.clone())).copied() == Some(1) {
            kind_name
        } else if !ns.is_empty() && count(&self.with_namespace, ns) == 1 {
            format!("{kind}/{ns}/{name}")
        } else if count(&self.with_group, &id.gvk.group) == 1 {
            format!("{group}/{kind_name}")
        } else {
            format!("{group}/{kind}/{ns}/{name}")
        }
    }
}

/// The resource `spec` names in `resmap`. An error names what matched several, or the
/// nearest names when nothing matched.
pub fn find<'r>(resmap: &'r ResMap, spec: &str) -> Result<&'r Resource> {
    let readings = readings(spec)?;
    let found: Vec<&Resource> = resmap
        .iter()
        .filter(|r| readings.iter().any(|reading| reading.matches(r)))
        .collect();
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::msg(format!(
            "no resource '{spec}' in the output{}",
            nearest(resmap, &readings)
        ))),
        many => Err(Error::msg(format!(
            "'{spec}' names {} resources: {}; say which",
            many.len(),
            many.iter()
                .map(|r| Names::of(resmap).spelling(r))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The resources a build needs to record for a report on the resource `spec` names (see
/// [`crate::provenance::Only`]): those that may become one [`find`] would find. `None`
/// for a `spec` that names no resource (`find` says why).
pub fn only(spec: &str) -> Option<crate::provenance::Only> {
    let readings = readings(spec).ok()?;
    let name = readings.first()?.name.to_string();
    let kinds = readings.iter().map(|r| r.kind.to_string()).collect();
    Some(crate::provenance::Only::new(kinds, name))
}

/// What the words of `spec` may mean.
fn readings(spec: &str) -> Result<Vec<Reading<'_>>> {
    let words: Vec<&str> = spec.split('/').collect();
    let readings: Vec<Reading<'_>> = match words.as_slice() {
        [kind, name] => vec![Reading {
            group: None,
            kind,
            namespace: None,
            name,
        }],
        [a, b, name] => vec![
            Reading {
                group: None,
                kind: a,
                namespace: Some(b),
                name,
            },
            Reading {
                group: Some(if *a == "core" { "" } else { a }),
                kind: b,
                namespace: None,
                name,
            },
        ],
        [group, kind, namespace, name] => vec![Reading {
            group: Some(if *group == "core" { "" } else { group }),
            kind,
            namespace: Some(namespace),
            name,
        }],
        _ => {
            return Err(Error::msg(format!(
                "'{spec}' is not a resource: write Kind/name, Kind/namespace/name or group/Kind/name"
            )));
        }
    };
    Ok(readings)
}

/// "; nearest: ..." with up to three output resources closest to what was asked.
fn nearest(resmap: &ResMap, readings: &[Reading<'_>]) -> String {
    let Some(asked) = readings.first() else {
        return String::new();
    };
    let names = Names::of(resmap);
    let mut scored: Vec<(usize, String)> = resmap
        .iter()
        .map(|r| {
            let id = r.id();
            let mut d = crate::yaml::de::edit_distance(&id.name, asked.name);
            if !id.gvk.kind.eq_ignore_ascii_case(asked.kind) {
                d += crate::yaml::de::edit_distance(
                    &id.gvk.kind.to_ascii_lowercase(),
                    &asked.kind.to_ascii_lowercase(),
                ) + 2;
            }
            (d, names.spelling(r))
        })
        .collect();
    scored.sort();
    let names: Vec<String> = scored.into_iter().take(3).map(|(_, s)| s).collect();
    if names.is_empty() {
        " (the output is empty)".into()
    } else {
        format!("; nearest: {}", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resmap(text: &str) -> ResMap {
        let resources =
            crate::resource::parse::parse_resources(text.as_bytes().to_vec(), "t".as_ref())
                .expect("resources");
        let mut rm = ResMap::default();
        rm.extend_checked(resources);
        rm
    }

    const STREAM: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: a}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: b}
---
apiVersion: v1
kind: Service
metadata: {name: web}
---
apiVersion: example.com/v1
kind: Service
metadata: {name: web}
";

    #[test]
    fn finds_by_the_spellings_kubectl_users_write() {
        let rm = resmap(STREAM);
        assert_eq!(find(&rm, "deployment/a/web").expect("one").namespace(), "a");
        assert_eq!(
            find(&rm, "apps/Deployment/b/web").expect("one").namespace(),
            "b"
        );
        assert_eq!(
            find(&rm, "example.com/Service/web")
                .expect("one")
                .gvk()
                .group,
            "example.com"
        );
        assert_eq!(find(&rm, "core/Service/web").expect("one").gvk().group, "");
        let many = find(&rm, "Deployment/web").expect_err("two").to_string();
        assert!(
            many.contains("Deployment/a/web, Deployment/b/web"),
            "{many}"
        );
        let none = find(&rm, "Deployment/webb").expect_err("none").to_string();
        assert!(none.contains("nearest: Deployment/a/web"), "{none}");
        assert!(find(&rm, "web").is_err());
    }
}
