"""A cached report or part of the null draws is used only when it provably describes the store's rows and this user
wrote it (``analysis.report_cache``, ``analysis.chance.cached_parts``, ``analysis.cache_trust``): answers changed in
place change the key, a forged entry is not believed, a malformed or oversized one is computed again, never a crash."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tracemalloc
from pathlib import Path

import pytest

from analysis import cache_trust, report_cache
from analysis.__main__ import main
from analysis.reread import _apply
from analysis.runs.store import Store
from tests.test_chance_cache import imported_store

ARGV = ["metrics", "values", "--json", "--n-boot", "20"]


@pytest.fixture(autouse=True)
def own_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This user's secret, in the test's folder (never the real config folder)."""
    path = tmp_path / "config" / "cache-key"
    monkeypatch.setenv(cache_trust.KEY_ENV, str(path))
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    return path


def metrics(store: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main([*ARGV, *extra, "--store", str(store)]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert isinstance(doc, dict) and "models" in doc, out[:200]
    return doc


def uncached(store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    """What ``metrics`` prints for the store's rows with nothing cached (a copy without its caches)."""
    fresh = tmp_path / "uncached.db"
    shutil.copy(store, fresh)
    with sqlite3.connect(fresh) as conn:
        conn.execute("DELETE FROM report_cache")
        conn.execute("DELETE FROM null_draws")
    return metrics(fresh, capsys, *extra)


def as_someone_else(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, table: str, key: str, data: bytes) -> str:
    """The ``mac`` another user's RoleScope would write for ``data`` (their own secret)."""
    monkeypatch.setenv(cache_trust.KEY_ENV, str(tmp_path / "other-user" / "cache-key"))
    try:
        return cache_trust.seal(table, key, data)
    finally:
        monkeypatch.setenv(cache_trust.KEY_ENV, str(tmp_path / "config" / "cache-key"))


def put(store: Path, table: str, key_col: str, doc_col: str, key: str, data: bytes | str, mac: str | None) -> None:
    with sqlite3.connect(store) as conn:
        columns = {r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')}
        if "mac" in columns:
            conn.execute(f'UPDATE "{table}" SET "{doc_col}" = ?, mac = ? WHERE "{key_col}" = ?', (data, mac, key))
        else:  # the starting commit's table
            conn.execute(f'UPDATE "{table}" SET "{doc_col}" = ? WHERE "{key_col}" = ?', (data, key))


def only_report_key(store: Path) -> str:
    with sqlite3.connect(store) as conn:
        [(key,)] = conn.execute("SELECT key FROM report_cache").fetchall()
    return key


# -- 10: answers changed in place ---------------------------------------------------------------------------------


def test_answers_reread_in_place_show_in_the_next_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``reread`` replaces a run's rows in one transaction: the last run's rows come back with the same rowids (same
    count, same largest rowid), so a key of counts and rowids kept the old report."""
    path = imported_store(tmp_path)
    before = metrics(path, capsys)
    with sqlite3.connect(path) as conn:
        run = conn.execute("SELECT run_id FROM values_answers ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    replay = tmp_path / "replay.db"
    shutil.copy(path, replay)
    with sqlite3.connect(replay) as conn:  # what a re-read with another reader would store: 10 answers now invalid
        conn.execute("UPDATE values_answers SET valid = 0, reason = 'unreadable' WHERE rowid IN "
                     "(SELECT rowid FROM values_answers WHERE run_id = ? LIMIT 10)", (run,))
    assert _apply(path, replay, run).status == "changed"
    after = metrics(path, capsys)
    assert after != before
    assert after == uncached(path, tmp_path, capsys)
    [model] = after["models"]
    assert after["models"][model]["counts"][0]["count"] == 10


def test_the_key_hashes_the_rows_an_update_in_place_changes_it(tmp_path: Path) -> None:
    path = imported_store(tmp_path)
    with Store(path) as store:
        first = report_cache.content_signature(store)
        assert report_cache.content_signature(store) == first
        with sqlite3.connect(path) as conn:  # another connection, one value, no row added or removed
            conn.execute("UPDATE values_answers SET value = value || 'x' WHERE rowid = 1")
        changed = report_cache.content_signature(store)
        assert changed != first
        store.upsert("values_answers", [store.query_one("SELECT * FROM values_answers WHERE rowid = 2") | {"score": 0.5}])
        assert report_cache.content_signature(store) != changed  # this connection's own write
        store.upsert("report_cache", [{"key": "k", "method": "m", "doc": b"{}", "created_at": 0.0}])
        kept = report_cache.content_signature(store)
    with Store(path, read_only=True) as again:
        assert report_cache.content_signature(again) == kept  # caches are not content; equal rows, equal key


def test_a_real_number_changed_in_its_last_digit_changes_the_key(tmp_path: Path) -> None:
    path = imported_store(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE values_answers SET score = 1.0 WHERE rowid = 1")
    with Store(path, read_only=True) as store:
        before = report_cache.content_signature(store)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE values_answers SET score = 1.0000000000000002 WHERE rowid = 1")
    with Store(path, read_only=True) as store:
        assert report_cache.content_signature(store) != before


# -- 11: forged entries -------------------------------------------------------------------------------------------


def test_a_forged_report_is_not_believed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A store handed over with a report under the right key but numbers of its own (sealed by its author's secret,
    or not at all) gets its report computed again, whether opened writable or read-only."""
    path = imported_store(tmp_path)
    honest = metrics(path, capsys)
    forged = json.loads(json.dumps(honest))
    for model in forged["models"].values():
        model["n_answers"] = 9999
    data = json.dumps(forged).encode()
    key = only_report_key(path)
    for mac in (as_someone_else(monkeypatch, tmp_path, "report_cache", key, data), None):
        put(path, "report_cache", "key", "doc", key, data, mac)
        path.chmod(0o444)  # opened read-only: recomputed into its side store
        try:
            assert metrics(path, capsys) == honest
        finally:
            path.chmod(0o644)
        put(path, "report_cache", "key", "doc", key, data, mac)
        assert metrics(path, capsys) == honest


def test_a_forged_null_draw_is_not_believed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Null draws another user sealed (here: every draw far better than any model) move no band, p or verdict."""
    path = imported_store(tmp_path)
    honest = metrics(path, capsys, "--chance", "3")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM report_cache")
        rows = conn.execute("SELECT design_key, draws FROM null_draws").fetchall()
    assert rows
    for key, draws in rows:
        fake = json.dumps({metric: [-1e6] * len(vs) for metric, vs in json.loads(draws).items()}).encode()
        put(path, "null_draws", "design_key", "draws", key, fake,
            as_someone_else(monkeypatch, tmp_path, "null_draws", key, fake))
    assert metrics(path, capsys, "--chance", "3") == honest


def test_entries_this_user_wrote_stay_valid_another_users_are_recomputed(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from analysis import methods

    path = imported_store(tmp_path)
    values = methods.get("values")
    calls: list[int] = []
    counted = dataclasses.replace(values, report=lambda *a, **k: calls.append(1) or values.report(*a, **k))
    with Store(path) as store:
        counted.cached_report(store, n_boot=20)
        counted.cached_report(store, n_boot=20)
    assert len(calls) == 1
    monkeypatch.setenv(cache_trust.KEY_ENV, str(tmp_path / "colleague" / "cache-key"))
    with Store(path, read_only=True) as store:  # the store handed to a colleague
        counted.cached_report(store, n_boot=20)
        counted.cached_report(store, n_boot=20)
    assert len(calls) == 2
    monkeypatch.setenv(cache_trust.KEY_ENV, str(tmp_path / "config" / "cache-key"))
    with Store(path) as store:
        counted.cached_report(store, n_boot=20)
    assert len(calls) == 2


# -- 12: malformed entries ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("doc", [b"[1, 2, 3]", b"not json", b'{"models": {"tiny-model": {"n_answers": 1}}}',
                                 b'{"unexpected": 1}', b"\xff\xfe", b'"a string"'])
def test_a_malformed_report_is_recomputed(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: bytes) -> None:
    """Even sealed by this user (a damaged entry, a report of an older schema), what is no report of the method is
    computed again and written back."""
    path = imported_store(tmp_path)
    honest = metrics(path, capsys)
    key = only_report_key(path)
    put(path, "report_cache", "key", "doc", key, doc, cache_trust.seal("report_cache", key, doc))
    assert metrics(path, capsys) == honest
    with Store(path, read_only=True) as store:
        assert report_cache.believed(store, key, "values") == honest


@pytest.mark.parametrize("doc", ["[1, 2, 3]", "not json", '{"a": 1}'])
def test_a_report_kept_as_text_is_recomputed(tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: str) -> None:
    path = imported_store(tmp_path)
    honest = metrics(path, capsys)
    put(path, "report_cache", "key", "doc", only_report_key(path), doc, None)
    assert metrics(path, capsys) == honest


def test_an_oversized_entry_is_never_loaded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A 50 MB entry (sealed and well-formed, so only its size is wrong) is refused on its SQL length: the command
    exits 0 with the right numbers and Python never holds its bytes."""
    path = imported_store(tmp_path)
    honest = metrics(path, capsys)
    key = only_report_key(path)
    big = json.dumps(honest | {"padding": "x" * (50 * 1024 * 1024)}).encode()
    put(path, "report_cache", "key", "doc", key, big, cache_trust.seal("report_cache", key, big))
    del big
    with Store(path, read_only=True) as store:
        tracemalloc.start()
        try:
            assert cache_trust.read_sealed(store, "report_cache", key) is None
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 5 * 1024 * 1024
    assert metrics(path, capsys) == honest
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT length(doc) FROM report_cache WHERE key = ?", (key,)).fetchone()[0] < 10_000_000


@pytest.mark.parametrize("draws", [b"[1, 2, 3]", b"not json", b'{"stress": "no"}', b'{"stress": [1, "x"]}'])
def test_malformed_null_draws_are_simulated_again(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  draws: bytes) -> None:
    path = imported_store(tmp_path)
    honest = metrics(path, capsys, "--chance", "3")
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM report_cache")
        keys = [k for (k,) in conn.execute("SELECT design_key FROM null_draws")]
    for key in keys:
        put(path, "null_draws", "design_key", "draws", key, draws, cache_trust.seal("null_draws", key, draws))
    assert metrics(path, capsys, "--chance", "3") == honest


def test_a_key_file_that_cannot_be_written_still_caches_within_the_process(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv(cache_trust.KEY_ENV, str(tmp_path / "not-a-folder" / "cache-key"))
    mac = cache_trust.seal("report_cache", "k", b"{}")
    assert cache_trust.seal("report_cache", "k", b"{}") == mac
    monkeypatch.setenv(cache_trust.KEY_ENV, str(tmp_path / "config" / "cache-key"))
    assert cache_trust.seal("report_cache", "k", b"{}") != mac
    assert (tmp_path / "config" / "cache-key").stat().st_mode & 0o077 == 0


def test_the_bundled_demo_archive_is_sealed_for_its_user_when_unpacked(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The archive is part of the repository (trusted as its code is): the reports its builder sealed are sealed again
    for the user who unpacks it; the same store handed over as a file is not."""
    from analysis.demo_store import bundled_demo_store, pack

    built = tmp_path / "built.db"
    data = b'{"models": {}}'
    with Store(built) as store:
        store.upsert("report_cache", [{"key": "k", "method": "x", "doc": data, "created_at": 0.0,
                                       "mac": as_someone_else(monkeypatch, tmp_path, "report_cache", "k", data)}])
    with sqlite3.connect(built) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    pack(built, tmp_path / "demo.db.xz")
    with Store(built, read_only=True) as handed_over:
        assert cache_trust.read_sealed(handed_over, "report_cache", "k") is None
    opened = bundled_demo_store(tmp_path / "demo.db", tmp_path / "demo.db.xz", tmp_path / "unpacked")
    with Store(opened, read_only=True) as demo:
        assert cache_trust.read_sealed(demo, "report_cache", "k") == data
    monkeypatch.setenv(cache_trust.KEY_ENV, str(tmp_path / "colleague" / "cache-key"))
    assert bundled_demo_store(tmp_path / "demo.db", tmp_path / "demo.db.xz", tmp_path / "unpacked") != opened


def _fresh_process_key(monkeypatch: pytest.MonkeyPatch, path: Path) -> bytes:
    cache_trust._secret_at.cache_clear()
    monkeypatch.setenv(cache_trust.KEY_ENV, str(path))
    return cache_trust.secret()


@pytest.mark.parametrize("case", ["group-readable", "folder writable by others", "fifo", "device", "too large"])
def test_a_key_file_others_could_touch_is_not_used_and_says_why(case: str, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A key at mode 0644, in a 0777 folder, a FIFO (which would hang), a link to /dev/zero (which would grow without
    bound) or an oversized file: one line says why, and the key used is this process's own (nothing another user could
    have forged is believed; the next process computes again). Never a hang."""
    import os
    import secrets as random

    folder = tmp_path / "keys"
    folder.mkdir(mode=0o700)
    path = folder / "cache-key"
    honest = random.token_hex(32)
    if case == "group-readable":
        path.write_text(honest)
        path.chmod(0o644)
    elif case == "folder writable by others":
        path.write_text(honest)
        path.chmod(0o600)
        folder.chmod(0o777)
    elif case == "fifo":
        os.mkfifo(path, 0o600)
    elif case == "device":
        path.symlink_to("/dev/zero")
    else:
        path.write_text(honest * 100)
        path.chmod(0o600)
    first = _fresh_process_key(monkeypatch, path)
    assert first != bytes.fromhex(honest)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"the cache key {path} is not used (" in err
    assert _fresh_process_key(monkeypatch, path) != first  # the next process: another key, its entries recomputed
    cache_trust._secret_at.cache_clear()


def test_a_key_file_of_this_user_at_0600_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import secrets as random

    path = tmp_path / "keys" / "cache-key"
    path.parent.mkdir(mode=0o700)
    honest = random.token_hex(32)
    path.write_text(honest)
    path.chmod(0o600)
    assert _fresh_process_key(monkeypatch, path) == bytes.fromhex(honest)
    assert capsys.readouterr().err == ""
    cache_trust._secret_at.cache_clear()
