//! `kbuild edit`: kustomize's `edit` subcommands and flags, on the kustomization file
//! of the current directory.

use super::print_stdout;
use clap::{Args, Subcommand};
use kbuild::edit::{Fix, Generator, GeneratorFlags, KustomizationFile, Metadata, PatchArgs};

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
    /// Rewrite deprecated fields as their successors (bases, imageTags,
    /// patchesJson6902, patchesStrategicMerge, commonLabels, a generator's env,
    /// helmChartInflationGenerator) and add apiVersion and kind when missing.
    Fix {
        /// Convert vars to replacements too (rewrites the resource files that use them).
        #[arg(long)]
        vars: bool,
        /// Write only if every kustomization in the repository that reads a changed file
        /// (the git work tree, else this directory) builds to the same bytes after the fix;
        /// print what was checked.
        #[arg(long)]
        verify: bool,
    },
    /// [Alpha] List the builtin plugins (the configs `generators:` and `transformers:`
    /// run without --enable-alpha-plugins).
    AlphaListBuiltinPlugin,
}

/// The NAME of a ConfigMap or Secret generator entry.
#[derive(Args, Debug)]
struct Name {
    #[arg(value_name = "NAME")]
    name: Vec<String>,
}

/// The flags `edit add configmap` and `edit add secret` share.
#[derive(Args, Debug)]
struct AddSources {
    #[command(flatten)]
    name: Name,
    /// A file to read, `[key=]source`: the key is the file name unless given; a glob
    /// pattern adds every file it matches (with a key it must match one). Repeatable,
    /// or comma-separated (a CSV record: `"a,b.txt"` is one name with a comma).
    #[arg(long, value_name = "[KEY=]SOURCE")]
    from_file: Vec<String>,
    /// A key and literal value, `key=value`. Repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    from_literal: Vec<String>,
    /// An env file of `key=value` lines (not with --from-file or --from-literal).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "",
        hide_default_value = true
    )]
    from_env_file: String,
    /// Disable the name suffix hash of the generated object.
    #[arg(long = "disableNameSuffixHash")]
    disable_name_suffix_hash: bool,
    /// The namespace of the generated object.
    #[arg(long, default_value = "", hide_default_value = true)]
    namespace: String,
}

impl AddSources {
    fn flags(&self) -> GeneratorFlags {
        GeneratorFlags {
            from_file: self.from_file.iter().flat_map(|v| csv_record(v)).collect(),
            from_literal: self.from_literal.clone(),
            from_env_file: self.from_env_file.clone(),
            namespace: self.namespace.clone(),
            disable_name_suffix_hash: self.disable_name_suffix_hash,
            ..GeneratorFlags::default()
        }
    }
}

/// The sources in one `--from-file` value. pflag reads a string-slice flag's value as one
/// CSV record, so a comma separates sources unless quoted (`--from-file='"a,b.txt",c'` is
/// two); an empty value is none.
fn csv_record(value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(value.as_bytes())
        .records()
        .next()
        .and_then(Result::ok)
        .map(|record| record.iter().map(String::from).collect())
        .unwrap_or_else(|| vec![value.to_string()])
}

/// The flags of `edit set configmap|secret`.
#[derive(Args, Debug)]
struct SetSources {
    #[command(flatten)]
    name: Name,
    /// A key the entry has and its new value, `key=value`. Repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    from_literal: Vec<String>,
    /// The current namespace of the entry (none means `default`).
    #[arg(long, default_value = "", hide_default_value = true)]
    namespace: String,
    /// A new namespace for the entry.
    #[arg(long, default_value = "", hide_default_value = true)]
    new_namespace: String,
}

impl SetSources {
    fn flags(&self) -> GeneratorFlags {
        GeneratorFlags {
            from_literal: self.from_literal.clone(),
            namespace: self.namespace.clone(),
            new_namespace: self.new_namespace.clone(),
            ..GeneratorFlags::default()
        }
    }
}

