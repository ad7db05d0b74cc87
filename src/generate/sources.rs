//! Key/value pairs from a generator's sources: `envs`, `literals` and
//! `files`, read in that order (the order in which kustomize reports errors
//! and repeated keys).

use super::envfile;
use crate::error::Error;
use crate::kustomization::GeneratorArgs;

/// One data entry; the value may be binary (file contents).
pub(super) type Pair = (String, Vec<u8>);

/// Reads all sources of a generator, rejecting repeated keys; pushes a warning for each
/// env file line without `=`.
///
/// kustomize does not validate key names (`a b`, `..x`, `é` all pass), so
/// neither does kbuild.
pub(super) fn load(
    args: &GeneratorArgs,
    read_file: &mut dyn FnMut(&str) -> Result<Vec<u8>, Error>,
    warnings: &mut Vec<String>,
) -> Result<Vec<Pair>, Error> {
    let mut pairs = Vec::new();
    // The deprecated single `env` comes after `envs`, as kustomize appends it.
    let env_files = args
        .envs
        .iter()
        .chain((!args.env.is_empty()).then_some(&args.env));
    for path in env_files {
        let content = read_file(path)?;
        // An http(s) URL's credentials are not printed.
        let shown = crate::remote::redact(path);
        let parsed =
            envfile::parse(&content).map_err(|e| e.context(format!("env file {shown}")))?;
        for line in parsed.without_equals {
            warnings.push(format!(
                "env file {shown}: line {line} has no '=': its key gets an empty value, as in kustomize (write KEY=VALUE, or KEY= for an empty value on purpose)"
            ));
        }
        pairs.extend(parsed.pairs.into_iter().map(|(k, v)| (k, v.into_bytes())));
    }
    for literal in &args.literals {
        let (key, value) = parse_literal(literal)?;
        pairs.push((key.to_string(), value.as_bytes().to_vec()));
    }
    for source in &args.files {
        let (key, path) = parse_file_source(source)?;
        let content = read_file(path)?;
        pairs.push((key, content));
    }
    reject_repeated_keys(&pairs)?;
    Ok(pairs)
}

fn reject_repeated_keys(pairs: &[Pair]) -> Result<(), Error> {
    let mut seen = std::collections::HashSet::new();
    for (key, _) in pairs {
        if !seen.insert(key.as_str()) {
            return Err(Error::invalid_config(format!(
                "the key {key:?} appears more than once in its sources"
            )));
        }
    }
    Ok(())
}

/// Splits `key=value` at the first `=`. The key must not be empty; the value
/// may be, and loses one pair of surrounding quotes (`"x"` or `'x'`).
pub(super) fn parse_literal(source: &str) -> Result<(&str, &str), Error> {
    match source.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key, remove_quotes(value))),
        _ => Err(Error::invalid_config(format!(
            "invalid literal source {source:?}, expected key=value"
        ))),
    }
}

