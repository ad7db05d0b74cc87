//! How help reads: `-h` is a one-screen summary (one line per flag, grouped by heading),
//! `--help` the full text with examples, and the flags every building command shares are
//! described once, under `kbuild build`.
//!
//! The clap definitions keep one doc comment per flag, the full text; the summary line
//! `-h` shows is derived from it here, so the two cannot disagree. The examples are also
//! what the man pages print (clap_mangen renders `after_long_help` as their EXAMPLES).

/// Commands that describe the shared build flags in their own help: `build`, and the
/// top-level command, which is `build` when no subcommand is given.
const DESCRIBES_BUILD_FLAGS: &[&str] = &["kbuild", "kbuild build"];

/// The widest `-h` summary: clap puts every flag of a heading on two lines once one
/// summary does not fit beside the widest flag name in 100 columns.
const SUMMARY_WIDTH: usize = 44;

/// `command` (the top-level command) with the help shaped as described above;
/// `build_flags` are the ids of the flags every building command flattens in.
pub(crate) fn shape(command: clap::Command, build_flags: &[String]) -> clap::Command {
    shape_one(command, build_flags, "")
}

fn shape_one(command: clap::Command, build_flags: &[String], parent: &str) -> clap::Command {
    let name = command.get_name().to_string();
    let path = if parent.is_empty() {
        name.clone()
    } else {
        format!("{parent} {name}")
    };
    let describes = DESCRIBES_BUILD_FLAGS.contains(&path.as_str());
    // Only commands that take every build flag (flatten `BuildFlags`) point to `build`;
    // `version` and `deps` take a few of them, which stay described in place.
    let shared = command
        .get_arguments()
        .filter(|a| build_flags.iter().any(|f| f == a.get_id().as_str()))
        .count();
    let takes_build_flags = shared == build_flags.len();
    let mut command = command
        .next_line_help(false)
        .mut_args(|arg| summarised(arg, build_flags, describes || !takes_build_flags, &name));
    let mut after = String::new();
    if takes_build_flags && !describes {
        after.push_str(
            "Build flags: every flag of `kbuild build` applies here too, and `kbuild build --help`\n\
             describes them: --load-restrictor, --kustomize-version, --enable-helm, --offline,\n\
             the helm, plugin and remote flags and the rest.\n",
        );
    }
    if !after.is_empty() {
        command = command.after_help(after.trim_end().to_string());
    }
    // A section the definition already has (the top level's EXIT STATUS) comes last.
    let own = command
        .get_after_long_help()
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut long = after.trim_end().to_string();
    if let Some(examples) = examples(&path) {
        if !long.is_empty() {
            long.push_str("\n\n");
        }
        long.push_str("Examples:\n");
        long.push_str(examples.trim_end());
    }
    if !own.is_empty() {
        if !long.is_empty() {
            long.push_str("\n\n");
        }
        long.push_str(own.trim_end());
    }
    if !long.is_empty() {
        command = command.after_long_help(long);
    }
    command.mut_subcommands(|sub| shape_one(sub, build_flags, &path))
}

/// One flag: its `-h` line is the first clause of its help; a shared build flag is left
/// out of the help of every command but `build` (completions still offer it).
fn summarised(arg: clap::Arg, build_flags: &[String], describes: bool, name: &str) -> clap::Arg {
    let id = arg.get_id().as_str().to_string();
    if !describes && build_flags.contains(&id) {
        return arg.hide_short_help(true).hide_long_help(true);
    }
    if arg.get_long_help().is_some() {
        return arg;
    }
    let Some(help) = arg.get_help().map(|h| h.to_string()) else {
        return arg;
    };
    let short = SUMMARIES
        .iter()
        .find(|(command, flag, _)| *flag == id && (command.is_empty() || *command == name))
        .map_or_else(|| summary(&help), |(_, _, s)| s.to_string());
    if short == help {
        return arg;
    }
    arg.help(short).long_help(help)
}

