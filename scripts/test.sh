#!/usr/bin/env bash
# The README's test command: set up, build everything, run the whole CTest suite.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh" default
ctest --preset default --output-on-failure "$@"
