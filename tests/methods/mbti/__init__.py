"""Tests of the MBTI method (ChatGPT-MBTI)."""

#: ``run mbti`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--subjects", "Men,Women", "--testings", "2", "--limit-statements", "6", "--order", "fixed", "--answer-mode", "text"]

#: ``parse KIND`` lines read by hand: (input line, expected {valid, value}); the contract test runs them through the CLI.
PARSE_SAMPLES = {"mbti-verdict": [
    ({"reply": "Mostly correct."}, (True, 1)),
    ({"reply": "Wrong."}, (True, 6)),
    ({"reply": "I cannot say."}, (False, None)),
]}

_ANCHORS = __import__("pathlib").Path(__file__).resolve().parents[3].parent / "shared" / "anchors" / "chatgpt_mbti"
_PUBLISHED: dict = {}


def resolve_anchor(anchor: dict) -> tuple[str, dict] | None:
    """A published ChatGPT-MBTI reply named by a corpus line ({file, subject, statement}): (reply, reader context),
    read from ``../shared/anchors/chatgpt_mbti`` (github Kali-Hac/ChatGPT-MBTI @ a50bac9); None when absent."""
    from analysis.methods.mbti.importer import parse_answer_file

    path = _ANCHORS / anchor["file"]
    if not path.exists():
        return None
    if path not in _PUBLISHED:
        _PUBLISHED[path] = {(r["subject"], str(r["statement_id"])): r for r in parse_answer_file(path, path.read_bytes()).rows
                            if r.get("reason") != "not in file"}
    row = _PUBLISHED[path][(anchor["subject"], str(anchor["statement"]))]
    return row["raw"], {"statement": row["statement"]}


#: The seed offset of this method's answers in the app fixture store (``tests/app/fixture_store.py``: model k's seed is
#: k + FIXTURE_SEED; the store writes methods in this order).
FIXTURE_SEED = 11

#: The Run page's default plan on the stub (``tests/app/test_default_plans.py``): the stub picks among lettered options
#: only, and the default text mode lists the options in words; the design (subjects, testings, statements) stays.
STUB_QUERY = {"run_mbti_mode": "logprob"}
