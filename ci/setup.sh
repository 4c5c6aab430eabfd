#!/usr/bin/env bash
# Everything a fresh Debian 12 machine needs, then the library build. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  need=""
  # The ROCm libraries and tools after hipcc are clients the tests run (tests/test_clients.py).
  # lld-19 links the code object v6 and generic-target objects llvmlite's LLVM emits (lld-15 cannot).
  for pkg in clang-15 lld-15 lld-19 llvm-15 rocm-device-libs libhsa-runtime-dev libamdhip64-dev hipcc gcc \
             librocsparse-dev librocrand-dev libhiprand-dev libhipsparse-dev librocprim-dev libomp-15-dev \
             rocminfo; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need="$need $pkg"
  done
  if [ -n "$need" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
  fi
fi
# The project and its test extras, as pyproject.toml declares them (also puts `softgpu` on PATH),
# unless this checkout is installed already from this very pyproject.toml.
stamp=build/setup.stamp
want="$(pwd) $(sha256sum pyproject.toml | cut -d' ' -f1) $(command -v python3)"
installed_here() {
  local here="$(pwd)/"
  (cd / && python3 -c "import core, sys; sys.exit(not core.__file__.startswith(sys.argv[1]))" "$here") 2>/dev/null
}
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || ! installed_here; then
  python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore -e ".[test]"
  mkdir -p build && echo "$want" > "$stamp"
fi
# Rebuilds the library only when one of its inputs changed.
python3 build_shim.py
