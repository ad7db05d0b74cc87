//! `kbuild build` (and `kbuild DIR`): the flags of `kustomize build`, what each means to a
//! kbuild build, and writing the output.
//!
//! Every flag `kustomize build` v5.8.1 and `kubectl kustomize` take is accepted, before or
//! after the path, spelled as pflag spells it (`--flag value`, `--flag=value`, booleans bare
//! or `--flag=false`), so a command line written for kustomize (Argo CD's, a CI script's)
//! runs unchanged. The plugin flags (`--enable-alpha-plugins`, `--enable-exec`, the
//! container function flags, kbuild's `--plugin-timeout` and `--allow-plugin`) change
//! nothing unless the kustomization lists external plugins (see kbuild's `plugin` module).

use kbuild::KustomizeVersion;
use kbuild::build::{BuildOptions, Plugins, Reorder, build_with_warnings};
use kbuild::helm::HelmOptions;
use kbuild::load::LoadRestrictor;
use kbuild::output;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Help heading of the flags kustomize deprecated.
const DEPRECATED: &str = "Deprecated kustomize flags";
/// Help heading of the flags for helm charts.
const HELM: &str = "Helm charts";
/// Help heading of the flags for remote bases and files.
const REMOTE: &str = "Remote bases and files";
/// Help heading of the flags for plugins.
const PLUGINS: &str = "Plugins (exec plugins and KRM functions)";

/// Arguments of `kbuild build`.
#[derive(clap::Args, Debug)]
pub(crate) struct BuildArgs {
    /// Directory holding kustomization.yaml.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Further paths, taken so that they get kustomize's message, not clap's.
    #[arg(hide = true)]
    extra: Vec<PathBuf>,
    /// Write the output to this file, or, if it is an existing directory, one
    /// file per resource named as kustomize names them.
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
    /// Also write the provenance JSON to FILE. It says where every output field came from
    /// (schema kbuild.dev/provenance/v1; `kbuild explain` prints the same for one
    /// resource); the YAML output is unchanged.
    #[arg(long, value_name = "FILE")]
    provenance: Option<PathBuf>,
    #[command(flatten)]
    warnings: super::warnings::WarningFlags,
    #[command(flatten)]
    flags: BuildFlags,
}

impl BuildArgs {
    /// Whether the build writes files (and so must remove temporaries if killed).
    pub(crate) fn writes_files(&self) -> bool {
        self.output.is_some() || self.provenance.is_some()
    }
}