/// The arguments of `edit remove configmap|secret`.
#[derive(Args, Debug)]
struct RemoveGenerators {
    /// Names, comma-separated.
    #[arg(value_name = "NAME[,NAME...]")]
    names: Vec<String>,
    /// The namespace of the entries to remove (none means `default`).
    #[arg(long, default_value = "", hide_default_value = true)]
    namespace: String,
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
    /// Change literal values or the namespace of a configMapGenerator entry.
    Configmap(SetSources),
    /// Change literal values or the namespace of a secretGenerator entry.
    Secret(SetSources),
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
    /// Add a configMapGenerator entry, or sources to the one with that name and
    /// namespace.
    Configmap {
        #[command(flatten)]
        sources: AddSources,
        /// create, merge or replace (a base's ConfigMap of the same name).
        #[arg(long, default_value = "", hide_default_value = true)]
        behavior: String,
    },
    /// Add a secretGenerator entry, or sources to the one with that name and
    /// namespace.
    Secret {
        #[command(flatten)]
        sources: AddSources,
        /// The type of a new Secret (Opaque, kubernetes.io/tls, ...).
        #[arg(long = "type", default_value = "Opaque")]
        secret_type: String,
    },
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
    /// Remove configMapGenerator entries.
    Configmap(RemoveGenerators),
    /// Remove secretGenerator entries.
    Secret(RemoveGenerators),
}

/// `kbuild edit`: exit 0 when the file was changed (or needed no change), 1 on any
/// error, with the file untouched.
pub(crate) fn run_edit(args: &EditArgs) -> super::CommandResult {
    if let EditCommand::AlphaListBuiltinPlugin = args.command {
        return list_builtin_plugins();
    }
    let result = (|| {
        let mut file = KustomizationFile::open(std::path::Path::new("."))?;
        let fix = match &args.command {
            EditCommand::Fix { vars, .. } => file.fix(*vars).map(Some),
            command => apply(&mut file, command).map(|()| None),
        };
        // kustomize logs as it goes: its notes come out before its error too.
        for note in file.notes() {
            eprintln!("{note}");
        }
        let fix = fix?;
        let Some(fix) = fix else {
            return finish(&file, args.dry_run, &[]);
        };
        let mut changed = vec![(file.path().to_path_buf(), file.doc().text().to_string())];
        changed.extend(fix.files.iter().cloned());
        let dir = file.path().parent().unwrap_or(std::path::Path::new("."));
        let mut report = fix_report(&fix);
        if matches!(args.command, EditCommand::Fix { verify: true, .. }) {
            report.push_str(&verify_fix(dir, &changed)?);
        } else if let Some(warning) = kbuild::edit::build_change(dir, &changed) {
            report.push_str(&warning);
            report.push('\n');
        }
        // kustomize prints this on stdout; with --dry-run stdout is the diff's.
        if args.dry_run {
            eprint!("{report}");
        } else {
            print_stdout(&report)?;
        }
        finish(&file, args.dry_run, &fix.files)
    })();
    result?;
    Ok(super::Status::Success)
}

/// Writes the kustomization and the other `files` the command changed, or prints
/// their diffs (`dry_run`).
fn finish(
    file: &KustomizationFile,
    dry_run: bool,
    files: &[(std::path::PathBuf, String)],
) -> kbuild::Result<()> {
    if dry_run {
        print_stdout(&file.diff())?;
        for (path, text) in files {
            let old = std::fs::read_to_string(path).unwrap_or_default();
            let name = path.display().to_string();
            let diff =
                kbuild::diff::unified_diff(&old, text, &format!("a/{name}"), &format!("b/{name}"));
            print_stdout(&diff)?;
        }
        return Ok(());
    }
    file.save(super::signals::cleanup())?;
    for (path, text) in files {
        kbuild::edit::write_file(path, text, super::signals::cleanup())?;
    }
    Ok(())
}

