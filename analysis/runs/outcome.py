"""How a run ended, told truthfully: planned, sent, answered, failed and not-asked calls apart, what its answers
hold to score, and the colour that deserves.

- **green** (``success``) only when the run completed and every planned call was answered, with something to score;
- **red** (``error``) when the run failed, or finished with nothing to score (no valid answer of the kinds its
  metrics read), with the first error in view;
- **yellow** (``warning``) otherwise: cancelled, calls failed, or calls never asked (a step they depended on failed or
  came out smaller than planned).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Level = Literal["success", "warning", "error", "info"]
FINISHED = ("completed", "completed_with_failures", "failed", "cancelled")


@dataclass(frozen=True)
class Counts:
    """A run's calls: ``planned`` by its plan (an upper bound where a step's output sets the next step's size),
    ``answered`` (a reply stored, ``cached`` of them from the cache), ``failed`` (no reply after retries); ``sent``
    and ``not_asked`` follow."""

    planned: int
    answered: int
    cached: int
    failed: int

    @property
    def sent(self) -> int:
        """Requests that went to the endpoint: answered without the cache, and the failed ones."""
        return self.answered - self.cached + self.failed

    @property
    def not_asked(self) -> int:
        """Planned calls never made: moot after an earlier step failed, fewer than planned, or cancelled."""
        return max(0, self.planned - self.answered - self.failed)


@dataclass(frozen=True)
class Outcome:
    level: Level
    title: str
    detail: str
    counts: Counts
    scored: int | None  # answers of the kinds the method's metrics read
    valid: int | None  # of them, valid
    #: Why planned calls were not asked (the reasons the run's stored rows give), "" when all were asked.
    not_asked_why: str = ""

    @property
    def has_results(self) -> bool:
        """Whether the method's pages have anything of this run to show."""
        return bool(self.valid)


def store_counts(store: Any, run_id: str, planned: int | None) -> Counts:
    """A run's counts as its store holds them (``run_calls``, ``call_failures``): true after a restart too.
    ``planned`` None (a plan that cannot be read): the calls made are all that is known."""
    done = store.query_one("SELECT COUNT(*) AS n, COALESCE(SUM(cached), 0) AS c FROM run_calls WHERE run_id=?", (run_id,))
    failed = store.query_one(
        "SELECT COUNT(DISTINCT unit) AS n FROM call_failures f WHERE run_id=? AND NOT EXISTS "
        "(SELECT 1 FROM run_calls r WHERE r.run_id=f.run_id AND r.unit=f.unit)", (run_id,))
    answered, n_failed = int(done["n"]), int(failed["n"])
    return Counts(answered + n_failed if planned is None else planned, answered, int(done["c"]), n_failed)


def live_counts(total: int, done: int, cached: int, failed: int, skipped: int) -> Counts:
    """Counts from a progress snapshot (``analysis.runs.progress.ProgressEvent``: ``done`` includes failed and skipped
    calls)."""
    return Counts(total, done - failed - skipped, cached, failed)


def summary_line(c: Counts) -> str:
    return (f"{c.planned} planned · {c.sent} sent · {c.answered} answered ({c.cached} from cache) · {c.failed} failed "
            f"· {c.not_asked} not asked")


def not_asked_reasons(samples: Any) -> str:
    """Why a run's planned calls were not asked, from its samples (``analysis.samples.COLUMNS``): the reasons its
    stored rows give ("not asked: …"), else those of the unusable replies of the steps they depended on (an
    environment selection that cannot be read); "" when none is stored."""
    if samples is None or not len(samples):
        return ""
    reasons = samples["reason"].dropna().astype(str)
    moot = [r.removeprefix("not asked:").strip() for r in reasons if r.startswith("not asked")]
    if not moot:
        steps = samples[~samples["scored"].astype(bool) & (samples["valid"] == 0) & samples["reason"].notna()]
        moot = [f"{kind}: {reason}" for kind, reason in zip(steps["kind"], steps["reason"].astype(str))]
    return "; ".join(dict.fromkeys(moot))


def outcome(status: str, counts: Counts, scored: int | None, valid: int | None, *, error: str | None = None,
            first_error: str | None = None, not_asked_why: str = "") -> Outcome:
    """The outcome of a run in ``status`` with these counts and ``valid`` of its ``scored`` answers valid (None: not
    known yet); ``not_asked_why``: why calls were not asked (``not_asked_reasons``), said in the detail."""
    result = _outcome(status, counts, scored, valid, error=error, first_error=first_error)
    if counts.not_asked and status in FINISHED:
        why = not_asked_why or "no reason stored (a step they depended on came out smaller, or the run stopped)"
        result = Outcome(result.level, result.title, f"{result.detail} Not asked ({counts.not_asked}): {why}.",
                         counts, scored, valid, not_asked_why)
    return result


def _outcome(status: str, counts: Counts, scored: int | None, valid: int | None, *, error: str | None = None,
             first_error: str | None = None) -> Outcome:
    line = summary_line(counts)
    why = f" First error: {first_error}" if first_error else ""
    if status not in FINISHED:
        return Outcome("info", f"Run {status}", line, counts, scored, valid)
    answers = ("" if scored is None else
               f" {valid} of {scored} scored answer{'s' * (scored != 1)} valid.")
    if status == "failed":
        return Outcome("error", f"Run failed: {error or 'see the failed calls'}", line + "." + answers + why,
                       counts, scored, valid)
    if not valid:
        what = ("no call was answered" if counts.answered == 0 else
                "no answer could be scored" if not scored else "no answer holds a valid value")
        return Outcome("error", f"Nothing to score: {what}", line + "." + answers + why, counts, scored, valid)
    if status == "cancelled":
        return Outcome("warning", "Run cancelled", line + "." + answers + " Resume it to make only the missing calls.",
                       counts, scored, valid)
    if counts.failed or counts.answered < counts.planned:
        parts = ([f"{counts.failed} failed"] if counts.failed else []) + \
                ([f"{counts.not_asked} not asked"] if counts.not_asked else [])
        return Outcome("warning", f"Run completed, {' and '.join(parts)} of {counts.planned} planned calls",
                       line + "." + answers + (" Resume it to retry the failed calls." if counts.failed else "") + why,
                       counts, scored, valid)
    return Outcome("success", f"Run completed: all {counts.planned} planned calls answered", line + "." + answers,
                   counts, scored, valid)


def titled_run(shown: list[str], linked: list[str]) -> str | None:
    """The run whose outcome the browser tab's title tells: the last of the runs in the URL (``?run_job=``) that has
    ended (``shown``: the ended runs, in the order the page drew them); None while the URL's runs are all running (the
    title shows their progress); the last ended run shown only when the URL names none."""
    if linked:
        in_url = [r for r in linked if r in shown]
        return in_url[-1] if in_url else None
    return shown[-1] if shown else None


def progress_title(done: int, total: int) -> str:
    """The browser tab's title while a run executes, in words ("Running 3/10"; "…" while the plan's size is not known):
    an hourglass alone reads as an empty box where no emoji font is installed."""
    return f"Running {done}/{total or '…'}"
