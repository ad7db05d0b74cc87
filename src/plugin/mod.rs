//! External plugins: the `generators:`, `transformers:` and `validators:` configs that are
//! not `apiVersion: builtin`, run as kustomize runs them (with `--enable-alpha-plugins`).
//!
//! A config is, in kustomize's order of checks (`api/internal/plugins/loader`):
//! - a KRM function, when it carries a function spec (`spec.rs`): a container image run
//!   through docker or podman (`container.rs`), or, with `--enable-exec`, a local program
//!   (`exec: path:`); both speak the ResourceList protocol (`krm.rs`);
//! - otherwise a legacy exec plugin: the executable `<plugin home>/<group>/<version>/
//!   <lowercase kind>/<Kind>` (`locate.rs`) speaking kustomize's older protocol (`exec.rs`).
//!
//! Beyond kustomize: every program runs with a time limit (`--plugin-timeout`), killed with
//! its process group when it passes, and may print only about what the output budget has
//! left (`process.rs`); `--allow-plugin` restricts which plugins may run at all, each by
//! what decides its program (`allow.rs`); the plugin home's paths are checked to stay in
//! it (`locate.rs`) and a container's command line to say only what the config means
//! (`container.rs`); kustomize's history annotations travel with the resources
//! (`annotations.rs`).

mod allow;
mod annotations;
mod container;
mod exec;
mod krm;
mod locate;
pub(crate) mod process;
mod shlex;
mod spec;

use crate::error::{Error, PluginError, PluginProblem, Result};
use crate::generate::Behavior;
use crate::resource::Resource;
use crate::resource::budget::Budget;
use crate::resource::resmap::ResMap;
use crate::yaml::Node;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The default `--plugin-timeout`: generous, for functions whose image must be pulled.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// How external plugins may run: kustomize's function flags and kbuild's limits.
#[derive(Clone, Debug)]
pub struct Options {
    /// Run KRM functions that are local programs (`--enable-exec`).
    pub enable_exec: bool,
    /// Give container functions that declare it network access (`--network`).
    pub network: bool,
    /// The network those functions join (`--network-name`); `None`: the host's, as kustomize.
    pub network_name: Option<String>,
    /// Extra mounts for container functions (`--mount`, docker's `type=…,src=…,dst=…`).
    pub mounts: Vec<String>,
    /// `KEY=VALUE` or `KEY` entries for functions (`-e`/`--env`).
    pub env: Vec<String>,
    /// Run containers as the current user instead of `nobody` (`--as-current-user`).
    pub as_current_user: bool,
    /// How long one plugin run may take (`--plugin-timeout`).
    pub timeout: Duration,
    /// The timeout as written, for messages.
    pub timeout_text: String,
    /// When non-empty, the only plugins that may run: by kind, program path or image
    /// (`--allow-plugin`).
    pub allow: Vec<String>,
    /// Where plugin runs register their process groups and temporary config files (for
    /// a signal handler; see [`crate::output::Cleanup`]).
    pub cleanup: crate::output::Cleanup,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            enable_exec: false,
            network: false,
            network_name: None,
            mounts: Vec::new(),
            env: Vec::new(),
            as_current_user: false,
            timeout: DEFAULT_TIMEOUT,
            timeout_text: "10m".to_string(),
            allow: Vec::new(),
            cleanup: crate::output::Cleanup::default(),
        }
    }
}

/// The longest `--plugin-timeout`: a year. A deadline is the time now plus the limit,
/// which must not overflow (`--plugin-timeout 18446744073709551615` aborted kbuild).
const MAX_TIMEOUT_SECS: u64 = 365 * 24 * 3600;

/// Reads a `--plugin-timeout` value: a number with `s`, `m` or `h` (seconds when bare), at
/// most a year.
pub fn parse_timeout(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("invalid duration {text:?}: expected e.g. 90s, 10m or 1h"))?;
    let secs = match unit {
        "s" => Some(n),
        "m" => n.checked_mul(60),
        "h" => n.checked_mul(3600),
        _ => None,
    }
    .filter(|&s| s > 0)
    .ok_or_else(|| format!("invalid duration {text:?}: expected e.g. 90s, 10m or 1h"))?;
    if secs > MAX_TIMEOUT_SECS {
        return Err(format!(
            "invalid duration {text:?}: longer than kbuild's limit of a year (8760h)"
        ));
    }
    Ok(Duration::from_secs(secs))
}

/// The limits of one run: its time, and what is left of the build's output budget.
pub(crate) struct Limits {
    cleanup: crate::output::Cleanup,
    timeout: Duration,
    timeout_text: String,
    remaining: u64,
}