/// `-h` lines written by hand, by command name ("" for any) and flag id, where the first
/// clause of the full help does not say what the flag does on its own.
const SUMMARIES: &[(&str, &str, &str)] = &[
    (
        "build",
        "output",
        "Write to FILE, or to DIR one file per resource",
    ),
    (
        "kbuild",
        "output",
        "Write to FILE, or to DIR one file per resource",
    ),
    (
        "",
        "load_restrictor",
        "LoadRestrictionsRootOnly (default) or LoadRestrictionsNone",
    ),
    (
        "",
        "kustomize_version",
        "The kustomize to reproduce: v5.8.1, v5.5.0",
    ),
    (
        "",
        "max_output_bytes",
        "The output budget of one build (256 MiB)",
    ),
    ("", "reorder", "legacy or none (kustomize: sortOptions)"),
    (
        "",
        "enable_managedby_label",
        "Label resources app.kubernetes.io/managed-by",
    ),
    (
        "",
        "helm_kube_version",
        "The Kubernetes version charts are told",
    ),
    (
        "",
        "helm_api_versions",
        "An API version charts are told (repeatable)",
    ),
    ("", "helm_cache_dir", "Where pulled charts are kept"),
    (
        "",
        "enable_alpha_plugins",
        "Run external plugins and KRM functions",
    ),
    (
        "",
        "enable_exec",
        "Also run KRM functions that are programs",
    ),
    ("", "env", "KEY=VALUE or KEY for functions (repeatable)"),
    ("", "mount", "type=bind,src=DIR,dst=DIR for containers"),
    ("", "network", "Network for functions that ask for it"),
    (
        "",
        "as_current_user",
        "Run container functions as your user",
    ),
    (
        "",
        "plugin_timeout",
        "Kill a plugin or helm run after this long",
    ),
    ("", "allow_plugin", "Run only these plugins (repeatable)"),
    ("", "offline", "Use only the caches, never the network"),
    (
        "",
        "remote_cache_dir",
        "Where checkouts of remote bases are kept",
    ),
    (
        "",
        "crd_merge_keys",
        "Merge custom resources' lists by CRD keys",
    ),
    ("", "merge_key", "Keys for a list no CRD describes"),
    ("", "crds", "CRD files that count as if in the build"),
    (
        "build",
        "strict",
        "Fail when the build has warnings (for CI)",
    ),
    (
        "kbuild",
        "strict",
        "Fail when the build has warnings (for CI)",
    ),
    ("build", "quiet", "Print no warnings and no progress"),
    ("kbuild", "quiet", "Print no warnings and no progress"),
    (
        "diff",
        "inputs",
        "OLD NEW, or with --ref the PATHs to compare",
    ),
    ("diff", "git_ref", "Compare with git revision REF"),
    ("diff", "to_ref", "With --ref: the new side's revision"),
    (
        "diff",
        "to_kustomize_version",
        "Build the new side as this kustomize",
    ),
    ("diff", "stat", "One line per resource, no diffs"),
    (
        "diff",
        "ignore_hash_suffix",
        "Compare generated names without hashes",
    ),
    ("diff", "max_bytes", "The markdown report's size limit"),
    ("diff", "show_secrets", "Markdown: show Secret values"),
    (
        "diff",
        "kubectl",
        "Read the directories `kubectl diff` passes",
    ),
    ("render", "all", "Every kustomization under PATHS (or .)"),
    (
        "render",
        "affected",
        "PATHS are changed files: render their readers",
    ),
    (
        "render",
        "root",
        "With --affected: where to look for kustomizations",
    ),
    ("render", "check", "Compare with OUTDIR; write nothing"),
    (
        "from-crds",
        "check",
        "Exit 1 when FILE is stale; write nothing",
    ),
    (
        "merge3",
        "original",
        "The upstream package as you copied it",
    ),
    ("apply", "dry_run", "Required: kbuild applies nothing"),
];

