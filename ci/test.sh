#!/usr/bin/env bash
# The README's test command: set up, build, run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
# The ROCm 6.4 root the tests of today's ROCm run in (tests/test_rocm64_root.py); reused when made.
if [ "$(id -u)" = 0 ]; then bash ci/rocm64_root.sh; fi
python3 -m pytest -q "$@"
