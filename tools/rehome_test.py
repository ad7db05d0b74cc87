#!/usr/bin/env python3
"""Makes a test file written as its own test crate (`mod common;`, `#[test]` functions) a
module of the one integration-test binary, tests/integration.rs
(docs/src/internals/testing.md):

- `mod common;` becomes `use crate::common;`;
- each `#[test]` (with its `#[ignore = ...]`, and a `#[cfg(...)]` right above it) is dropped
  and the function listed in a `tests! { ... }` block after the file's imports;
- its insta snapshots `tests/snapshots/<file>__*.snap` are renamed
  `tests/snapshots/integration__<file>__*.snap` (with `git mv`).

It then prints the line to add to `suites!` in tests/integration.rs. A file with its own
`fn main` (a `harness = false` file) is refused: give it a `pub(crate) fn tests()` by hand
(see `common::needing`).

Usage: tools/rehome_test.py tests/FILE.rs...
"""
import pathlib
import re
import subprocess
import sys


def rehome(path: pathlib.Path) -> None:
    lines = path.read_text().split("\n")
    if any(re.match(r"fn main\(\)", line) for line in lines):
        sys.exit(f"{path}: has its own fn main: write its `pub(crate) fn tests()` by hand")
    out, entries, pending = [], [], None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped == "#[test]":
            above = out[-1].strip() if out else ""
            cfg = above if above.startswith("#[cfg(") else None
            if cfg:
                out.pop()
            pending = {"ignore": None, "cfg": cfg}
            continue
        if pending is not None:
            ignore = re.match(r'#\[ignore(?: = (".*"))?\]$', stripped)
            if ignore:
                pending["ignore"] = ignore.group(1) or '"ignored"'
                continue
            if stripped.startswith("#[should_panic"):
                sys.exit(f"{path}:{number}: #[should_panic] has no equivalent: catch the panic in the test")
            function = re.match(r"(?:pub(?:\(crate\))? )?fn (\w+)\(\)", stripped)
            if function:
                entry = function.group(1)
                if pending["ignore"]:
                    entry = f"#[ignore = {pending['ignore']}] {entry}"
                if pending["cfg"]:
                    entry = f"{pending['cfg']} {entry}"
                    out.append(line.replace(stripped, pending["cfg"]))
                entries.append(entry)
                pending = None
            elif not (stripped.startswith("#[") or stripped.startswith("//")):
                sys.exit(f"{path}:{number}: expected a test function after #[test]")
        out.append("use crate::common;" if line == "mod common;" else line)
    if entries:
        header_end = 0
        for index, line in enumerate(out):
            if re.match(r"(use |mod |pub use )", line):
                header_end = index
                # a `use` spanning lines ends at its `};`
                while not out[header_end].rstrip().endswith(";"):
                    header_end += 1
            elif line.startswith(("fn ", "pub ", "const ", "static ", "struct ", "enum ", "impl ", "#[", "///")):
                break
        block = ["", "tests! {"] + [f"    {e}," for e in entries] + ["}"]
        out[header_end + 1 : header_end + 1] = block
    path.write_text("\n".join(out))
    stem = path.stem
    for snap in sorted(path.parent.glob(f"snapshots/{stem}__*.snap")):
        target = snap.with_name(f"integration__{snap.name}")
        subprocess.run(["git", "mv", str(snap), str(target)], check=True)
    print(f"{path}: {len(entries)} tests; add `{stem},` to suites! in tests/integration.rs")


for argument in sys.argv[1:]:
    rehome(pathlib.Path(argument))