/// The first clause of `help`, at most [`SUMMARY_WIDTH`] characters, cut at a word.
fn summary(help: &str) -> String {
    let mut end = help.len();
    for stop in [". ", "; ", " (", ", e.g.", " — "] {
        if let Some(at) = help.find(stop) {
            end = end.min(at);
        }
    }
    let first = help[..end].trim_end_matches('.');
    if first.chars().count() <= SUMMARY_WIDTH {
        return first.to_string();
    }
    let mut out = String::new();
    for word in first.split(' ') {
        if out.chars().count() + word.chars().count() + 1 > SUMMARY_WIDTH - 2 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.trim_end_matches([',', ':']).to_string() + " …"
}

/// The examples of a command, by its path (`kbuild diff`, `kbuild edit set`).
fn examples(path: &str) -> Option<&'static str> {
    Some(match path {
        "kbuild" | "kbuild build" => {
            "  kbuild overlays/prod                        # print the build (as `kustomize build`)
  kbuild build overlays/prod -o prod.yaml     # write it, atomically
  kbuild build overlays/prod -o out/          # one file per resource, named as kustomize names them
  kbuild build . --enable-helm                # inflate helmCharts with helm on PATH
  kbuild build . --enable-alpha-plugins --enable-exec   # run exec KRM functions (KSOPS)
  kbuild build . --kustomize-version v5.5.0   # as kustomize v5.5.0 (kubectl v1.32) prints it
  kbuild build overlays/prod --strict         # fail on warnings (no-op entries), for CI
  kbuild build 'https://github.com/org/repo//deploy/prod?ref=v1.2.0'   # a remote kustomization"
        }
        "kbuild diff" => {
            "  kbuild diff base overlays/staging           # what the overlay changes, resource by resource
  kbuild diff --stat rendered/prod.yaml overlays/prod   # a saved render against a build
  kubectl get deploy -o yaml | kbuild diff - overlays/prod --ignore-field status
  kbuild diff --ref main                      # every kustomization a change affects, against main
  kbuild diff --ref main --output markdown    # as a pull-request comment
  kbuild diff --kustomize-version v5.5.0 --to-kustomize-version v5.8.1 overlays/prod
  KUBECTL_EXTERNAL_DIFF=\"kbuild diff --kubectl\" kubectl diff -k overlays/prod"
        }
        "kbuild render" => {
            "  kbuild render --all --out rendered          # every kustomization under ., one file each
  kbuild render overlays/prod overlays/staging --out rendered
  kbuild render --all --check --out rendered  # exit 1 when a committed render is stale
  kbuild render --affected --check --out rendered base/deploy.yaml   # what pre-commit runs"
        }
        "kbuild deps" => {
            "  kbuild deps overlays/prod                   # the files it reads, then its remote inputs
  kbuild deps overlays/prod --offline         # remote refs from the clone cache only"
        }
        "kbuild merge3" => {
            "  kbuild merge3 --original v1/ --updated v2/ --dest ours/ --in-place
  kbuild merge3 --original old.yaml --updated new.yaml --dest mine.yaml -o merged.yaml"
        }
        "kbuild apply" => {
            "  kubectl get deploy,svc -o yaml > live.yaml
  kbuild apply --dry-run --live live.yaml overlays/prod          # the objects after the apply
  kbuild apply --dry-run --live live.yaml overlays/prod --show patch
  kbuild apply --dry-run --live live.yaml overlays/prod --prune -l app=shop"
        }
        "kbuild openapi" | "kbuild openapi from-crds" => {
            "  kbuild openapi from-crds crds/ -o overlays/prod/openapi.json   # then `openapi: path: openapi.json`
  kbuild openapi from-crds overlays/prod -o overlays/prod/openapi.json --check"
        }
        "kbuild edit" => {
            "  kbuild edit set image app=registry.example.com/app:1.5.0
  kbuild edit set namespace prod
  kbuild edit add resource '*.yaml'
  kbuild edit remove resource old.yaml
  kbuild edit --dry-run set replicas web=3     # print the change as a diff, write nothing"
        }
        "kbuild edit set" => {
            "  kbuild edit set image app=registry.example.com/app:1.5.0
  kbuild edit set nameprefix -- p-
  kbuild edit set replicas web=3
  kbuild edit set label team:web"
        }
        "kbuild edit add" => {
            "  kbuild edit add resource '*.yaml'
  kbuild edit add label --without-selector --include-templates env:prod
  kbuild edit add patch --path scale.yaml --kind Deployment --name web
  kbuild edit add configmap settings --from-literal LOG_LEVEL=info"
        }
        "kbuild edit remove" => {
            "  kbuild edit remove resource old.yaml
  kbuild edit remove label team,env"
        }
        "kbuild create" => {
            "  kbuild create --resources deploy.yaml,svc.yaml --namespace shop
  kbuild create --autodetect --recursive"
        }
        "kbuild localize" => {
            "  kbuild localize overlays/prod --scope .      # copy with remote bases into localized-prod
  kbuild localize 'https://github.com/org/repo//deploy?ref=v1' vendor/deploy
  kbuild localize overlays/prod out --no-verify   # skip building both to compare"
        }
        "kbuild cache" => {
            "  kbuild cache list                           # URL, commit, refs, size and path of each checkout
  kbuild cache clean"
        }
        "kbuild version" => {
            "  kbuild version                              # v5.8.1, then kbuild's own version
  kbuild version --short                      # what Argo CD parses
  kbuild version -o json"
        }
        "kbuild completions" => {
            "  kbuild completions bash > ~/.local/share/bash-completion/completions/kbuild
  kbuild completions zsh > \"${fpath[1]}/_kbuild\""
        }
        "kbuild man" => {
            "  kbuild man | man -l -
  kbuild man --out ~/.local/share/man/man1"
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_is_the_first_clause_cut_at_a_word() {
        assert_eq!(summary("Print help"), "Print help");
        assert_eq!(
            summary("The helm executable (a bare name is looked up on PATH)"),
            "The helm executable"
        );
        let long = summary("Whether files outside a kustomization's directory may be read");
        assert!(
            long.ends_with(" …") && long.chars().count() <= SUMMARY_WIDTH,
            "{long}"
        );
    }
}
