#!/usr/bin/env bash
# The README's test command: set up, build, run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
# The ROCm 6.4 root the tests of today's ROCm run in (tests/test_rocm64_root.py); reused when made.
# Should it fail, the rest still runs and those tests fail saying the root is missing.
if [ "$(id -u)" = 0 ]; then bash ci/rocm64_root.sh || echo "ci/rocm64_root.sh failed" >&2; fi
# A test process per core (pytest-xdist; a CI machine has two), at most four: each can
# hold 2 GB. worksteal: an idle process takes the untouched half of another's queue, so the
# long files (clang-21 builds, the ROCm libraries' suites) balance out. `-n 0` after runs serially.
python3 -m pytest -q -n auto --maxprocesses 4 --dist worksteal "$@"