/// What a plugin runs.
#[derive(Clone, Debug)]
enum Program {
    /// A legacy exec plugin with its arguments.
    Legacy { path: PathBuf, args: Vec<String> },
    /// A KRM function run as a local program.
    Exec {
        path: PathBuf,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// A KRM function run as a container.
    Container { runtime: PathBuf, args: Vec<String> },
    /// An exec function without `--enable-exec`: kustomize builds its function pipeline
    /// with no filter for it (kyaml's `RunFns.ffp` makes an exec filter only when
    /// `EnableExec`, and `getFunctionFilters` skips the nil one), so the pipeline hands its
    /// input back: a transformer or validator gets the resources unchanged, a generator its
    /// own config (annotated local-config, so it joins the resources, may collide with
    /// one, and is dropped from the output). kubectl has no `--enable-exec`: it always does
    /// this. kbuild does the same, with a warning.
    Skipped,
}

/// An external plugin, found and configured, ready to run.
#[derive(Clone, Debug)]
pub struct Plugin {
    /// How messages name it.
    name: String,
    /// The config's identity, for `buildMetadata` annotations.
    api_version: String,
    kind: String,
    config_name: Option<String>,
    config_namespace: Option<String>,
    /// The config as kustomize prints it (the legacy protocol's config file).
    config_text: String,
    /// The config node (the KRM protocol's functionConfig).
    config: Node,
    /// The kustomization's directory: the working directory.
    root: PathBuf,
    program: Program,
}

/// What a plugin config names: `Kind 'name'`.
fn describe(config: &Node) -> String {
    let kind = config.get_str(&["kind"]).unwrap_or_default();
    match config
        .get_path(&["metadata", "name"])
        .and_then(Node::scalar_string)
    {
        Some(name) if !name.is_empty() => format!("{kind} '{name}'"),
        _ => kind.to_string(),
    }
}

impl Plugin {
    /// Finds and configures the plugin `config` (from the kustomization in `root`) names,
    /// failing as kustomize fails while loading plugins (and where `--allow-plugin`,
    /// `--enable-exec` or a missing container runtime forbid it), for the kustomize `version`
    /// reproduced. `read` reads a file of the kustomization (`argsFromFile`).
    pub fn load(
        config: &Node,
        root: &Path,
        options: &Options,
        version: crate::kustomize_version::KustomizeVersion,
        read: &mut dyn FnMut(&str) -> Result<Vec<u8>>,
    ) -> Result<Plugin> {
        let described = describe(config);
        let fail = |name: &str, problem| Error::Plugin(Box::new(PluginError::new(name, problem)));
        let function = spec::function_spec(config, version.exec_function_args())
            .map_err(|e| fail(&described, PluginProblem::BadConfig(e)))?;
        let (program, runs) = match function {
            Some(f) => Self::function(&f, root, options).map_err(|p| fail(&described, p))?,
            None => {
                let api = config.get_str(&["apiVersion"]).unwrap_or_default();
                let kind = config.get_str(&["kind"]).unwrap_or_default();
                let home = locate::plugin_home().map_err(|p| fail(&described, p))?;
                let path =
                    locate::exec_plugin_path(&home, api, kind).map_err(|p| fail(&described, p))?;
                let name = format!("{described} ({})", path.display());
                locate::check_executable(&path).map_err(|p| fail(&name, p))?;
                locate::check_inside_home(&home, &path).map_err(|p| fail(&name, p))?;
                let args = exec::args(config, version, read).map_err(|p| fail(&name, p))?;
                let runs = path.display().to_string();
                (Program::Legacy { path, args }, runs)
            }
        };
        let name = format!("{described} ({runs})");
        let kind = config.get_str(&["kind"]).unwrap_or_default();
        if !options.allow.is_empty() {
            let candidate = match &program {
                Program::Legacy { path, .. } => Some(allow::Candidate::Home { kind, path }),
                Program::Exec { path, .. } => Some(allow::Candidate::Exec { path }),
                Program::Container { .. } => Some(allow::Candidate::Image(&runs)),
                // Runs nothing, so there is nothing to allow.
                Program::Skipped => None,
            };
            if let Some(candidate) = candidate {
                allow::check(&options.allow, &candidate).map_err(|p| fail(&name, p))?;
            }
        }
        let mut config_text = String::new();
        crate::yaml::emit::emit_document(config, &mut config_text);
        let meta = |field: &str| {
            config
                .get_path(&["metadata", field])
                .and_then(Node::scalar_string)
                .filter(|s| !s.is_empty())
        };
        Ok(Plugin {
            name,
            api_version: config
                .get_str(&["apiVersion"])
                .unwrap_or_default()
                .to_string(),
            kind: kind.to_string(),
            config_name: meta("name"),
            config_namespace: meta("namespace"),
            config_text,
            config: config.clone(),
            root: root.to_path_buf(),
            program,
        })
    }

