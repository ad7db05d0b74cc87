# Setup for the README's pre-commit sample (tests/readme.rs): a git repository of
# examples/web with its renders committed and kbuild's two hooks installed. The hooks are
# those of .pre-commit-hooks.yaml as a `repo: local` config with `language: system` (the
# kbuild under test is first on PATH), so the sample does not wait for `cargo install`;
# tests/precommit.rs runs the real `language: rust` hooks.
set -eu
hooks="$KBUILD_REPO/.pre-commit-hooks.yaml"
grep -q '^  name: kbuild check$' "$hooks"
grep -q '^  entry: kbuild render --affected$' "$hooks"
grep -q '^  name: kbuild render$' "$hooks"
grep -q '^  entry: kbuild render --affected --check$' "$hooks"
cat > .pre-commit-config.yaml <<'YAML'
repos:
  - repo: local
    hooks:
      - id: kbuild-check
        name: kbuild check
        entry: kbuild render --affected
        language: system
        require_serial: true
      - id: kbuild-render
        name: kbuild render
        entry: kbuild render --affected --check
        args: [--out, rendered]
        language: system
        require_serial: true
YAML
git init -q -b main .
git config user.name readme
git config user.email readme@example.com
kbuild render --all --out rendered 2>/dev/null
git add -A
git commit -qm "web app with renders"
pre-commit install >/dev/null