/// What `edit fix` changed, and what it left (kustomize's message, with the fields
/// this file had).
fn fix_report(fix: &Fix) -> String {
    let mut out = String::new();
    if !fix.fixed.is_empty() {
        out.push_str("Fixed fields:\n");
        for (from, to) in &fix.fixed {
            out.push_str(&format!("  {from} -> {to}\n"));
        }
    }
    if fix.vars_left {
        out.push_str(
            "To convert vars -> replacements, run the command `kbuild edit fix --vars`\n\n\
             WARNING: Converting vars to replacements will potentially overwrite many resource files\n\
             and the resulting files may not produce the same output when `kbuild build` is run.\n\
             We recommend doing this in a clean git repository where the change is easy to undo.\n",
        );
    }
    out
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
            SetCommand::Configmap(s) => {
                file.set_generator(Generator::ConfigMap, &s.name.name, &s.flags())
            }
            SetCommand::Secret(s) => {
                file.set_generator(Generator::Secret, &s.name.name, &s.flags())
            }
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
            AddCommand::Configmap { sources, behavior } => {
                let flags = GeneratorFlags {
                    behavior: behavior.clone(),
                    ..sources.flags()
                };
                file.add_generator(Generator::ConfigMap, &sources.name.name, &flags)
            }
            AddCommand::Secret {
                sources,
                secret_type,
            } => {
                let flags = GeneratorFlags {
                    secret_type: secret_type.clone(),
                    ..sources.flags()
                };
                file.add_generator(Generator::Secret, &sources.name.name, &flags)
            }
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
            RemoveCommand::Configmap(r) => {
                file.remove_generators(Generator::ConfigMap, &r.names, &r.namespace)
            }
            RemoveCommand::Secret(r) => {
                file.remove_generators(Generator::Secret, &r.names, &r.namespace)
            }
        },
        EditCommand::Fix { .. } | EditCommand::AlphaListBuiltinPlugin => Ok(()),
    }
}

/// kustomize's `edit alpha-list-builtin-plugin`, which needs no kustomization file. kustomize
/// prints its plugins in Go's random map order; kbuild prints the generators, then the
/// transformers, each in a fixed order.
fn list_builtin_plugins() -> super::CommandResult {
    use kbuild::kustomization::plugin_config::{GENERATOR_KINDS, TRANSFORMER_KINDS};
    let mut text = String::from("Builtin plugins:\n\n");
    for kind in GENERATOR_KINDS.iter().chain(TRANSFORMER_KINDS) {
        text.push_str(&format!(" * {kind}\n"));
    }
    print_stdout(&text)?;
    Ok(super::Status::Success)
}

/// `edit fix --verify`: builds every kustomization that reads a changed file before and
/// after the fix; the proof, or an error (nothing written) naming what would change.
fn verify_fix(
    dir: &std::path::Path,
    changed: &[(std::path::PathBuf, String)],
) -> kbuild::Result<String> {
    let root = kbuild::refs::git::Repo::discover(dir)
        .map(|r| r.top().to_path_buf())
        .unwrap_or_else(|_| dir.to_path_buf());
    let candidates = kbuild::render::discover(std::slice::from_ref(&root), None)?;
    let paths: Vec<std::path::PathBuf> = changed.iter().map(|(p, _)| p.clone()).collect();
    let readers = kbuild::render::affected(&candidates, &paths, None)?;
    if readers.is_empty() {
        return Err(kbuild::Error::msg(format!(
            "--verify: no kustomization under {} builds from the changed files (a component or a base no kustomization uses); nothing was written. Run without --verify to fix it anyway",
            root.display()
        )));
    }
    let results = kbuild::edit::verify(&readers, changed, &kbuild::BuildOptions::default());
    let bytes: usize = results.iter().map(|r| r.bytes).sum();
    let differing: Vec<&kbuild::edit::Verified> =
        results.iter().filter(|r| r.change.is_some()).collect();
    if !differing.is_empty() {
        let mut msg = format!(
            "--verify: the fix changes what {} of {} kustomization{} build{}; nothing was written:",
            differing.len(),
            results.len(),
            if results.len() == 1 { "" } else { "s" },
            if differing.len() == 1 { "s" } else { "" },
        );
        for r in differing {
            msg.push_str(&format!(
                "\n{}:\n{}",
                r.dir.display(),
                r.change.as_deref().unwrap_or("").trim_end()
            ));
        }
        return Err(kbuild::Error::msg(msg));
    }
    let mut proof = format!(
        "Verified: {} kustomization{} that read the changed files build to the same {} bytes before and after:\n",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        bytes
    );
    for r in &results {
        proof.push_str(&format!("  {} ({} bytes)\n", r.dir.display(), r.bytes));
    }
    Ok(proof)
}
