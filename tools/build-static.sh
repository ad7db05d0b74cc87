#!/usr/bin/env bash
# A static Linux binary of kbuild, for container images (FROM scratch, Alpine, distroless):
# no dynamic dependencies, so it runs without glibc, a dynamic loader or /etc/ssl (https is
# then verified with the Mozilla roots built in; SSL_CERT_FILE or SSL_CERT_DIR name others).
#
#   tools/build-static.sh [--profile PROFILE] [--target TRIPLE]
#
# Builds with musl (x86_64-unknown-linux-musl on x86_64, aarch64-unknown-linux-musl on
# aarch64), linked statically as Rust's musl targets are by default; the C code of the
# dependencies (ring, mimalloc) is compiled with musl-gcc (Debian/Ubuntu: apt-get install
# musl-tools) unless CC_<target> is set (e.g. `zig cc -target x86_64-linux-musl`). The
# profile is `release` unless given (`dist` for published binaries). The last line printed
# is the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
target="$(uname -m)-unknown-linux-musl"
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "build-static.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  echo "== rustup target add $target" >&2
  rustup target add "$target" >&2
fi
cc_var="CC_$(echo "$target" | tr - _)"
if [ -z "${!cc_var:-}" ]; then
  command -v musl-gcc >/dev/null || {
    echo "build-static.sh: musl-gcc not found (apt-get install musl-tools), or set $cc_var" >&2
    exit 1
  }
  export "$cc_var=musl-gcc"
fi

cargo build --locked --profile "$profile" --target "$target" --bin kbuild >&2

dir=$profile
[ "$profile" = dev ] && dir=debug
bin="${CARGO_TARGET_DIR:-target}/$target/$dir/kbuild"
# No program interpreter and no needed libraries: what "static" means here.
if readelf -l "$bin" 2>/dev/null | grep -q 'INTERP' || readelf -d "$bin" 2>/dev/null | grep -q 'NEEDED'; then
  echo "build-static.sh: $bin is not static:" >&2
  readelf -d "$bin" | grep NEEDED >&2 || true
  exit 1
fi
echo "$(cd "$(dirname "$bin")" && pwd)/kbuild"
