#!/usr/bin/env bash
# Install what the tests need (first run only) and run the whole suite, slow tests included, in two phases:
#   1. every test that does not start the embedded model, on two processes (pytest-xdist; a file's tests stay together,
#      the browser files one after another); tests/guards/no_embedded fails any test there that starts the model;
#   2. the tests marked serial (tests/conftest.py: those that start the embedded model), on two processes with the
#      model on one thread each (two two-thread model jobs on two cores spin against each other; one-thread ones do not).
# Extra arguments go to both phases (a phase that selects no test is not a failure).
# The browser tests drive Debian's Chromium (/usr/bin/chromium, never a downloaded browser): it is
# installed here when missing and we are root; otherwise those tests are skipped with a reason.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev || exit 1
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ]; then
    (apt-get update && apt-get install -y chromium chromium-driver) \
      || echo "scripts/test.sh: could not install chromium; the browser tests will be skipped" >&2
  else
    echo "scripts/test.sh: chromium is missing and this is not root; the browser tests will be skipped" >&2
  fi
fi
passed() { [ "$1" = 0 ] || [ "$1" = 5 ]; }  # 5: no test selected
# a base folder of this run's own: pytest keeps its three newest under /tmp/pytest-of-$USER, so two suites on one
# machine would delete each other's module-scoped stores
BASETEMP="$(mktemp -d "${TMPDIR:-/tmp}/rolescope-tests.XXXXXX")"
trap 'rm -rf "$BASETEMP"' EXIT
PYTHONPATH="tests/guards/no_embedded${PYTHONPATH:+:$PYTHONPATH}" \
  .venv/bin/python -m pytest -q -m "not serial" -n 2 --dist loadfile --durations=15 --basetemp "$BASETEMP/parallel" "$@"
parallel=$?
echo "scripts/test.sh: the serial phase (the embedded model's tests)" >&2
ROLESCOPE_EMBEDDED_THREADS=1 .venv/bin/python -m pytest -q -m "serial" -n 2 --dist loadfile --durations=15 \
  --basetemp "$BASETEMP/serial" "$@"
serial=$?
passed "$parallel" && passed "$serial" && exit 0
echo "scripts/test.sh: failed (parallel phase exit $parallel, serial phase exit $serial)" >&2
exit 1
