#!/usr/bin/env bash
# Installs the Debian 12 packages gconv needs to build and test. Idempotent: packages already
# present are skipped, and apt is not touched at all when nothing is missing.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config python3
  qt6-base-dev qt6-base-dev-tools libqt6svg6-dev libqcustomplot-dev libqcustomplot2.1-qt6
  nlohmann-json3-dev
  libamdhip64-dev libhiprtc-builtins5
  xvfb xauth
  slurm-wlm # slurmctld + slurmd for the test of scripts/slurm/ (tests/scripts/test_slurm_sweep.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi

# The CUDA toolkit (nvcc, NVRTC) is expected in its standard place; without it gconv still
# builds, with GCONV_GPU_PLATFORM resolving to none.
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA toolkit at /usr/local/cuda ($(/usr/local/cuda/bin/nvcc --version | tail -1))"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda: the NVIDIA compile path will be off"
fi
