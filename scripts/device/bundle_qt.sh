#!/usr/bin/env bash
# Packs what the GPU machine (no apt, no Qt) needs to build and run the Qt Test suites into
# <repo>/.qt (ignored by git): Debian 12's Qt 6 Core + Test libraries, their headers, Qt's CMake
# packages, moc and the tools Qt6CoreTools names, and the non-glibc libraries they load
# (ICU 72, glib, double-conversion, libb2, pcre2, zstd, libgomp, zlib). The tree is pruned to those
# modules and stored as one gzip tarball, .qt/qt6-bundle.tar.gz, because ICU's data alone is
# 31 MB unpacked and every carried byte counts against the 64 MiB of a device call.
# scripts/device/gpu_tests.sh unpacks it there; scripts/device/qt_env.sh sets the paths.
# Prefers the Debian packages (apt-get download + dpkg -x); without network it copies the
# installed packages' files (dpkg -L), as bundle_deps.sh does.
# Usage: scripts/device/bundle_qt.sh        (GCONV_QT_OUT overrides <repo>/.qt)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${GCONV_QT_OUT:-$repo/.qt}"
qt_packages=(libqt6core6 libqt6test6 qt6-base-dev qt6-base-dev-tools)
# What libQt6Core.so.6, libQt6Test.so.6 and moc load besides glibc, libstdc++ and libgcc
# (ldd on Debian 12). gpu_tests.sh uses a bundled one only where the machine lacks it.
dep_packages=(libicu72 libdouble-conversion3 libb2-1 libpcre2-16-0 libpcre2-8-0 libglib2.0-0
              libzstd1 libgomp1 zlib1g)
multiarch=x86_64-linux-gnu

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/stage"
mkdir -p "$stage" "$work/debs"

fetch() { # package -> unpacked into $stage, one manifest line
  local p=$1
  if (cd "$work/debs" && apt-get download -q "$p" >/dev/null 2>&1); then
    local deb
    deb="$(ls "$work"/debs/"${p}"_*.deb | head -1)"
    dpkg -x "$deb" "$stage"
    echo "$(basename "$deb")" >>"$work/manifest"
  elif dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    dpkg -L "$p" | while read -r f; do
      if [ -f "$f" ] || [ -L "$f" ]; then cp -a --parents "$f" "$stage"; fi
    done
    echo "$p $(dpkg-query -W -f='${Version}' "$p") (copied from the installed files)" >>"$work/manifest"
  else
    echo "bundle_qt: cannot get $p (no apt-get download, not installed)" >&2
    exit 1
  fi
}
for p in "${qt_packages[@]}" "${dep_packages[@]}"; do fetch "$p"; done

u="$stage/usr"
lib="$u/lib/$multiarch"
# Debian 12 keeps some libraries under /lib (merged /usr); fold them into usr/lib.
if [ -d "$stage/lib/$multiarch" ]; then
  mkdir -p "$lib"
  cp -a "$stage/lib/$multiarch/." "$lib/"
  rm -rf "$stage/lib"
fi

