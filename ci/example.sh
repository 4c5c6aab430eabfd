#!/usr/bin/env bash
# The README's main command: an unmodified HSA program, built against ROCr's own
# library (Debian's libhsa-runtime-dev), runs its OpenCL kernel on SoftGPU. The kernel is
# built for the GPU of the profile SOFTGPU_PROFILE names (default gfx1030; mi210: gfx90a,
# rx7900xtx: gfx1100).
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
out=build/example
mkdir -p "$out"
# The profile's ISA as clang takes it: processor and target features (gfx90a:sramecc+:xnack-).
target=$(python3 -c 'from core import profile; print(profile.load().gpu["isa"].split("--")[1])')
# Debian's rocm-device-libs stops before gfx1100: core.toolchain adds its ISA constant.
bitcode=$(python3 -c 'import sys; from core.toolchain import device_libs; print(device_libs(sys.argv[1]))' "$target")
clang-15 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu="$target" -O2 \
  --rocm-device-lib-path="$bitcode" -o "$out/vector_add.co" examples/vector_add.cl
gcc -std=gnu11 -O2 -o "$out/vector_add" examples/vector_add.c -lhsa-runtime64
python3 -m core.cli run -- "$out/vector_add" "$out/vector_add.co" "${1:-65536}"
