#!/usr/bin/env bash
# Install what the tests need (first run only) and run the whole suite, slow tests included.
# The browser tests drive Debian's Chromium (/usr/bin/chromium, never a downloaded browser): it is
# installed here when missing and we are root; otherwise those tests are skipped with a reason.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    (apt-get update && apt-get install -y chromium chromium-driver) \
      || echo "scripts/test.sh: could not install chromium; the browser tests will be skipped" >&2
  else
    echo "scripts/test.sh: chromium is missing and this is not root; the browser tests will be skipped" >&2
  fi
fi
exec .venv/bin/python -m pytest -q -m "" "$@"
