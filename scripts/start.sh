#!/usr/bin/env bash
# Install what the dashboard needs (first run only) and start it on the bundled data.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m app.launch --server.headless true --browser.gatherUsageStats false "$@"
