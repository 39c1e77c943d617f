#!/usr/bin/env bash
# Install what the tests need (first run only) and run the whole suite, slow tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
exec .venv/bin/python -m pytest -q -m "" "$@"