/// Strips one pair of matching surrounding quotes, and nothing else: `'x"`,
/// `"` and `x"` stay as they are.
fn remove_quotes(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

/// Parses a `files` entry: `path` (the key is the file's base name) or
/// `key=path`. Neither part may be empty or contain another `=`.
pub(super) fn parse_file_source(source: &str) -> Result<(String, &str), Error> {
    // Shown without an http(s) URL's credentials.
    let shown = crate::remote::redact;
    match source.matches('=').count() {
        0 => Ok((base_name(source).to_string(), source)),
        1 => match source.split_once('=') {
            Some(("", path)) => Err(Error::invalid_config(format!(
                "missing key name for file path {:?} in source {:?}",
                shown(path),
                shown(source)
            ))),
            Some((key, "")) => Err(Error::invalid_config(format!(
                "missing file path for key name {key:?} in source {:?}",
                shown(source)
            ))),
            Some((key, path)) => Ok((key.to_string(), path)),
            None => Err(Error::invalid_config(format!(
                "invalid file source {:?}",
                shown(source)
            ))),
        },
        _ => Err(Error::invalid_config(format!(
            "source {:?} key name or file path contains '='",
            shown(source)
        ))),
    }
}

/// The last element of a slash-separated path, as Go's `path.Base`:
/// trailing slashes are ignored, `""` gives `.` and `/` gives `/`.
fn base_name(path: &str) -> &str {
    if path.is_empty() {
        return ".";
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kubectl kustomize: `a="x"` → `x`, `b='y'` → `y`, `c="z'` kept, `d="`
    /// kept, `e= "sp" ` kept, `f=""` → empty, `g=x=y` → `x=y`, `k=` → empty,
    /// `TEST='` kept (TestDataIsSingleQuote).
    #[test]
    fn literals() {
        let cases = [
            ("a=\"x\"", ("a", "x")),
            ("b='y'", ("b", "y")),
            ("c=\"z'", ("c", "\"z'")),
            ("d=\"", ("d", "\"")),
            ("e= \"sp\" ", ("e", " \"sp\" ")),
            ("f=\"\"", ("f", "")),
            ("g=x=y", ("g", "x=y")),
            ("k=", ("k", "")),
            ("TEST='", ("TEST", "'")),
            ("TEST=this is a 'test'", ("TEST", "this is a 'test'")),
            ("a b=1", ("a b", "1")),
        ];
        for (src, want) in cases {
            assert_eq!(parse_literal(src).expect("valid literal"), want, "{src}");
        }
    }

    /// kubectl kustomize: "invalid literal source novalue, expected key=value",
    /// and the same for `=v`.
    #[test]
    fn bad_literals() {
        for src in ["novalue", "=v", "="] {
            let err = parse_literal(src).expect_err(src);
            assert_eq!(
                err.to_string(),
                format!("invalid literal source {src:?}, expected key=value")
            );
        }
    }

    /// kubectl kustomize: `sub/g.txt` → key `g.txt`, `k=f.txt` → `k`,
    /// `./f.txt` → `f.txt`; `sub/` → key `sub` (then fails to read).
    #[test]
    fn file_sources() {
        let ok = |s| parse_file_source(s).expect("valid source");
        assert_eq!(ok("sub/g.txt"), ("g.txt".to_string(), "sub/g.txt"));
        assert_eq!(ok("k=f.txt"), ("k".to_string(), "f.txt"));
        assert_eq!(ok("./f.txt"), ("f.txt".to_string(), "./f.txt"));
        assert_eq!(ok("sub/"), ("sub".to_string(), "sub/"));
        assert_eq!(ok("/"), ("/".to_string(), "/"));
    }

    /// kubectl kustomize messages: `missing key name for file path "f.txt"
    /// in source "=f.txt"`, `missing file path for key name "k" in source
    /// "k="`, `source "a=b=c" key name or file path contains '='`, and for
    /// `=`: `missing key name for file path "" in source "="`.
    #[test]
    fn bad_file_sources() {
        let err = |s| parse_file_source(s).expect_err(s).to_string();
        assert_eq!(
            err("=f.txt"),
            r#"missing key name for file path "f.txt" in source "=f.txt""#
        );
        assert_eq!(
            err("k="),
            r#"missing file path for key name "k" in source "k=""#
        );
        assert_eq!(
            err("a=b=c"),
            r#"source "a=b=c" key name or file path contains '='"#
        );
        assert_eq!(
            err("="),
            r#"missing key name for file path "" in source "=""#
        );
    }

    fn files(map: &[(&str, &[u8])]) -> impl FnMut(&str) -> Result<Vec<u8>, Error> {
        let map: Vec<(String, Vec<u8>)> = map
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_vec()))
            .collect();
        move |p: &str| {
            map.iter()
                .find(|(k, _)| k == p)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Error::msg(format!("{p}: no such file")))
        }
    }

    /// kubectl kustomize (TestGeneratorBasics): envs, then the deprecated
    /// `env`, then literals, then files.
    #[test]
    fn order_of_sources() {
        let args = GeneratorArgs {
            name: "bob".into(),
            literals: vec!["fruit=apple".into()],
            envs: vec!["foo.env".into()],
            env: "bar.env".into(),
            files: vec!["passphrase=phrase.dat".into()],
            ..Default::default()
        };
        let mut read = files(&[
            ("foo.env", b"MOUNTAIN=everest\n"),
            ("bar.env", b"BIRD=falcon\n"),
            ("phrase.dat", b"x\n"),
        ]);
        let keys: Vec<String> = load(&args, &mut read, &mut Vec::new())
            .expect("loads")
            .into_iter()
            .map(|p| p.0)
            .collect();
        assert_eq!(keys, ["MOUNTAIN", "BIRD", "fruit", "passphrase"]);
    }

    /// kubectl kustomize: "configmap q illegally repeats the key `a`" for
    /// an env file `a=0`, a literal `a=1` and a file `a=f.txt`.
    #[test]
    fn repeated_keys() {
        let args = GeneratorArgs {
            name: "q".into(),
            literals: vec!["a=1".into()],
            envs: vec!["e.env".into()],
            files: vec!["a=f.txt".into()],
            ..Default::default()
        };
        let mut read = files(&[("e.env", b"a=0\n"), ("f.txt", b"x\n")]);
        let err = load(&args, &mut read, &mut Vec::new()).expect_err("repeated key");
        assert_eq!(
            err.to_string(),
            r#"the key "a" appears more than once in its sources"#
        );
    }

    #[test]
    fn read_errors_pass_through() {
        let args = GeneratorArgs {
            name: "q".into(),
            files: vec!["missing.txt".into()],
            ..Default::default()
        };
        let err = load(&args, &mut files(&[]), &mut Vec::new()).expect_err("missing file");
        assert_eq!(err.to_string(), "missing.txt: no such file");
        let args = GeneratorArgs {
            name: "q".into(),
            envs: vec!["bad.env".into()],
            ..Default::default()
        };
        let err = load(
            &args,
            &mut files(&[("bad.env", b"B=\xff")]),
            &mut Vec::new(),
        )
        .expect_err("bad env");
        assert_eq!(
            err.to_string(),
            "env file bad.env: line 1 is not valid UTF-8"
        );
    }
}
