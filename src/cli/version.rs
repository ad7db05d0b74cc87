//! `kbuild version`: kustomize's `version` command, answering for the kustomize release
//! kbuild reproduces (`--kustomize-version`), so that tools which ask the binary for its
//! kustomize version (Argo CD runs `kustomize version --short`) get the release whose
//! output they will see.
//!
//! kustomize prints its provenance: the semver alone by default, Go's `%v` of the
//! provenance struct with `--short`, the struct as YAML or JSON with `-o`.

use super::{VersionFlag, go_bool, print_stdout};
use kbuild::KustomizeVersion;
use kbuild::yaml::{Node, emit};

/// Arguments of `kbuild version`.
#[derive(clap::Args, Debug)]
pub(crate) struct VersionArgs {
    /// Print kustomize's short form, `{kustomize/v5.8.1  <build date>   }` (what Argo CD
    /// reads). Deprecated in kustomize.
    #[arg(long, value_name = "BOOL", value_parser = go_bool)]
    short: Option<bool>,
    /// yaml or json: the version, build date, OS and architecture, and kbuild's version.
    #[arg(short, long, value_name = "yaml|json")]
    output: Option<String>,
    #[command(flatten)]
    version: VersionFlag,
}

/// `kbuild version`: exit 0, or 1 when the flags are wrong.
pub(crate) fn run_version(args: &VersionArgs) -> super::CommandResult {
    let text = version_text(args).map_err(kbuild::Error::msg)?;
    print_stdout(&text)?;
    Ok(super::Status::Success)
}

fn version_text(args: &VersionArgs) -> Result<String, String> {
    if args.short.is_some() {
        // cobra's notice for a deprecated flag, printed whenever it is given.
        eprintln!("Flag --short has been deprecated, and will be removed in the future.");
    }
    let short = args.short.unwrap_or(false);
    let output = args.output.as_deref().unwrap_or_default();
    if short && !output.is_empty() {
        return Err("--short and --output are mutually exclusive".into());
    }
    let p = Provenance::of(args.version.kustomize_version);
    match output {
        "" if short => Ok(format!("{}\n", p.short())),
        // kustomize prints the semver alone; kbuild adds a line saying what it is.
        "" => Ok(format!(
            "{}\nkbuild {} (reproduces kustomize {})\n",
            p.kustomize,
            env!("CARGO_PKG_VERSION"),
            p.kustomize
        )),
        // kustomize prints the marshalled text with Println: the YAML ends with a blank line.
        "yaml" => Ok(format!("{}\n", p.yaml())),
        "json" => Ok(format!("{}\n", p.json())),
        // kustomize prints nothing for any other value (and exits 0); an error says more.
        other => Err(format!(
            "--output {other:?}: kbuild version prints 'yaml' or 'json'"
        )),
    }
}

/// kustomize's `provenance.Provenance`, with what kbuild can honestly fill in.
struct Provenance {
    kustomize: KustomizeVersion,
}

impl Provenance {
    fn of(kustomize: KustomizeVersion) -> Provenance {
        Provenance { kustomize }
    }

    /// `kustomize/v5.8.1`, as kustomize's release builds set it.
    fn version(&self) -> String {
        format!("kustomize/{}", self.kustomize)
    }

    /// `Provenance.Short()`: Go's `%v` of a provenance holding only the version and the
    /// build date. `%v` writes a struct's fields in order, separated by one space, in
    /// braces; the other four (git commit, OS, architecture, Go version) are empty
    /// there, hence the double space and the three spaces before the brace.
    fn short(&self) -> String {
        let fields = [
            self.version().as_str(),
            "",
            self.kustomize.release_date(),
            "",
            "",
            "",
        ]
        .join(" ");
        format!("{{{fields}}}")
    }

    /// The fields, in the struct's order, as `-o yaml|json` print them. kustomize omits
    /// empty ones; kbuild has no git commit or Go version of kustomize's to report, so
    /// leaves those out, and adds its own version.
    fn fields(&self) -> [(&'static str, String); 5] {
        [
            ("version", self.version()),
            ("buildDate", self.kustomize.release_date().to_string()),
            ("goOs", go_os().to_string()),
            ("goArch", go_arch().to_string()),
            ("kbuildVersion", env!("CARGO_PKG_VERSION").to_string()),
        ]
    }

    /// As go-yaml marshals the struct: fields in order, each value quoted where a YAML
    /// reader would take it for something other than a string (the build date is a
    /// timestamp, so it is double-quoted). Written one field at a time through kbuild's
    /// emitter, which would otherwise sort the keys.
    fn yaml(&self) -> String {
        let mut out = String::new();
        for (key, value) in self.fields() {
            let mut map = kbuild::yaml::Map::new();
            map.insert(key, Node::text(value));
            emit::emit_document(&Node::Map(map), &mut out);
        }
        out
    }

    /// As Go's `json.MarshalIndent(p, "", "  ")`: fields in order, two-space indent.
    fn json(&self) -> String {
        let object: serde_json::Map<String, serde_json::Value> = self
            .fields()
            .into_iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::String(v)))
            .collect();
        serde_json::to_string_pretty(&object).unwrap_or_default()
    }
}

/// Go's name for the operating system (`runtime.GOOS`).
fn go_os() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    }
}

/// Go's name for the architecture (`runtime.GOARCH`).
fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        "loongarch64" => "loong64",
        "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
        "powerpc64" => "ppc64",
        "mips64" if cfg!(target_endian = "little") => "mips64le",
        "mips" if cfg!(target_endian = "little") => "mipsle",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_is_go_percent_v_of_version_and_date() {
        let p = Provenance::of(KustomizeVersion::V5_8_1);
        assert_eq!(p.short(), "{kustomize/v5.8.1  2026-02-09T16:11:22Z   }");
        let p = Provenance::of(KustomizeVersion::V5_5_0);
        assert_eq!(p.short(), "{kustomize/v5.5.0  2024-10-09T13:08:22Z   }");
    }

    #[test]
    fn yaml_keeps_field_order_and_quotes_the_date() {
        let yaml = Provenance::of(KustomizeVersion::V5_8_1).yaml();
        let lines: Vec<&str> = yaml.lines().collect();
        assert_eq!(lines[0], "version: kustomize/v5.8.1");
        assert_eq!(lines[1], "buildDate: \"2026-02-09T16:11:22Z\"");
        assert!(lines[2].starts_with("goOs: ") && lines[3].starts_with("goArch: "));
    }
}
