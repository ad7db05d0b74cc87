"""kbuild's PEP 517 build backend: maturin, except for pre-commit.

pre-commit installs a `language: python` hook repository with `pip install .` in its clone
of the repository, so with maturin alone every hook installation compiles kbuild (a Rust
toolchain, minutes of CPU). ruff avoids this with a second repository (ruff-pre-commit)
whose package only depends on the ruff wheel; kbuild keeps its hooks in this repository,
and this backend does the same thing in place: when the source tree is a clone inside
pre-commit's store, the wheel is the published `kbuild` wheel of this version (pip
download: the index, or PIP_FIND_LINKS / PIP_NO_INDEX as pip is configured), and nothing
is compiled. Anywhere else, or with KBUILD_FROM_SOURCE=1, or when no such wheel can be
found, maturin builds kbuild from this source as usual. The `maturin` command line
(`maturin build`, `maturin develop`) does not go through this file.

No prepare_metadata_for_build_wheel hook: pip then takes the metadata from the wheel, so
a downloaded wheel is never described by metadata computed from the source.
"""

import os
import re
import subprocess
import sys

MATURIN = "maturin>=1.9,<2"


def _version():
    """The version in Cargo.toml's [package] table (the wheel's version)."""
    with open("Cargo.toml", encoding="utf-8") as f:
        text = f.read()
    package = text.split("[package]", 1)[1].split("\n[", 1)[0]
    m = re.search(r'^version\s*=\s*"([^"]+)"', package, re.M)
    if not m:
        raise RuntimeError("no version in Cargo.toml's [package] table")
    return m.group(1)


def _in_pre_commit_store():
    """Whether the current directory is one of pre-commit's clones: a `repo…` directory
    beside pre-commit's database (db.db) in its store."""
    here = os.path.abspath(os.getcwd())
    parent = os.path.dirname(here)
    return os.path.basename(here).startswith("repo") and os.path.isfile(
        os.path.join(parent, "db.db")
    )


def _use_published_wheel():
    return os.environ.get("KBUILD_FROM_SOURCE", "") in ("", "0") and _in_pre_commit_store()


def _download(wheel_directory):
    """The published wheel of this version in wheel_directory; its file name, or None."""
    before = set(os.listdir(wheel_directory))
    spec = "kbuild==" + _version()
    # The pip of the environment being installed into, not pip's isolated build
    # environment (whose PYTHONPATH hides that environment's packages, pip among them);
    # pip's own settings (PIP_INDEX_URL, PIP_FIND_LINKS, PIP_NO_INDEX, ...) pass through.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE")}
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         "--dest", wheel_directory, spec],
        stdout=sys.stderr,
        env=env,
    )
    new = [f for f in set(os.listdir(wheel_directory)) - before if f.endswith(".whl")]
    if result.returncode != 0 or len(new) != 1:
        print("kbuild: no published wheel for " + spec + "; compiling with maturin",
              file=sys.stderr)
        return None
    print("kbuild: installing the published wheel " + new[0] + " (nothing compiled)",
          file=sys.stderr)
    return new[0]


def get_requires_for_build_wheel(config_settings=None):
    # maturin only when it will be used: a pre-commit install can then run offline with
    # nothing but the kbuild wheel to hand.
    return [] if _use_published_wheel() else [MATURIN]


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if _use_published_wheel():
        name = _download(wheel_directory)
        if name is not None:
            return name
        # maturin was not asked for (get_requires_for_build_wheel): bring it in now, into
        # a directory of its own (pip's isolated build environment is not writable).
        import tempfile

        target = tempfile.mkdtemp(prefix="kbuild-maturin-")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONNOUSERSITE")}
        subprocess.run([sys.executable, "-m", "pip", "install", "--target", target, MATURIN],
                       check=True, stdout=sys.stderr, env=env)
        sys.path.insert(0, target)
        os.environ["PATH"] = os.path.join(target, "bin") + os.pathsep + os.environ["PATH"]
    import maturin

    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def get_requires_for_build_sdist(config_settings=None):
    return [MATURIN]


def build_sdist(sdist_directory, config_settings=None):
    import maturin

    return maturin.build_sdist(sdist_directory, config_settings)


def get_requires_for_build_editable(config_settings=None):
    return [MATURIN]


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin

    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)