/// The flags of every command that builds kustomizations: those that change a build's
/// output or its error.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct BuildFlags {
    /// Whether files outside a kustomization's directory may be read:
    /// LoadRestrictionsRootOnly (the default) or LoadRestrictionsNone.
    // A string checked after parsing, as kustomize checks it: its error text, and "" for
    // the default.
    #[arg(
        long,
        value_name = "RESTRICTOR",
        default_value = "LoadRestrictionsRootOnly",
        hide_default_value = true
    )]
    load_restrictor: String,
    #[command(flatten)]
    version: VersionFlag,
    /// Fail when the fields that copy or expand values (commonAnnotations, labels,
    /// replacements, vars, configMapGenerator and secretGenerator) would create more than
    /// this many bytes in one build, in total (kbuild's; default 268435456, 256 MiB).
    #[arg(long, value_name = "BYTES")]
    max_output_bytes: Option<u64>,
    /// Without sortOptions in the kustomization: `legacy` sorts the output by kind (the
    /// default), `none` keeps the order resources were read in. kustomize: use sortOptions
    /// instead.
    #[arg(long, value_name = "legacy|none", help_heading = DEPRECATED)]
    reorder: Option<String>,
    /// Label every resource app.kubernetes.io/managed-by, as `buildMetadata:
    /// [managedByLabel]` does (also KUSTOMIZE_ENABLE_MANAGEDBY_LABEL=on). kustomize: use
    /// buildMetadata instead.
    #[arg(long, help_heading = DEPRECATED, value_name = "BOOL", value_parser = go_bool)]
    enable_managedby_label: Option<bool>,
    /// Inflate helmCharts with helm (`helm template`).
    #[arg(long, help_heading = HELM, value_name = "BOOL", value_parser = go_bool)]
    enable_helm: Option<bool>,
    /// Run external plugins (exec plugins, KRM functions) and helm charts. Only for
    /// kustomizations you trust: plugins are programs.
    #[arg(long, help_heading = PLUGINS, value_name = "BOOL", value_parser = go_bool)]
    enable_alpha_plugins: Option<bool>,
    #[command(flatten)]
    functions: FunctionFlags,
    /// The helm executable (a bare name is looked up on PATH).
    #[arg(long, value_name = "PATH", default_value = "helm", help_heading = HELM)]
    helm_command: String,
    /// The Kubernetes version helm reports to charts (Capabilities.KubeVersion) for charts
    /// that set no kubeVersion.
    #[arg(long, value_name = "VERSION", help_heading = HELM)]
    helm_kube_version: Option<String>,
    /// An API version helm reports to charts (Capabilities.APIVersions; repeatable), for
    /// charts that set no apiVersions.
    #[arg(long, value_name = "GROUP/VERSION", help_heading = HELM)]
    helm_api_versions: Vec<String>,
    /// Debug output from helm (`helm template --debug`) for every chart.
    #[arg(long, help_heading = HELM, value_name = "BOOL", value_parser = go_bool)]
    helm_debug: Option<bool>,
    /// Where pulled charts are kept, by repo, name and version (kbuild's; default
    /// $XDG_CACHE_HOME/kbuild/charts or ~/.cache/kbuild/charts).
    #[arg(long, value_name = "DIR", help_heading = HELM)]
    helm_cache_dir: Option<PathBuf>,
    /// Use only the caches: fail instead of fetching a remote base or file, or pulling a
    /// helm chart, that the clone cache or the chart cache does not hold (kbuild's).
    #[arg(long, help_heading = REMOTE)]
    offline: bool,
    /// Where git checkouts of remote bases are kept, by repository and commit (kbuild's;
    /// default $XDG_CACHE_HOME/kbuild/git or ~/.cache/kbuild/git).
    #[arg(long, value_name = "DIR", help_heading = REMOTE)]
    remote_cache_dir: Option<PathBuf>,
    #[command(flatten)]
    crd: super::openapi::CrdFlags,
}

/// The flags of external plugins beyond `--enable-alpha-plugins`: kustomize's for KRM
/// functions, and kbuild's limits.
#[derive(clap::Args, Debug, Clone)]
struct FunctionFlags {
    /// Also run KRM functions that are local programs (`exec: path:`), with
    /// --enable-alpha-plugins.
    #[arg(long, help_heading = PLUGINS, value_name = "BOOL", value_parser = go_bool)]
    enable_exec: Option<bool>,
    /// An environment variable for functions, KEY=VALUE or KEY to pass kbuild's own
    /// (repeatable).
    #[arg(short, long, value_name = "KEY[=VALUE]", help_heading = PLUGINS)]
    env: Vec<String>,
    /// A mount for container functions, as docker's type=bind,src=DIR,dst=DIR[,rw=true]
    /// (repeatable).
    #[arg(long, value_name = "OPTIONS", help_heading = PLUGINS)]
    mount: Vec<String>,
    /// Give container functions that declare `network: true` network access.
    #[arg(long, help_heading = PLUGINS, value_name = "BOOL", value_parser = go_bool)]
    network: Option<bool>,
    /// The docker network for those functions (default: the host's, as kustomize runs
    /// them; kustomize accepts this flag and ignores it).
    #[arg(long, value_name = "NAME", help_heading = PLUGINS)]
    network_name: Option<String>,
    /// Run container functions as the current user instead of nobody.
    #[arg(long, help_heading = PLUGINS, value_name = "BOOL", value_parser = go_bool)]
    as_current_user: Option<bool>,
    /// How long one plugin or helm run may take before it is killed with its process
    /// group: 90s, 10m, 1h, at most 8760h (kbuild's).
    #[arg(long, value_name = "DURATION", default_value = "10m", help_heading = PLUGINS)]
    plugin_timeout: String,
    /// Run only the plugins named here, by kind, program path or container image
    /// (repeatable; kbuild's). Without it, every plugin may run.
    #[arg(long, value_name = "KIND|PATH|IMAGE", help_heading = PLUGINS)]
    allow_plugin: Vec<String>,
}

