"""The app fixtures (``tests/app/conftest.py``) for the method pages' tests kept in each method's folder."""

from tests.app.conftest import app_on_empty, app_on_fixture, cache_dir, fixture_store  # noqa: F401
