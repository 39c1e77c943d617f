"""Stands in for the embedded model's server package in the suite's parallel phase (``scripts/test.sh``).

The parallel phase runs two test processes on this machine's two cores; the embedded model needs both (two model
jobs at once run ~100x slower), so every test that starts it belongs to the serial phase (``@pytest.mark.serial``,
or a path ``tests/conftest.py`` lists). This module is first on ``PYTHONPATH`` there: a test that starts the model
fails at once, saying so, instead of slowing the whole suite down.
"""

raise RuntimeError("the embedded model was started in the suite's parallel phase: mark this test "
                   "@pytest.mark.serial (or list its path in tests/conftest.py SERIAL_PATHS)")
