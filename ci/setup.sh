#!/usr/bin/env bash
# Everything a fresh Debian 12 machine needs, then the library build. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  need=""
  for pkg in clang-15 lld-15 llvm-15 rocm-device-libs libhsa-runtime-dev libamdhip64-dev hipcc gcc; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
  done
  if [ -n "$need" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
  fi
fi
# The project and its test extras, as pyproject.toml declares them (also puts `softgpu` on PATH).
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -e ".[test]"
python3 build_shim.py