    /// A KRM function's program, and what it runs (for messages and `--allow-plugin`).
    fn function(
        f: &spec::FunctionSpec,
        root: &Path,
        options: &Options,
    ) -> std::result::Result<(Program, String), PluginProblem> {
        // kustomize's loader: mounts the function declares stay inside the kustomization
        // (and kbuild's: also once symlinks are resolved; no named volumes).
        container::check_declared_mounts(&f.container.mounts, root)?;
        if f.container.network && !options.network {
            // kyaml's words.
            return Err(PluginProblem::NotEnabled {
                flag: "--network",
                why: "network required but not enabled with --network",
            });
        }
        if !f.container.image.is_empty() {
            let image = f.container.image.clone();
            let runtime = container::runtime().ok_or_else(|| PluginProblem::NoRuntime {
                image: image.clone(),
            })?;
            let settings = container::Settings {
                network_name: options.network_name.as_deref(),
                mounts: &options.mounts,
                env: &options.env,
                as_current_user: options.as_current_user,
            };
            let args = container::run_args(&f.container, root, &settings)?;
            return Ok((Program::Container { runtime, args }, image));
        }
        if f.exec.path.is_empty() {
            return Err(PluginProblem::BadConfig(
                "its function spec names neither container.image nor exec.path".into(),
            ));
        }
        if !options.enable_exec {
            let program = f.exec.path.clone();
            return Ok((Program::Skipped, program));
        }
        let path = locate::function_program(&f.exec.path, root)?;
        let runs = path.display().to_string();
        Ok((
            Program::Exec {
                path,
                args: f.exec.args.clone(),
                env: exec_env(&f.exec.envs, &options.env),
            },
            runs,
        ))
    }

    /// What the build should say about this plugin on stderr: an exec function skipped
    /// for want of `--enable-exec` (kustomize skips it silently).
    pub fn warning(&self) -> Option<String> {
        match &self.program {
            Program::Skipped => Some(format!(
                "exec function {} was not run: exec functions run only with --enable-exec; \
                 kustomize (and kubectl, which has no --enable-exec) skips it silently, so \
                 kbuild does too: as a generator it adds nothing, as a transformer it changes \
                 nothing (add --enable-exec to run it, if you trust the kustomization)",
                self.name
            )),
            _ => None,
        }
    }

    /// How the output budget names the plugin (see resource/budget.rs): its config's
    /// `Kind 'name'`.
    pub fn budget_field(&self) -> String {
        format!("the plugin {}", self.name)
    }

    /// Names the config by its metadata as its text writes it (`name: 0x10` is "0x10"),
    /// as `buildMetadata` annotations do; the values found in the config node are the
    /// default.
    pub fn name_as_written(&mut self, name: Option<String>, namespace: Option<String>) {
        self.config_name = name;
        self.config_namespace = namespace;
    }

    /// The plugin as `buildMetadata` annotations name it, configured in `source` (its config
    /// file, or the kustomization for an inline config).
    pub fn configured(&self, source: &Path) -> crate::resource::Configured {
        crate::resource::Configured {
            configured_in: source.to_path_buf(),
            api_version: self.api_version.clone().into(),
            kind: self.kind.clone().into(),
            name: self.config_name.clone(),
            namespace: self.config_namespace.clone(),
        }
    }

    fn fail(&self, problem: PluginProblem) -> Error {
        Error::Plugin(Box::new(PluginError::new(&self.name, problem)))
    }

    fn limits(options: &Options, budget: &Budget) -> Limits {
        Limits {
            cleanup: options.cleanup.clone(),
            timeout: options.timeout,
            timeout_text: options.timeout_text.clone(),
            remaining: budget.remaining(),
        }
    }