# CMake refuses an imported target whose file or include folder is missing: every path the
# kept modules' Targets files name that the packages provide must survive the pruning.
kept_modules=(Qt6 Qt6Core Qt6CoreTools Qt6Test Qt6HostInfo)
for m in "${kept_modules[@]}"; do cat "$lib/cmake/$m"/*Targets*.cmake 2>/dev/null || true; done |
  grep -o '\${_IMPORT_PREFIX}/[^";>]*' | sed "s|\${_IMPORT_PREFIX}|$u|" | sort -u |
  while read -r f; do if [ -e "$f" ]; then echo "$f"; fi; done >"$work/referenced"

# Prune to Core + Test. What stays is what find_package(Qt6 COMPONENTS Core Test) reads and
# checks for existence (Qt6CoreTools' imported executables included), what the compiler
# includes, and what the test executables load.
keep_only() { # dir, names to keep...
  local dir=$1; shift
  [ -d "$dir" ] || return 0
  local keep=" $* "
  for entry in "$dir"/*; do
    [[ "$keep" == *" $(basename "$entry") "* ]] || rm -rf "$entry"
  done
}
keep_only "$u" include lib bin
keep_only "$u/bin" qtpaths6
keep_only "$u/include/$multiarch/qt6" QtCore QtTest
keep_only "$lib/cmake" "${kept_modules[@]}"
keep_only "$lib/qt6" mkspecs
keep_only "$lib/qt6/mkspecs" linux-g++ common qconfig.pri qdevice.pri qmodule.pri
keep_only "$u/lib/qt6/libexec" moc rcc tracegen cmake_automoc_parser qlalr
keep_only "$u/lib/qt6/bin" qtpaths qtpaths6 androiddeployqt androidtestrunner
keep_only "$lib/metatypes" qt6core_none_metatypes.json qt6test_none_metatypes.json
rm -rf "$lib/pkgconfig" "$lib/gio" "$lib/glib-2.0"
# Qt6::Platform names mkspecs/linux-g++ as an include folder; qt6-base-dev does not ship it
# (an installed Qt has it from qmake's package), and CMake refuses a missing one.
mkdir -p "$lib/qt6/mkspecs/linux-g++"
# Libraries: Qt Core + Test stay where Qt's CMake packages point; the dependencies' run-time
# files (sonames and targets) go to usr/lib/gconv-qt-deps, so that gpu_tests.sh can take from
# there only what the machine lacks.
deps_dir="$u/lib/gconv-qt-deps"
mkdir -p "$deps_dir"
for f in "$lib"/*.so* "$lib"/*.a "$lib"/*.prl; do
  case "$(basename "$f")" in
    libQt6Core.so* | libQt6Test.so* | libQt6Core.prl | libQt6Test.prl) ;;
    libicudata.so.72* | libicuuc.so.72* | libicui18n.so.72* | libdouble-conversion.so.3* | \
    libb2.so.1* | libpcre2-16.so.0* | libpcre2-8.so.0* | libglib-2.0.so.0* | libzstd.so.1* | \
    libgomp.so.1* | libz.so.1*)
      mv "$f" "$deps_dir/" ;;
    *) rm -f "$f" ;;
  esac
done
# Qt6CoreTools checks that qmake exists; the suites never run it, so an empty stand-in will do
# (qt6-base-dev-tools does not ship it).
qmake="$u/bin/$multiarch-qmake6"
if grep -q "bin/$multiarch-qmake6" "$lib"/cmake/Qt6CoreTools/Qt6CoreToolsTargets-*.cmake &&
   [ ! -e "$qmake" ]; then
  printf '#!/bin/sh\necho "qmake is not part of the gconv Qt bundle" >&2\nexit 1\n' >"$qmake"
  chmod +x "$qmake"
fi

# Everything the suites need must be there.
for f in "$u/lib/qt6/bin/qtpaths" "$lib/cmake/Qt6/Qt6Config.cmake" "$lib/cmake/Qt6Core/Qt6CoreConfig.cmake" \
         "$lib/cmake/Qt6Test/Qt6TestConfig.cmake" "$u/lib/qt6/libexec/moc" \
         "$lib/libQt6Core.so.6" "$lib/libQt6Test.so.6" "$deps_dir/libicudata.so.72" \
         "$u/include/$multiarch/qt6/QtTest/QtTest" "$u/include/$multiarch/qt6/QtCore/QObject"; do
  [ -e "$f" ] || { echo "bundle_qt: $f missing after pruning" >&2; exit 1; }
done
absent="$(while read -r f; do [ -e "$f" ] || echo "$f"; done <"$work/referenced")"
[ -z "$absent" ] || { echo "bundle_qt: pruned away, but named by Qt's CMake packages:" $absent >&2; exit 1; }
# ldd with the bundle alone on the library path: nothing but glibc / libstdc++ / libgcc may
# come from elsewhere.
for f in "$lib/libQt6Core.so.6" "$lib/libQt6Test.so.6" "$u/lib/qt6/libexec/moc"; do
  outside="$(LD_LIBRARY_PATH="$lib:$deps_dir" ldd "$f" | awk '$3 ~ /^\// {print $3}' |
             grep -v -e "^$lib/" -e "^$deps_dir/" |
             grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so' || true)"
  [ -z "$outside" ] || { echo "bundle_qt: $(basename "$f") loads libraries outside the bundle: $outside" >&2; exit 1; }
done

cp "$work/manifest" "$stage/BUNDLE_MANIFEST"
mkdir -p "$out"
rm -f "$out/qt6-bundle.tar.gz"
tar -C "$stage" -czf "$out/qt6-bundle.tar.gz" usr BUNDLE_MANIFEST
cp "$work/manifest" "$out/MANIFEST"
echo "bundle_qt: $(du -sh "$stage" | cut -f1) unpacked, $(du -sh "$out/qt6-bundle.tar.gz" | cut -f1) packed in $out/qt6-bundle.tar.gz"
