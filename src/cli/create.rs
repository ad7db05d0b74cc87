//! `kbuild create`: kustomize's `create` flags, in the current directory.

use clap::Args;

#[derive(Args, Debug)]
pub(crate) struct CreateArgs {
    /// Resources to list: comma-separated files, directories, URLs or glob patterns.
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    resources: String,
    /// Set the namespace field.
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    namespace: String,
    /// Set the namePrefix field.
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    nameprefix: String,
    /// Set the nameSuffix field.
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    namesuffix: String,
    /// Add common labels: `key:value,key:value`.
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    labels: String,
    /// Add common annotations: `key:value,key:value`.
    #[arg(
        long,
        default_value = "",
        hide_default_value = true,
        allow_hyphen_values = true
    )]
    annotations: String,
    /// List the Kubernetes resource files found in the current directory.
    #[arg(long)]
    autodetect: bool,
    /// With --autodetect, search subdirectories too (one holding a kustomization is
    /// listed as a resource itself).
    #[arg(long)]
    recursive: bool,
}

/// `kbuild create`: exit 0 when `kustomization.yaml` was written, 1 on any error.
pub(crate) fn run_create(args: &CreateArgs) -> super::CommandResult {
    let flags = kbuild::edit::CreateArgs {
        resources: args.resources.clone(),
        namespace: args.namespace.clone(),
        name_prefix: args.nameprefix.clone(),
        name_suffix: args.namesuffix.clone(),
        labels: args.labels.clone(),
        annotations: args.annotations.clone(),
        autodetect: args.autodetect,
        recursive: args.recursive,
    };
    let (_, _, notes) = kbuild::edit::create(std::path::Path::new("."), &flags)?;
    for note in notes {
        eprintln!("{note}");
    }
    Ok(super::Status::Success)
}
