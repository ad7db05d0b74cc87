//! `kbuild openapi`: `from-crds` writes (or checks) the OpenAPI document that makes
//! kustomize merge custom resources' lists by the keys their CRDs declare; the build flags
//! `--crd-merge-keys` and `--merge-key` do the same inside a build. kustomize's own
//! `openapi info` and `openapi fetch` (its built-in schema's version, a cluster's schema)
//! are refused by name.

use super::{BuildFlags, go_bool, print_stdout};
use super::{CommandError, OrTrouble, Status};
use kbuild::openapi::crd::{MergeKey, MergeKeyOptions};
use std::path::PathBuf;

/// Help heading of the CRD merge-key flags.
const CRD: &str = "Merging custom resources (kbuild's)";

/// `--crd-merge-keys` and `--merge-key`, flattened into every command that builds.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct CrdFlags {
    /// Merge the lists of custom resources by the keys their CRDs in the build declare
    /// (x-kubernetes-list-type: map), as kustomize does with the file `kbuild openapi
    /// from-crds` writes named in `openapi: path:`: the output is that build's, byte for
    /// byte. Off by default: kustomize replaces those lists whole.
    #[arg(long, help_heading = CRD, value_name = "BOOL", value_parser = go_bool)]
    crd_merge_keys: Option<bool>,
    /// Merge a list no CRD gives keys for by these keys (repeatable):
    /// GROUP/KIND:FIELD.PATH=KEY[,KEY], `name[]` to go into a list's elements, e.g.
    /// monitoring.coreos.com/PrometheusRule:spec.groups=name.
    #[arg(long, help_heading = CRD, value_name = "GROUP/KIND:FIELD.PATH=KEY[,KEY]")]
    merge_key: Vec<String>,
    /// CRD files or directories (repeatable) whose CRDs count as if they were in the
    /// build: for --crd-merge-keys and for the warning about a patch replacing a list
    /// their CRD declares keyed (CRDs installed in the cluster by other means).
    #[arg(long, help_heading = CRD, value_name = "FILE|DIR")]
    crds: Vec<std::path::PathBuf>,
}

impl CrdFlags {
    /// The merge keys the flags ask for; a malformed `--merge-key` is an error naming it.
    pub(crate) fn options(&self) -> Result<MergeKeyOptions, kbuild::Error> {
        Ok(MergeKeyOptions {
            from_crds: self.crd_merge_keys.unwrap_or(false),
            declared: self
                .merge_key
                .iter()
                .map(|k| MergeKey::parse(k))
                .collect::<Result<_, _>>()?,
            crd_files: self.crds.clone(),
        })
    }
}

/// Arguments of `kbuild openapi`.
#[derive(clap::Args, Debug)]
pub(crate) struct OpenapiArgs {
    #[command(subcommand)]
    command: OpenapiCommand,
}

#[derive(clap::Subcommand, Debug)]
enum OpenapiCommand {
    /// Write the OpenAPI document that makes kustomize (and Argo CD, Flux) merge the lists
    /// of custom resources by the keys their CRDs declare: name it in a kustomization's
    /// `openapi: path:`. It holds Kubernetes' built-in kinds too, so Deployments and the
    /// rest keep merging as before.
    FromCrds(Box<FromCrdsArgs>),
    /// kustomize's `openapi info`: refused.
    #[command(hide = true, disable_help_flag = true)]
    Info(Rest),
    /// kustomize's `openapi fetch`: refused.
    #[command(hide = true, disable_help_flag = true)]
    Fetch(Rest),
}

/// Whatever follows a refused subcommand.
#[derive(clap::Args, Debug)]
struct Rest {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    args: Vec<String>,
}

/// Arguments of `kbuild openapi from-crds`.
#[derive(clap::Args, Debug)]
struct FromCrdsArgs {
    /// CRD files (YAML or JSON), directories of them, or kustomization directories (built:
    /// CRDs their helm charts render count) [default: .].
    paths: Vec<PathBuf>,
    /// Write the document to FILE (default: stdout).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write nothing; exit 1 when FILE is missing or not what this command would write
    /// (for CI and the pre-commit hook), 0 when it is current.
    #[arg(long, requires = "output")]
    check: bool,
    #[command(flatten)]
    flags: BuildFlags,
}

impl OpenapiArgs {
    /// Whether the command may write a file.
    pub(crate) fn writes_files(&self) -> bool {
        matches!(&self.command, OpenapiCommand::FromCrds(a) if a.output.is_some() && !a.check)
    }
}

/// `kbuild openapi`: 0 on success (or a current file), 1 for a stale file with --check or
/// a refused subcommand, 2 on any other error.
pub(crate) fn run_openapi(args: &OpenapiArgs) -> super::CommandResult {
    let from_crds = match &args.command {
        OpenapiCommand::FromCrds(a) => a,
        OpenapiCommand::Info(_) | OpenapiCommand::Fetch(_) => {
            let sub = match &args.command {
                OpenapiCommand::Info(_) => "info",
                _ => "fetch",
            };
            let refusal = kbuild::Error::msg(super::unsupported::openapi_refusal(sub));
            return Err(CommandError::failed(refusal));
        }
    };
    from_crds_run(from_crds).or_trouble()
}

fn from_crds_run(args: &FromCrdsArgs) -> Result<Status, kbuild::Error> {
    let build = args.flags.options()?;
    let job = kbuild::crd_openapi::FromCrds {
        paths: args.paths.clone(),
        merge_keys: build.merge_keys.declared.clone(),
        build,
    };
    let doc = &kbuild::crd_openapi::generate(&job)?;
    let Some(file) = &args.output else {
        print_stdout(&doc.text)?;
        return Ok(Status::Success);
    };
    if args.check {
        let current = std::fs::read(file).ok();
        if current.as_deref() == Some(doc.text.as_bytes()) {
            return Ok(Status::Success);
        }
        let why = if current.is_none() {
            "missing"
        } else {
            "not what the CRDs give"
        };
        eprintln!(
            "stale: {} ({why}); run `{}` to update it",
            file.display(),
            super::render::fix_command()
        );
        if let Some(old) = current {
            let old = String::from_utf8_lossy(&old);
            let diff = similar::TextDiff::from_lines(old.as_ref(), doc.text.as_str());
            let text = diff.unified_diff().context_radius(2).to_string();
            let lines: Vec<&str> = text.lines().collect();
            for line in lines.iter().take(40) {
                eprintln!("  {line}");
            }
            if lines.len() > 40 {
                eprintln!("  ... ({} more lines)", lines.len() - 40);
            }
        }
        return Ok(Status::Differences);
    }
    kbuild::output::write_file_atomic(file, doc.text.as_bytes(), super::signals::cleanup())?;
    eprintln!(
        "wrote {}: {} list{} of {} custom resource version{} merge by key, next to the built-in kinds",
        file.display(),
        doc.lists,
        if doc.lists == 1 { "" } else { "s" },
        doc.kinds.len(),
        if doc.kinds.len() == 1 { "" } else { "s" },
    );
    Ok(Status::Success)
}
