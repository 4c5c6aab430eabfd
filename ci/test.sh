#!/usr/bin/env bash
# The README's test command: set up, build, run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
python3 -m pytest -q "$@"
