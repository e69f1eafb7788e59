#!/usr/bin/env bash
# Unpacks the headers a GPU machine without apt needs into <repo>/.deps (ignored by git):
# HIP 5.2 (libamdhip64-dev: the hip/ headers with HIP's CUDA backend) and nlohmann/json
# (nlohmann-json3-dev, with its CMake package). The device build then passes
# -DGCONV_DEPS_DIR=<repo>/.deps and the run carries .deps.
# Prefers the Debian packages (apt-get download + dpkg -x); without network it copies the
# installed packages' files instead.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
deps="${GCONV_DEPS_OUT:-$repo/.deps}"
packages=(libamdhip64-dev nlohmann-json3-dev)

mkdir -p "$deps"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for p in "${packages[@]}"; do
  if (cd "$work" && apt-get download -q "$p" >/dev/null 2>&1); then
    deb="$(ls "$work"/"${p}"_*.deb | head -1)"
    dpkg -x "$deb" "$deps"
    echo "bundle_deps: unpacked $(basename "$deb")"
  elif dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    # Regular files and links under /usr only; the package's folders are recreated by cp.
    dpkg -L "$p" | while read -r f; do
      if [ -f "$f" ] || [ -L "$f" ]; then cp -a --parents "$f" "$deps"; fi
    done
    echo "bundle_deps: copied the installed files of $p"
  else
    echo "bundle_deps: cannot get $p (no apt-get download, not installed)" >&2
    exit 1
  fi
done

# HIP's headers go to their own prefix: under usr/include they would sit in nlohmann_json's
# include folder and be found before the CUDA 13 patched copy in the build tree.
if [ -d "$deps/usr/include/hip" ]; then
  rm -rf "$deps/hip"
  mkdir -p "$deps/hip/include"
  mv "$deps/usr/include/hip" "$deps/hip/include/hip"
fi

# Only headers and CMake packages travel: the libraries and docs are of no use there and
# count against the carried size.
rm -rf "$deps/usr/share/doc" "$deps/usr/lib" "$deps/usr/share/lintian" "$deps/usr/bin"
mkdir -p "$deps/usr/share"
[ -d "$deps/usr/share/cmake/nlohmann_json" ] || { echo "bundle_deps: nlohmann_json CMake package missing" >&2; exit 1; }
[ -f "$deps/hip/include/hip/nvidia_detail/nvidia_hip_runtime_api.h" ] || { echo "bundle_deps: HIP CUDA backend headers missing" >&2; exit 1; }
echo "bundle_deps: $(du -sh "$deps" | cut -f1) in $deps"
