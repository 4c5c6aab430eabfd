#!/usr/bin/env bash
# The README's main command: an unmodified HSA program, built against ROCr's own
# library (Debian's libhsa-runtime-dev), runs its OpenCL kernel on SoftGPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
out=build/example
mkdir -p "$out"
clang-15 -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx1030 -O2 \
  --rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode \
  -o "$out/vector_add.co" examples/vector_add.cl
gcc -std=gnu11 -O2 -o "$out/vector_add" examples/vector_add.c -lhsa-runtime64
python3 -m core.cli run -- "$out/vector_add" "$out/vector_add.co" "${1:-65536}"
