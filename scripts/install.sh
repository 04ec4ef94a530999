#!/usr/bin/env bash
# Install vlmscope and everything its tests need on a fresh Debian machine, into a virtual
# environment: the one you activated ($VIRTUAL_ENV), else `.venv` in the repository, made with the
# first `python3` on PATH. A venv is never "externally managed", so Debian's own /usr/bin/python3
# works (pip refuses to install into it directly). Afterwards `.venv/bin/activate` works either way
# (with your own venv active, `.venv` becomes a link to it), so the README's commands run verbatim.
# torch and torchvision go first, pinned as a pair: torchvision's compiled operators work only
# with the torch it was built against (PyPI's torchvision next to torch 2.13.0+cpu fails on
# import), and transformers 5 builds the Qwen-VL, SmolVLM, LLaVA-OneVision, InternVL and Pixtral
# processors only with torchvision. torch 2.14.1 is the CUDA build; it runs on a CPU-only machine.
#
# VLMSCOPE_INSTALL_DRY_RUN=1: make the venv, but only print the apt and pip commands.
set -euo pipefail
cd "$(dirname "$0")/.."

dry_run=""
case "${VLMSCOPE_INSTALL_DRY_RUN:-0}" in "" | 0) ;; *) dry_run=1 ;; esac

# Each command is printed before it runs, quoted so that it can be pasted back.
say() {
  local tag=$1 line
  shift
  printf -v line ' %q' "$@"
  printf '+ %s%s\n' "$tag" "${line# }" >&2
}
# `venv_step` runs even in a dry run (it only touches .venv); `install_step` is skipped in one.
venv_step() { say "" "$@" && "$@"; }
install_step() {
  if [ -n "$dry_run" ]; then say "(dry run, skipped) " "$@"; else say "" "$@" && "$@"; fi
}
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# The interpreter .venv is made with, when no venv is active and .venv is not usable yet.
new_venv=""
if [ -z "${VIRTUAL_ENV:-}" ] && [ ! -x .venv/bin/python ]; then
  new_venv="$(command -v python3)" || fail "no python3 on PATH: install Python 3.10 or newer"
  "$new_venv" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
    || fail "vlmscope needs Python >= 3.10; $new_venv is $("$new_venv" --version 2>&1)"
fi

apt_packages=(chromium chromium-driver wordnet-base wordnet-sense-index)
# Debian's python3 makes venvs only with python3-venv (ensurepip) installed.
if [ -n "$new_venv" ] && ! "$new_venv" -c 'import ensurepip' 2>/dev/null; then
  apt_packages+=(python3-venv)
fi
missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=()
  [ "$(id -u)" -ne 0 ] && SUDO=(sudo)
  install_step "${SUDO[@]}" apt-get update -qq
  install_step "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -n "${VIRTUAL_ENV:-}" ]; then
  [ -x "$VIRTUAL_ENV/bin/python" ] || fail "the active venv $VIRTUAL_ENV has no bin/python"
  where="your active virtual environment $VIRTUAL_ENV"
  if [ "$(cd "$VIRTUAL_ENV" && pwd -P)" != "$(cd .venv 2>/dev/null && pwd -P)" ]; then
    if [ -e .venv ] && [ ! -L .venv ]; then
      fail ".venv here is a venv of its own, but $VIRTUAL_ENV is active: run 'deactivate' to" \
        "install into .venv, or remove .venv to install into $VIRTUAL_ENV"
    fi
    venv_step ln -sfn "$VIRTUAL_ENV" .venv
    where="$where (linked as .venv)"
  fi
else
  if [ -n "$new_venv" ]; then
    # a link to a venv that is gone, or a half-made .venv: start it afresh
    if [ -L .venv ]; then venv_step rm .venv; fi
    if [ -e .venv ]; then venv_step "$new_venv" -m venv --clear .venv; else venv_step "$new_venv" -m venv .venv; fi
  fi
  where="$PWD/.venv"
fi

py=.venv/bin/python
export PIP_DISABLE_PIP_VERSION_CHECK=1
# Nothing to do (every requirement of setup.cfg met, this checkout installed editable): say so
# and skip pip, which takes minutes to find that out itself.
if checked=$("$py" scripts/installed.py 2>&1); then
  echo "$checked"
else
  echo "$checked"
  # torch + torchvision first and pinned, unless the venv already has a torch that vlmscope
  # accepts (>= 2.14) with a torchvision that imports beside it
  if ! "$py" -c 'import sys, torch, torchvision; sys.exit(tuple(map(int, torch.__version__.split(".")[:2])) < (2, 14))' \
    2>/dev/null; then
    echo "step 1 of 2: torch 2.14.1 and torchvision 0.29.1 with NVIDIA's CUDA libraries (they run on a"
    echo "  CPU too): roughly 3 GB to download and 5 GB installed, the longest step (minutes)"
    install_step "$py" -m pip install --progress-bar on torch==2.14.1 torchvision==0.29.1
  fi
  echo "step 2 of 2: vlmscope in editable mode with its dependencies, test tools and the bench"
  echo "  extra (datasets, transformers, accelerate, gradio, playwright, UMAP, HDBSCAN, ...):"
  echo "  roughly 0.7 GB to download, 2 GB installed"
  # setuptools and wheel: the build backend, so tests/packaging can build the wheel offline;
  # the bench extra (UMAP, HDBSCAN, MinHash: about 80 MB of wheels) so the tests cover build-bench
  install_step "$py" -m pip install --progress-bar on -e ".[dev,bench]" "setuptools>=68" wheel
fi

if [ -n "$dry_run" ]; then
  echo "dry run: .venv is ready ($("$py" --version 2>&1) from $(
    "$py" -c 'import sys; print(sys.base_prefix)'
  )); apt and pip were skipped"
else
  echo "done: vlmscope and its test tools are installed in $where"
fi
echo "next: . .venv/bin/activate, then the demo or the tests (the first lines of README.md):"
echo "  vlmscope demo && vlmscope space results/demo        # the demo, then its leaderboard"
echo "  python -m pytest -q -m 'not slow' tests/foundation  # a quick part of the tests (minutes)"
echo "  python -m pytest -q                                 # all of them (see README: how long)"