    /// Runs the plugin on `items` (resources as the plugin sees them; none for a
    /// generator, `generating`); returns what it printed, as resources.
    fn run(
        &self,
        items: Vec<Node>,
        generating: bool,
        options: &Options,
        budget: &Budget,
    ) -> Result<Vec<Resource>> {
        let limits = Self::limits(options, budget);
        match &self.program {
            Program::Legacy { path, args } => {
                let stdin = if items.is_empty() {
                    String::new()
                } else {
                    crate::yaml::emit::emit_stream(&items)
                };
                let stdout = exec::run(
                    path,
                    &self.config_text,
                    args,
                    &self.root,
                    stdin.as_bytes(),
                    &limits,
                )
                .map_err(|p| self.fail(p))?;
                let docs = crate::resource::parse::parse_resources(stdout, Path::new(&self.name))
                    .map_err(|e| {
                    self.fail(PluginProblem::BadOutput(format!(
                        "printed something that is not Kubernetes YAML: {}",
                        e.report()
                    )))
                })?;
                docs.into_iter()
                    .map(|mut r| {
                        let empty_nulls = std::mem::take(&mut r.empty_nulls);
                        let mut back = annotations::from_plugin(r.into_node())?;
                        back.empty_nulls = empty_nulls;
                        Ok(back)
                    })
                    .collect::<Result<Vec<_>>>()
                    .map_err(|e| {
                        self.fail(PluginProblem::BadOutput(format!(
                            "printed an invalid resource: {e}"
                        )))
                    })
            }
            Program::Exec { path, args, env } => self.run_function(path, args, env, items, &limits),
            Program::Container { runtime, args } => {
                self.run_function(runtime, args, &[], items, &limits)
            }
            Program::Skipped => {
                // kyaml's pipeline without a filter: its input, read back (a
                // transformer over no resources gets nothing back; kubectl agrees).
                let items = if generating {
                    vec![krm::function_config(&self.config)]
                } else {
                    items
                };
                let text = crate::yaml::emit::emit_stream(&items);
                krm::read_output(text.as_bytes())
                    .map(|out| out.resources)
                    .map_err(|p| self.fail(p))
            }
        }
    }

    fn run_function(
        &self,
        program: &Path,
        args: &[String],
        env: &[(String, String)],
        items: Vec<Node>,
        limits: &Limits,
    ) -> Result<Vec<Resource>> {
        let function_config = krm::function_config(&self.config);
        // kustomize hands a generator its own config as the only item (kyaml's pipeline
        // runs nothing on an empty input).
        let items = if items.is_empty() {
            vec![function_config.clone()]
        } else {
            items
        };
        let input = krm::resource_list(items, function_config);
        let finished = process::run(&process::Job {
            program,
            args,
            dir: Some(&self.root),
            env,
            stdin: input.as_bytes(),
            cleanup: &limits.cleanup,
            timeout: limits.timeout,
            timeout_text: &limits.timeout_text,
            max_output: process::output_cap(limits.remaining, input.len() as u64),
        })
        .map_err(|p| self.fail(p))?;
        let stderr = String::from_utf8_lossy(&finished.stderr);
        if !finished.status.success() {
            // A function that fails usually says why in its error results (kyaml reads
            // them even then): they follow its stderr in the message.
            let mut said = stderr.into_owned();
            if let Ok(out) = krm::read_output(&finished.stdout) {
                for m in out.error_results {
                    said.push_str(&format!("\nresult: {m}"));
                }
            }
            return Err(self.fail(PluginProblem::Failed {
                status: finished.status.to_string(),
                stderr: said.trim_start_matches('\n').to_string(),
            }));
        }
        // kustomize passes a function's stderr through as it runs; kbuild passes it on when
        // the function has ended, so that the functions of a parallel `render` do not
        // interleave their lines.
        if !stderr.is_empty() {
            eprint!("{stderr}");
        }
        let out = krm::read_output(&finished.stdout).map_err(|p| self.fail(p))?;
        // kustomize fails on the exit status only and keeps the output of a function that
        // exited 0 whatever its results say; kbuild does too, and says what they said.
        for m in &out.error_results {
            eprintln!(
                "warning: plugin {}: the function exited 0 but reported an error (kustomize ignores it): {m}",
                self.name
            );
        }
        Ok(out.resources)
    }

    /// Runs the plugin as a generator: its resources, each with the behavior its
    /// `kustomize.config.k8s.io/behavior` annotation asks for (and a name hash when its
    /// `kustomize.config.k8s.io/needs-hash` does).
    pub fn generate(
        &self,
        options: &Options,
        budget: &Budget,
    ) -> Result<Vec<(Resource, Behavior)>> {
        self.run(Vec::new(), true, options, budget)?
            .into_iter()
            .map(|mut r| {
                let behavior = annotations::generator_options(&mut r)?;
                Ok((r, behavior))
            })
            .collect()
    }

    /// Runs the plugin as a transformer over `rm`.
    pub fn transform(&self, rm: &mut ResMap, options: &Options, budget: &Budget) -> Result<()> {
        let items = rm.iter().map(annotations::for_plugin).collect();
        let output = self.run(items, false, options, budget)?;
        annotations::update(rm, output, &self.name)
    }