impl FunctionFlags {
    fn options(&self) -> Result<kbuild::plugin::Options, kbuild::Error> {
        let timeout = kbuild::plugin::parse_timeout(&self.plugin_timeout)
            .map_err(|e| kbuild::Error::msg(format!("--plugin-timeout: {e}")))?;
        Ok(kbuild::plugin::Options {
            enable_exec: self.enable_exec.unwrap_or(false),
            network: self.network.unwrap_or(false),
            network_name: self.network_name.clone(),
            mounts: self.mount.clone(),
            env: self.env.clone(),
            as_current_user: self.as_current_user.unwrap_or(false),
            timeout,
            timeout_text: self.plugin_timeout.clone(),
            allow: self.allow_plugin.clone(),
            cleanup: super::signals::cleanup().clone(),
        })
    }
}

/// `--kustomize-version`, with `KBUILD_KUSTOMIZE_VERSION` as its default.
#[derive(clap::Args, Debug, Clone, Copy)]
pub(crate) struct VersionFlag {
    /// The kustomize release whose output to reproduce: v5.8.1 (the default) or
    /// v5.5.0 (5.8, v5.5, … name them too).
    #[arg(
        long,
        value_name = "VERSION",
        env = kbuild::kustomize_version::ENV_VAR,
        value_parser = parse_version,
        default_value = "v5.8.1"
    )]
    pub(crate) kustomize_version: KustomizeVersion,
}

/// [`KustomizeVersion::parse`], saying when the bad value came from the environment.
/// An empty variable counts as unset.
pub(crate) fn parse_version(text: &str) -> Result<KustomizeVersion, String> {
    let var = kbuild::kustomize_version::ENV_VAR;
    let from_env = std::env::var(var).is_ok_and(|v| v == text);
    if from_env && text.trim().is_empty() {
        return Ok(KustomizeVersion::default());
    }
    KustomizeVersion::parse(text).map_err(|e| {
        if from_env {
            format!("{e} (read from the environment variable {var})")
        } else {
            e.to_string()
        }
    })
}

/// A boolean flag's value as pflag reads it (Go's `strconv.ParseBool`), for
/// `--enable-helm=false` and the like.
pub(crate) fn go_bool(text: &str) -> Result<bool, String> {
    match text {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(format!(
            "strconv.ParseBool: parsing {text:?}: invalid syntax"
        )),
    }
}

/// The environment variable that turns the managed-by label on (value `on`), as the flag does.
const MANAGED_BY_ENV: &str = "KUSTOMIZE_ENABLE_MANAGEDBY_LABEL";

impl BuildFlags {
    /// The build options the flags ask for, checked as `kustomize build` checks them (its
    /// error text). First prints kustomize's notice for each deprecated flag given, as
    /// cobra does while parsing.
    pub(crate) fn options(&self) -> Result<BuildOptions, kbuild::Error> {
        if self.reorder.is_some() {
            eprintln!(
                "Flag --reorder has been deprecated, use the new 'sortOptions' field in kustomization.yaml instead."
            );
        }
        if self.enable_managedby_label.is_some() {
            // kustomize's message repeats itself; this is its text.
            eprintln!(
                "Flag --enable-managedby-label has been deprecated, The flag `enable-managedby-label` has been deprecated. Use the `managedByLabel` option in the `buildMetadata` field instead."
            );
        }
        let load_restrictor = match self.load_restrictor.as_str() {
            // kustomize takes "" for the default.
            "LoadRestrictionsRootOnly" | "" => LoadRestrictor::RootOnly,
            "LoadRestrictionsNone" => LoadRestrictor::None,
            // kustomize's reader also maps "none" to LoadRestrictionsNone, but its check
            // refuses "none" first: so does kbuild.
            other => {
                return Err(illegal_value(
                    "load-restrictor",
                    other,
                    "LoadRestrictionsRootOnly LoadRestrictionsNone",
                ));
            }
        };
        let reorder = match self.reorder.as_deref() {
            None => Reorder::Unspecified,
            Some("legacy") => Reorder::Legacy,
            Some("none") => Reorder::None,
            Some(other) => return Err(illegal_value("reorder", other, "legacy none")),
        };
        let from_env = std::env::var(MANAGED_BY_ENV).is_ok_and(|v| v == "on");
        // --plugin-timeout bounds helm's runs too.
        let external = self.functions.options()?;
        Ok(BuildOptions {
            load_restrictor,
            kustomize_version: self.version.kustomize_version,
            reorder,
            add_managed_by_label: self.enable_managedby_label.unwrap_or(false) || from_env,
            plugins: Plugins {
                enable_helm: self.enable_helm.unwrap_or(false),
                enable_alpha_plugins: self.enable_alpha_plugins.unwrap_or(false),
            },
            helm: HelmOptions {
                command: self.helm_command.clone(),
                kube_version: self.helm_kube_version.clone().unwrap_or_default(),
                api_versions: self.helm_api_versions.clone(),
                debug: self.helm_debug.unwrap_or(false),
                cache_dir: self.helm_cache_dir.clone(),
                offline: self.offline,
                timeout: external.timeout,
                timeout_text: external.timeout_text.clone(),
                cleanup: super::signals::cleanup().clone(),
                progress: std::io::stderr().is_terminal(),
            },
            external,
            remote: kbuild::remote::RemoteOptions {
                cache_dir: self.remote_cache_dir.clone(),
                offline: self.offline,
                cleanup: super::signals::cleanup().clone(),
                progress: std::io::stderr().is_terminal(),
            },
            max_output_bytes: self.max_output_bytes,
            merge_keys: self.crd.options()?,
            provenance: false,
            provenance_only: None,
        })
    }
}

