//! helm's command lines built from an arbitrary kustomization's `helmCharts`: whatever the
//! entry holds, no argument that came from it can be read by helm as an option. Each
//! argument is the subcommand, a switch kbuild writes, `--flag=value` for a flag kbuild
//! writes (a `--values` path without the commas helm would split it at), the `--` that
//! ends helm's options, or a positional after it; a release name is one helm accepts.
//! Input: a kustomization file (`helmCharts`, `helmGlobals`, `namespace`, the deprecated
//! `helmChartInflationGenerator`); its values files exist, as `configure` reads them.

#![no_main]

use kbuild::helm::HelmOptions;
use kbuild::helm::args::{ChartArgs, configure};
use kbuild::kustomization::Kustomization;
use kbuild::kustomization::helm::charts_and_globals;
use kbuild::load::{Files, LoadRestrictor, MemFs};
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::Arc;

const ROOT: &str = "/k";

const SWITCHES: [&str; 9] = [
    "--generate-name",
    "--include-crds",
    "--skip-tests",
    "--no-hooks",
    "--debug",
    "--devel",
    "--untar",
    "template",
    "pull",
];

const VALUE_FLAGS: [&str; 8] = [
    "--namespace=",
    "--name-template=",
    "--values=",
    "--api-versions=",
    "--kube-version=",
    "--untardir=",
    "--repo=",
    "--version=",
];

/// helm's release name pattern, at most 53 bytes.
fn helm_release_name(name: &str) -> bool {
    let label = |p: &str| {
        let b = p.as_bytes();
        let ok = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        !b.is_empty() && ok(&b[0]) && ok(&b[b.len() - 1]) && b.iter().all(|c| ok(c) || *c == b'-')
    };
    name.len() <= 53 && name.split('.').all(label)
}

fn check(argv: &[String], positionals: std::ops::RangeInclusive<usize>, chart: &ChartArgs) {
    assert!(argv[0] == "template" || argv[0] == "pull", "{argv:?}");
    let dash = argv.iter().position(|a| a == "--").expect("no -- in argv");
    for a in &argv[1..dash] {
        if SWITCHES.contains(&a.as_str()) {
            continue;
        }
        let flag = VALUE_FLAGS
            .iter()
            .find(|f| a.starts_with(*f))
            .unwrap_or_else(|| panic!("{a:?} is no flag kbuild writes: {argv:?}"));
        if *flag == "--values=" {
            assert!(!a.contains([',', '"']), "helm would split {a:?}");
        }
        // A value never starts with '-' (helm would take it as it is; kbuild refuses such
        // values anyway).
        assert!(!a[flag.len()..].starts_with('-') || *flag == "--untardir=", "{a:?}");
    }
    let after = &argv[dash + 1..];
    assert!(positionals.contains(&after.len()), "{argv:?}");
    for p in after {
        assert!(!p.starts_with('-'), "positional {p:?} looks like an option: {argv:?}");
    }
    let release = &chart.chart.release_name;
    if argv[0] == "template" && !release.is_empty() {
        assert_eq!(&after[0], release);
        assert!(helm_release_name(release), "{release:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(node) = kbuild::yaml::parse::parse_document(text, "kustomization.yaml") else {
        return;
    };
    let Ok(k) = kbuild::yaml::de::from_node::<Kustomization>(&node) else { return };
    let (charts, globals) = charts_and_globals(
        &k.helm_charts,
        k.helm_globals.as_ref(),
        &k.helm_chart_inflation_generator,
    );
    // The files the entries name exist, so that configuration gets as far as it can.
    let mut fs = MemFs::new().file(format!("{ROOT}/kustomization.yaml"), "");
    for c in &charts {
        for f in c.additional_values_files.iter().chain([&c.values_file]) {
            if !f.is_empty() && !f.contains('\0') {
                fs = fs.file(kbuild::load::join_clean(Path::new(ROOT), f), "a: 1\n");
            }
        }
    }
    let files = Files::new(Arc::new(fs), LoadRestrictor::None);
    let Ok(ldr) = files.root(Path::new(ROOT)) else { return };
    let namespace = k.namespace.as_deref().filter(|n| !n.is_empty());
    for chart in &charts {
        let Ok(args) = configure(chart, &globals, namespace, &ldr, &HelmOptions::default())
        else {
            continue;
        };
        let template = args.template_args(&args.local_chart_dir(), Path::new("/t/v.yaml"));
        check(&template, 1..=2, &args);
        if !args.chart.repo.is_empty() {
            check(&args.pull_args(Path::new("/u")), 1..=1, &args);
        }
    }
});