    /// Runs the plugin as a validator over `rm`: it may fail the build, never change it.
    ///
    /// kustomize (`KustTarget.runValidators`, v5.5.0 and v5.8.1) runs the validator as a
    /// transformer and then requires `ErrorIfNotEqualSets`: for each resource,
    /// `reflect.DeepEqual` of the go-yaml nodes it had and the ones read back from the
    /// validator, which compares every node's line and column (and style, tag,
    /// comments), not only its content, after dropping a `validated-by` label. The
    /// validator's input carries the multi-line `kustomize.config.k8s.io/id` annotation
    /// inside `metadata`, so a validator that prints its input back (legacy exec, KRM
    /// function, or an exec function skipped without `--enable-exec`) moves the lines
    /// below it and fails; kubectl of both versions fails such a validator. What passes is
    /// a validator over no resources that prints none, or one whose output lays every
    /// node of every resource where kustomize had it — text reproducing, line for line,
    /// the file each untouched resource came from; kbuild keeps no source positions, so
    /// it fails that too (the one difference left, see the README).
    pub fn validate(&self, rm: &ResMap, options: &Options, budget: &Budget) -> Result<()> {
        let mut after = rm.clone();
        self.transform(&mut after, options, budget)?;
        if rm.is_empty() && after.is_empty() {
            return Ok(());
        }
        for r in after.iter_mut() {
            if let Some(Node::Map(labels)) = r.node_mut().get_path_mut(&["metadata", "labels"]) {
                labels.shift_remove("validated-by");
                if labels.is_empty()
                    && let Some(Node::Map(meta)) = r.node_mut().get_mut("metadata")
                {
                    meta.shift_remove("labels");
                }
            }
        }
        let msg = if after.len() != rm.len() {
            format!("it returned {} resources for {}", after.len(), rm.len())
        } else {
            let text = |n: &Node| {
                let mut out = String::new();
                crate::yaml::emit::emit_document(n, &mut out);
                out
            };
            rm.iter()
                .zip(after.iter())
                .find(|(a, b)| a.id() != b.id() || text(a.node()) != text(b.node()))
                .map(|(a, _)| format!("it changed {}", a.id()))
                .unwrap_or_else(|| {
                    "it printed the resources back, and kustomize compares them with the \
                     ones it gave the validator node by node, line and column included, so \
                     a validator that prints its input fails in kustomize (kubectl too); \
                     kbuild fails it the same way"
                        .to_string()
                })
        };
        Err(self.fail(PluginProblem::ValidatorChanged(msg)))
    }
}

/// Go's `filepath.Clean`, lexically: for kustomize's mount check (which then asks whether
/// the text starts with `..`) and kyaml's joins of mount sources.
fn clean(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            // `/..` is `/`.
            ".." if absolute => {}
            _ => parts.push(part),
        }
    }
    match (absolute, parts.is_empty()) {
        (true, _) => format!("/{}", parts.join("/")),
        (false, true) => ".".to_string(),
        (false, false) => parts.join("/"),
    }
}

/// kyaml's environment for an exec function (v5.8's `mergeExecEnv`): the function's
/// `envs` then `-e`'s, `KEY=VALUE` entries only, the later winning, sorted. Like kyaml,
/// an entry whose value holds another `=` is dropped.
fn exec_env(declared: &[String], imperative: &[String]) -> Vec<(String, String)> {
    let mut env = std::collections::BTreeMap::new();
    for e in declared.iter().chain(imperative) {
        let parts: Vec<&str> = e.split('=').collect();
        if let [k, v] = parts.as_slice() {
            env.insert(k.to_string(), v.to_string());
        }
    }
    env.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_seconds_minutes_hours() {
        assert_eq!(parse_timeout("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_timeout("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_timeout("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_timeout("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_timeout("8760h"), Ok(Duration::from_secs(31_536_000)));
        for bad in [
            "",
            "0",
            "1d",
            "m",
            "-1s",
            "1.5m",
            "8761h",
            "18446744073709551615",
            "18446744073709551615h",
            "99999999999999999999999",
        ] {
            assert!(parse_timeout(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mount_sources_clean_as_go() {
        assert_eq!(clean("./data"), "data");
        assert_eq!(clean("a/../../b"), "../b");
        assert_eq!(clean("a/.."), ".");
        assert_eq!(clean("/k/./data/../x"), "/k/x");
        assert_eq!(clean("/../a"), "/a");
    }

    #[test]
    fn exec_env_merges_as_kyaml() {
        let env = exec_env(
            &["A=1".into(), "B=2".into(), "C=x=y".into(), "D".into()],
            &["B=3".into()],
        );
        assert_eq!(env, [("A".into(), "1".into()), ("B".into(), "3".into())]);
    }
}
