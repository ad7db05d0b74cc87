//! `kbuild edit`: kustomize's `edit` subcommands and flags, on the kustomization file
//! of the current directory.

use super::print_stdout;
use clap::{Args, Subcommand};
use kbuild::edit::{KustomizationFile, Metadata, PatchArgs};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub(crate) struct EditArgs {
    #[command(subcommand)]
    command: EditCommand,
    /// Print the change as a unified diff instead of writing the file.
    #[arg(long, global = true)]
    dry_run: bool,
}

#[derive(Subcommand, Debug)]
enum EditCommand {
    /// Set a value in the kustomization file.
    #[command(subcommand)]
    Set(SetCommand),
    /// Add an item to the kustomization file.
    #[command(subcommand)]
    Add(AddCommand),
    /// Remove items from the kustomization file.
    #[command(subcommand)]
    Remove(RemoveCommand),
}

/// Values given after the subcommand (`--` first when one begins with `-`).
#[derive(Args, Debug)]
struct Values {
    #[arg(value_name = "VALUE")]
    values: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum SetCommand {
    /// Set images and their new names, new tags or digests:
    /// `name=newName:tag`, `name:tag`, `name@digest`, `*` keeps a value.
    Image(Values),
    /// Set the name prefix (`edit set nameprefix -- -p` for one that begins with `-`).
    #[command(name = "nameprefix")]
    NamePrefix(Values),
    /// Set the name suffix (`edit set namesuffix -- -s` for one that begins with `-`).
    #[command(name = "namesuffix")]
    NameSuffix(Values),
    /// Set the namespace.
    Namespace(Values),
    /// Set replica counts: `name=count`.
    Replicas(Values),
    /// Set commonLabels: `key:value`.
    Label(Values),
    /// Set commonAnnotations: `key:value`.
    Annotation(Values),
    /// Set buildMetadata options (comma-separated: originAnnotations,
    /// transformerAnnotations, managedByLabel).
    #[command(name = "buildmetadata")]
    BuildMetadata(Values),
}

#[derive(Args, Debug)]
struct PatchFlags {
    /// Path to the patch file. Cannot be used with --patch at the same time.
    #[arg(long, default_value = "")]
    path: String,
    /// Literal string of patch content. Cannot be used with --path at the same time.
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    patch: String,
    /// API group in patch target.
    #[arg(long, default_value = "")]
    group: String,
    /// API version in patch target.
    #[arg(long, default_value = "")]
    version: String,
    /// Resource kind in patch target.
    #[arg(long, default_value = "")]
    kind: String,
    /// Resource name in patch target.
    #[arg(long, default_value = "")]
    name: String,
    /// Resource namespace in patch target.
    #[arg(long, default_value = "")]
    namespace: String,
    /// annotationSelector in patch target.
    #[arg(long, default_value = "")]
    annotation_selector: String,
    /// labelSelector in patch target.
    #[arg(long, default_value = "")]
    label_selector: String,
}

impl PatchFlags {
    fn args(&self) -> PatchArgs {
        PatchArgs {
            path: self.path.clone(),
            patch: self.patch.clone(),
            target: [
                self.group.clone(),
                self.version.clone(),
                self.kind.clone(),
                self.name.clone(),
                self.namespace.clone(),
                self.annotation_selector.clone(),
                self.label_selector.clone(),
            ],
        }
    }
}

#[derive(Subcommand, Debug)]
enum AddCommand {
    /// Add resource files, directories or URLs (glob patterns are expanded).
    Resource {
        #[command(flatten)]
        values: Values,
        /// Skip checking that each resource exists.
        #[arg(long)]
        no_verify: bool,
    },
    /// Add bases (comma-separated directories) to resources.
    Base(Values),
    /// Add components (glob patterns are expanded).
    Component(Values),
    /// Add a patch.
    Patch(PatchFlags),
    /// Add commonLabels (or, with --without-selector, a labels entry): `key:value`.
    Label {
        #[command(flatten)]
        values: Values,
        /// Overwrite a label that already exists.
        #[arg(short, long)]
        force: bool,
        /// Add to `labels` with includeSelectors false instead of commonLabels.
        #[arg(long)]
        without_selector: bool,
        /// Include the labels in templates (requires --without-selector).
        #[arg(long)]
        include_templates: bool,
    },
    /// Add commonAnnotations: `key:value`.
    Annotation {
        #[command(flatten)]
        values: Values,
        /// Overwrite an annotation that already exists.
        #[arg(short, long)]
        force: bool,
    },
    /// Add generator plugin config files (glob patterns are expanded).
    Generator(Values),
    /// Add transformer plugin config files (glob patterns are expanded).
    Transformer(Values),
    /// Add buildMetadata options (comma-separated).
    #[command(name = "buildmetadata")]
    BuildMetadata(Values),
}

#[derive(Subcommand, Debug)]
enum RemoveCommand {
    /// Remove resources (glob patterns match the listed entries).
    Resource(Values),
    /// Remove components (glob patterns match the listed entries).
    Component(Values),
    /// Remove transformers (glob patterns match the listed entries).
    Transformer(Values),
    /// Remove a patch (the entry with the same path or patch and target).
    Patch(PatchFlags),
    /// Remove commonLabels (comma-separated keys).
    Label {
        #[command(flatten)]
        values: Values,
        /// Ignore keys that are not there.
        #[arg(short, long = "ignore-non-existence")]
        ignore: bool,
    },
    /// Remove commonAnnotations (comma-separated keys).
    Annotation {
        #[command(flatten)]
        values: Values,
        /// Ignore keys that are not there.
        #[arg(short, long = "ignore-non-existence")]
        ignore: bool,
    },
    /// Remove buildMetadata options (comma-separated).
    #[command(name = "buildmetadata")]
    BuildMetadata(Values),
}

/// `kbuild edit`: exit 0 when the file was changed (or needed no change), 1 on any
/// error, with the file untouched.
pub(crate) fn run_edit(args: &EditArgs) -> ExitCode {
    let result = (|| {
        let mut file = KustomizationFile::open(std::path::Path::new("."))?;
        apply(&mut file, &args.command)?;
        for note in file.notes() {
            eprintln!("{note}");
        }
        if args.dry_run {
            print_stdout(&file.diff())
        } else {
            file.save()
        }
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {}", e.report());
            ExitCode::FAILURE
        }
    }
}

fn apply(file: &mut KustomizationFile, command: &EditCommand) -> kbuild::Result<()> {
    match command {
        EditCommand::Set(set) => match set {
            SetCommand::Image(v) => file.set_images(&v.values),
            SetCommand::NamePrefix(v) => file.set_scalar_field("namePrefix", &v.values),
            SetCommand::NameSuffix(v) => file.set_scalar_field("nameSuffix", &v.values),
            SetCommand::Namespace(v) => file.set_scalar_field("namespace", &v.values),
            SetCommand::Replicas(v) => file.set_replicas(&v.values),
            SetCommand::Label(v) => file.set_metadata(Metadata::Label, &v.values),
            SetCommand::Annotation(v) => file.set_metadata(Metadata::Annotation, &v.values),
            SetCommand::BuildMetadata(v) => file.set_build_metadata(&v.values),
        },
        EditCommand::Add(add) => match add {
            AddCommand::Resource { values, no_verify } => {
                file.add_resources(&values.values, *no_verify)
            }
            AddCommand::Base(v) => file.add_bases(&v.values),
            AddCommand::Component(v) => file.add_components(&v.values),
            AddCommand::Patch(p) => file.add_patch(&p.args()),
            AddCommand::Label {
                values,
                force,
                without_selector,
                include_templates,
            } => file.add_metadata(
                Metadata::Label,
                &values.values,
                *force,
                *without_selector,
                *include_templates,
            ),
            AddCommand::Annotation { values, force } => {
                file.add_metadata(Metadata::Annotation, &values.values, *force, false, false)
            }
            AddCommand::Generator(v) => file.add_plugin_files("generators", &v.values),
            AddCommand::Transformer(v) => file.add_plugin_files("transformers", &v.values),
            AddCommand::BuildMetadata(v) => file.add_build_metadata(&v.values),
        },
        EditCommand::Remove(remove) => match remove {
            RemoveCommand::Resource(v) => file.remove_listed("resources", &v.values),
            RemoveCommand::Component(v) => file.remove_listed("components", &v.values),
            RemoveCommand::Transformer(v) => file.remove_listed("transformers", &v.values),
            RemoveCommand::Patch(p) => file.remove_patch(&p.args()),
            RemoveCommand::Label { values, ignore } => {
                file.remove_metadata(Metadata::Label, &values.values, *ignore)
            }
            RemoveCommand::Annotation { values, ignore } => {
                file.remove_metadata(Metadata::Annotation, &values.values, *ignore)
            }
            RemoveCommand::BuildMetadata(v) => file.remove_build_metadata(&v.values),
        },
    }
}
