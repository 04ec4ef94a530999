#!/usr/bin/env bash
# Install vlmscope and everything its tests need on a fresh Debian machine.
# torch goes first and pinned: an unpinned torch would pull a multi-GB CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(chromium chromium-driver wordnet-base wordnet-sense-index)
missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

export PIP_DISABLE_PIP_VERSION_CHECK=1
python3 -m pip install -q torch==2.13.0
python3 -m pip install -q -e ".[dev]"
