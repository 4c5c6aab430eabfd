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
python3 -m pip install -q --disable-pip-version-check "cffi>=1.15" "numpy>=1.24" "pyelftools>=0.29" "msgpack>=1.0" "pytest>=7" "hypothesis>=6" "pyyaml>=6" 2>&1 | grep -v -i "warning" || true
python3 build_shim.py
