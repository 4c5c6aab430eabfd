#!/usr/bin/env bash
# The README's test command: set up, build, run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
# The ROCm 6.4 root the tests of today's ROCm run in (tests/test_rocm64_root.py); reused when made.
# Should it fail, the rest still runs and those tests fail saying the root is missing.
if [ "$(id -u)" = 0 ]; then bash ci/rocm64_root.sh || echo "ci/rocm64_root.sh failed" >&2; fi
# Two test processes (pytest-xdist): each test is one process's work, and CI machines have two
# cores. worksteal: an idle process takes the untouched half of the other's queue, so the
# long files (clang-21 builds, the ROCm libraries' suites) balance out. `-n 0` after runs serially.
python3 -m pytest -q -n 2 --dist worksteal "$@"