/// kustomize's error for a flag value it does not know (`legal` as Go prints a string slice).
fn illegal_value(flag: &str, value: &str, legal: &str) -> kbuild::Error {
    kbuild::Error::msg(format!(
        "illegal flag value --{flag} {value}; legal values: [{legal}]"
    ))
}

/// `kbuild build`: exit 0 on success, 1 on any error (as kustomize).
pub(crate) fn run_build(args: &BuildArgs) -> super::CommandResult {
    build(args)?;
    Ok(super::Status::Success)
}

fn build(args: &BuildArgs) -> Result<(), kbuild::Error> {
    // The deprecation notices come first, as kustomize prints them while parsing, and
    // kustomize checks the number of paths before the flag values.
    let options = args.flags.options();
    if let Some(refusal) = super::unsupported::refusal(&args.dir, &args.extra) {
        return Err(kbuild::Error::msg(refusal));
    }
    if !args.extra.is_empty() {
        return Err(kbuild::Error::msg("specify one path to kustomization.yaml"));
    }
    let mut options = options?;
    options.provenance = args.provenance.is_some();
    if args.warnings.quiet {
        options.remote.progress = false;
        options.helm.progress = false;
    }
    let built = build_with_warnings(&args.dir, &options)?;
    // With --strict and warnings, nothing is written: the error follows the warnings.
    args.warnings.report(&built.warnings)?;
    let resmap = &built.resmap;
    if let Some(file) = &args.provenance {
        let read = |p: &Path| std::fs::read_to_string(p).ok();
        output::write_file_atomic_with(file, super::signals::cleanup(), |out| {
            kbuild::explain::json::write_document(resmap, &read, out)
        })?;
    }
    let result = write_output(args.output.as_deref(), resmap);
    // The process ends right after: freeing every node of a large build one by one
    // (and the files it parsed, which the output keeps) costs more than the output
    // took to write.
    std::mem::forget(built);
    result
}

fn write_output(
    output: Option<&Path>,
    resmap: &kbuild::resource::resmap::ResMap,
) -> Result<(), kbuild::Error> {
    match output {
        Some(path) if path.is_dir() => output::write_dir(resmap, path, super::signals::cleanup()),
        Some(path) => output::write_file_atomic(
            path,
            output::render(resmap).as_bytes(),
            super::signals::cleanup(),
        ),
        None => super::print_stdout_parts(&output::render_parts(resmap)),
    }
}

#[cfg(test)]
mod tests {
    use super::go_bool;

    #[test]
    fn booleans_read_as_go_reads_them() {
        for t in ["1", "t", "T", "true", "TRUE", "True"] {
            assert_eq!(go_bool(t), Ok(true), "{t}");
        }
        for f in ["0", "f", "F", "false", "FALSE", "False"] {
            assert_eq!(go_bool(f), Ok(false), "{f}");
        }
        for bad in ["", "yes", "on", "tRuE", " true"] {
            assert!(go_bool(bad).is_err(), "{bad}");
        }
    }
}
