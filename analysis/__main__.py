"""The RoleScope CLI: ``python -m analysis <command>``.

Contract (ARCHITECTURE.md): ``--json`` prints one JSON document on stdout and nothing else; errors
are one line on stderr naming the file/field/reason, exit 2 for bad input, 1 for runtime failure.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from analysis.cli_types import csv_list, non_negative_float, non_negative_int, positive_float, positive_int
from analysis.cli_types import run_id as run_id_type
from analysis.errors import InputError, RoleScopeError, one_line
from analysis.llm.keys import redact
from analysis.llm.specs import USER_INPUT
from analysis.methods import names as method_names
from analysis.runs.limits import CONFIRM_CALLS  # a typo such as --samples 1000 would cost a fortune: --yes above it

MODEL_HELP = "embedded | openai:<m> | hf:<m> | <m>@<url> | name in models.toml (PersonaGym: the persona agent)"
DEFAULT_STORE = Path(os.environ.get("ROLESCOPE_STORE", "rolescope.db"))


#: The import kind of a RoleScope report file (``analysis.report_file.restore.KIND``; not a method's).
REPORT_KIND = "rolescope-report"


def import_kinds() -> dict[str, list[Any]]:
    """Kind of file -> the methods that import it (``Method.importers``), in registry order."""
    from analysis import methods

    kinds: dict[str, list[Any]] = {}
    for m in methods.all_methods():
        for kind in m.importers:
            kinds.setdefault(kind, []).append(m)
    return kinds


def _add_store(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", type=Path, default=DEFAULT_STORE, help="SQLite store file (default: %(default)s)")


def _add_yes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true",
                   help=f"run even when the plan makes more than {CONFIRM_CALLS:,} calls (refused without it)")


def _add_exec(p: argparse.ArgumentParser) -> None:
    p.add_argument("--concurrency", type=positive_int, default=8, help="max requests in flight (default 8; one with prefix reuse)")
    p.add_argument("--max-attempts", type=positive_int, default=6, help="attempts per call before it is stored as failed")
    p.add_argument("--max-wait", type=non_negative_float, default=300.0, metavar="SECONDS",
                   help="most a call may wait between its retries in all (Retry-After included) before it is stored "
                        "as failed (default 300)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--trust-endpoint", action="append", default=[], metavar="URL",
                   help="send the key a stored run names to this base URL (read from a store, so not sent otherwise)")
    p.add_argument("--via", choices=("live", "batch", "export"), default=None,
                   help="live: one request per call (default); batch: a wave of calls at a time through the "
                        "provider's batch API (/v1/files, /v1/batches: about half the price); export: write the "
                        "first wave's requests to --out (OpenAI batch format, for vllm run_batch or Ray) and stop")
    p.add_argument("--out", type=Path, default=None, metavar="FILE", help="--via export: the requests file to write")
    p.add_argument("--poll", type=positive_float, default=10.0, metavar="SECONDS",
                   help="--via batch: first pause between polls of a batch (grows to 60 s; default 10)")


def _add_report_options(p: argparse.ArgumentParser) -> None:
    """What ``report`` and ``table`` share: ``--force`` for their ``--out``, the methods and models shown, and the
    options of ``metrics`` their numbers are read with."""
    p.add_argument("--force", action="store_true",
                   help="replace a symbolic link, FIFO, device or socket at --out (refused otherwise)")
    p.add_argument("--models", type=csv_list, default=None, help="only these models (comma-separated)")
    p.add_argument("--methods", type=csv_list, default=None, help="only these methods (comma-separated)")
    p.add_argument("--n-boot", type=non_negative_int, default=1000,
                   help="bootstrap resamples for CIs (default 1000, as metrics)")
    p.add_argument("--chance", type=non_negative_int, default=100, metavar="N",
                   help="simulations of each null model for the chance bands and verdicts (default 100, as metrics)")


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's error contract: one line on stderr naming the option and the reason, exit 2 (argparse
    prints its usage first; ``--help`` still shows it). Sub-commands' parsers inherit the class."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {one_line(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m analysis", description="RoleScope: how faithfully LLMs play personas.")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a method against a model")
    run_sub = run.add_subparsers(dest="method", required=True)
    from analysis import methods
    from analysis.methods.options import add_flags

    for method in methods.all_methods():  # each method's options come from its own folder
        dashed = method.name.replace("_", "-")  # cross_method is typed cross-method
        parser_m = run_sub.add_parser(method.name, help=method.help, aliases=[dashed] if dashed != method.name else [])
        parser_m.add_argument("--model", required=True, help=MODEL_HELP)
        parser_m.add_argument("--run-id", type=run_id_type)
        _add_yes(parser_m)
        add_flags(parser_m, method.options)
        _add_store(parser_m)
        _add_exec(parser_m)

    resume = sub.add_parser("resume", help="make exactly the calls a run has not stored yet")
    resume.add_argument("run_id")
    _add_store(resume)
    _add_exec(resume)

    export = sub.add_parser("export-requests", help="write the requests a run awaits next as an OpenAI batch file "
                                                    "(for vllm run_batch, Ray Data, or any batch service)")
    export.add_argument("run_id")
    export.add_argument("--out", type=Path, required=True, metavar="FILE", help="the requests file to write (JSONL)")
    _add_store(export)
    export.add_argument("--quiet", action="store_true", help="no progress bar")

    imp = sub.add_parser("import-replies", help="answer the wave a run awaits from a batch results file, then go on "
                                                "until it awaits the next one")
    imp.add_argument("run_id")
    imp.add_argument("replies", type=Path, help="the results file (JSONL: custom_id, response.body or error)")
    imp.add_argument("--out", type=Path, default=None, metavar="FILE",
                     help="write the next wave's requests here (else only counted)")
    _add_store(imp)
    imp.add_argument("--quiet", action="store_true", help="no progress bar")

    runs = sub.add_parser("runs", help="list the runs of a store (with their names and tags)")
    _add_store(runs)
    runs.add_argument("--json", action="store_true")
    runs.add_argument("--tag", action="append", default=[], help="only runs carrying this tag (repeat: every one)")

    label = sub.add_parser("label", help="name, tag and annotate a run (replaces what it had)")
    label.add_argument("run_id")
    _add_store(label)
    label.add_argument("--name", default="")
    label.add_argument("--tag", action="append", default=[], help="a tag (repeat, or comma-separated)")
    label.add_argument("--note", default="")

    sub.add_parser("models", help="list model specs and named configs").add_argument("--json", action="store_true")

    export = sub.add_parser("export", help="write every table to files")
    _add_store(export)
    export.add_argument("--format", choices=["csv", "json", "parquet"], required=True)
    export.add_argument("--out", type=Path, required=True)

    imp = sub.add_parser("import", help="import a reference project's result files as runs")
    imp.add_argument("kind", choices=sorted([*import_kinds(), REPORT_KIND]),
                     help="value-stability: Stick to Your Role! results.json files; chatgpt-mbti: ChatGPT-MBTI answer "
                          "CSVs; personagym: PersonaGym question files and scores.json; persona-llm: a PersonaLLM clone's "
                          "BFI-44 answers; agent-trust: camel-ai/agent-trust Trust_Game_<model>.json files (GenAgents "
                          "personas are not "
                          "imported: give the file to run trust --personas); rolescope-report: a report file written by "
                          "`report` (its runs and tables); chatgpt-behavioral: a ChatGPT-Behavioral clone's IPIP-50 "
                          "testings with its human IPIP-50 norm, and its trust-game investor sessions")
    imp.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="result files, or folders searched for them")
    _add_store(imp)
    imp.add_argument("--json", action="store_true", help="print the per-file reports as JSON on stdout (a kind that "
                     "several methods import: one JSON line per method)")
    imp.add_argument("--accept-edited", action="store_true",
                     help=f"{REPORT_KIND}: import a report file whose seal does not match its data (edited, or written "
                          "before reports were sealed); its runs are marked as edited on every page (every row is "
                          "still checked)")

    delete = sub.add_parser("delete", help="delete runs and their rows (their cached calls are kept unless --calls)")
    delete.add_argument("run_ids", nargs="+", metavar="RUN_ID")
    _add_store(delete)
    delete.add_argument("--calls", action="store_true", help="also delete the cached calls no other run uses")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation (needed when not on a terminal)")

    metrics = sub.add_parser("metrics", help="a method's metrics per model")
    metrics.add_argument("method", choices=[*method_names(), *(n.replace("_", "-") for n in method_names() if "_" in n)])
    _add_store(metrics)
    metrics.add_argument("--model", help="only this model (display name)")
    metrics.add_argument("--json", action="store_true", help="one JSON document on stdout")
    metrics.add_argument("--n-boot", type=non_negative_int, default=1000,
                         help="bootstrap resamples for CIs (default 1000; 0 = no CIs)")
    metrics.add_argument("--chance", type=non_negative_int, default=100, metavar="N",
                         help="simulations of each null model for the chance bands (default 100; 0 = none)")
    metrics.add_argument("--config", action="append", metavar="ID",
                         help="use this configuration (id or unique prefix, from the document's 'configurations') for "
                              "the models that have it, instead of each model's latest; repeatable")

    figure = sub.add_parser("figure", help="write one of a method's figures (its dashboard charts, from its report) to "
                                           "an SVG, PDF or PNG file")
    figure.add_argument("method", nargs="?", metavar="METHOD", help="one of: " + ", ".join(method_names()))
    figure.add_argument("figure", nargs="?", metavar="FIGURE", help="the figure's name (see --list)")
    _add_store(figure)
    figure.add_argument("--models", type=csv_list, metavar="A,B", help="these models only (default: every model of the "
                                                                      "method's report)")
    figure.add_argument("--out", type=Path, metavar="FILE", help="the file to write: .svg, .pdf or .png")
    figure.add_argument("--scale", type=positive_float, default=1.0,
                        help="multiply the size (a PNG's resolution: 3 = print; default 1)")
    figure.add_argument("--width", type=positive_int, help="width in CSS pixels (default: Plotly's 700)")
    figure.add_argument("--height", type=positive_int, help="height in CSS pixels (default: the figure's own)")
    figure.add_argument("--list", action="store_true", help="list the figure names (of METHOD, or of every method "
                                                            "with answers in the store) and write nothing")
    figure.add_argument("--n-boot", type=non_negative_int, default=1000,
                        help="bootstrap resamples behind the CIs (default 1000, the dashboard's)")

    demo = sub.add_parser("demo", help="the bundled demo store")
    demo_sub = demo.add_subparsers(dest="demo_command", required=True)
    build = demo_sub.add_parser("build", help="(re)build data/demo from the embedded model; resumes if interrupted")
    build.add_argument("--store", type=Path, help="default: data/demo/rolescope-demo.db (required with --model)")
    build.add_argument("--model", action="append", metavar="SPEC",
                       help="run the same campaign on this model instead of the two embedded configurations (repeatable)")
    build.add_argument("--answer-mode", choices=["logprob", "text"], default="text", help="with --model (default: text)")
    build.add_argument("--size", choices=["full", "reduced"], default="full", help="reduced: the small CI campaign")
    build.add_argument("--methods", type=csv_list, help="comma list (default: every method)")
    build.add_argument("--concurrency", type=positive_int, default=2)
    build.add_argument("--chance", type=non_negative_int, metavar="N",
                       help="cache N simulations per null model for the chance bands (default: 100 for the bundled demo, "
                            "0 for other stores)")
    build.add_argument("--rederive", action="store_true",
                       help="re-derive every run's tables from its stored replies (after a parser fix): each run is "
                            "replaced and run again from the call cache; only requests never made before reach the model")
    build.add_argument("--svs", metavar="PATH", help="an SVS instrument (data_svs folder or hf:// path): adds no_conv on "
                                                    "the SVS procedure per configuration (needs --store)")
    build.add_argument("--imports", type=Path, metavar="PATH",
                       help="a folder holding the public sources of real models' answers (persona_llm/, chatgpt_mbti/, …) "
                            "imported numbers only, no text (default: ../shared/anchors for the bundled demo, none for "
                            "other stores)")
    build.add_argument("--no-imports", action="store_true", help="import no published answers")
    reports = demo_sub.add_parser("reports", help="compute the dashboard's default reports into the demo store again and "
                                                  "pack it, without running the campaign (no model call)")
    reports.add_argument("--store", type=Path, help="default: data/demo/rolescope-demo.db")
    reports.add_argument("--chance", type=non_negative_int, metavar="N", default=100,
                         help="simulations per null model (default: 100, the dashboard's)")

    docs = sub.add_parser("docs", help="rewrite the docs' generated tables from the bundled demo's reports "
                                       "(analysis.doc_tables); --check: exit 1 when one is not today's")
    docs.add_argument("--check", action="store_true", help="change nothing; list the docs whose tables are stale")
    docs.add_argument("--store", type=Path, help="default: the bundled demo store")

    reread = sub.add_parser("reread", help="re-derive stored answers from the stored replies with today's readers "
                                           "(sends no request; prints what changed)")
    reread.add_argument("--run", action="append", metavar="ID", help="a run to re-read (repeatable; default: every run)")
    _add_store(reread)

    readers = [r for m in methods.all_methods() for r in m.readers]
    parse = sub.add_parser("parse", help="read replies with a method's reply reader (JSON lines on stdin: "
                                         "{\"reply\", \"finish_reason\", ...context}; one {valid, value, reason} line each)")
    parse.add_argument("kind", choices=[r.kind for r in readers], metavar="KIND",
                       help="; ".join(f"{r.kind}: {r.help}" + (f" (context: {', '.join(r.needs)})" if r.needs else "")
                                  for r in readers))

    report = sub.add_parser("report", help="one self-contained HTML file of a store's results: headlines with chance "
                                           "bands, figures, design, the replies behind the numbers, the tidy tables")
    _add_store(report)
    report.add_argument("--out", type=Path, required=True, help="the HTML file to write (replaced whole, never written "
                        "through a symbolic link)")
    _add_report_options(report)
    report.add_argument("--runs", type=csv_list, default=None, help="only these runs (comma-separated run ids)")

    table = sub.add_parser("table", help="one table of every headline per model and configuration (value, CI, n, read "
                                         "share, chance verdict, runs, code version) as CSV, Markdown or LaTeX")
    _add_store(table)
    table.add_argument("--format", choices=["csv", "markdown", "latex"], default="markdown",
                       help="csv (full precision), markdown (GitHub table) or latex (booktabs; default: %(default)s)")
    table.add_argument("--out", type=Path, default=None, metavar="FILE",
                       help="the file to write (replaced whole, never written through a symbolic link; default: stdout)")
    _add_report_options(table)
    table.add_argument("--digits", type=non_negative_int, default=3,
                       help="decimals of the numbers in markdown and latex (default 3; csv keeps every digit)")
    table.add_argument("--label", default="tab:rolescope-results", help="latex: the table's \\label (default: %(default)s)")

    board = sub.add_parser("leaderboard", help="a method's leaderboard over every model in the store (default: the first "
                                               "method that has one, Stick to Your Role!)")
    _add_store(board)
    board.add_argument("--method", default=None, help="the method whose leaderboard to print")
    board.add_argument("--json", action="store_true", help="one JSON document on stdout")
    board.add_argument("--n-boot", type=non_negative_int, default=1000, help="bootstrap resamples for CIs (default 1000)")
    board.add_argument("--chance", type=non_negative_int, default=100, metavar="N",
                       help="simulations of each null model for each row's chance bands (default 100; 0 = none)")
    return parser


def _existing(path: Path) -> Path:
    """``path``; the bundled demo's path (``data/demo/rolescope-demo.db``) on a checkout holding only its archive is
    the archive unpacked (``analysis.demo_store.bundled_demo_store``), so ``--store data/demo/rolescope-demo.db``
    works everywhere."""
    from analysis.demo_store import DEMO_STORE, bundled_demo_store

    if not path.exists() and path.expanduser().resolve() == DEMO_STORE.resolve():
        return bundled_demo_store()
    return path


def _read_store(path: Path):  # -> Store
    from analysis.runs.store import Store

    path = _existing(path)
    if not path.exists():
        raise InputError(f"store {path}: file not found")
    return Store(path, read_only=True)


def _cache_store(path: Path):  # -> Store
    """A store a report is read from, opened writable when the file allows it so that its reports and null draws are
    kept in it (``analysis.report_cache``); read-only otherwise (nothing is kept)."""
    from analysis.runs.store import Store

    path = _existing(path)
    if not path.exists():
        raise InputError(f"store {path}: file not found")
    if os.access(path, os.W_OK) and os.access(path.resolve().parent, os.W_OK):
        try:
            return Store(path)
        except InputError:
            pass  # read-only after all, or another schema: the read-only open says which
    return Store(path, read_only=True)


def _progress_bar(quiet: bool):  # -> ProgressTracker
    from analysis.runs.progress import ProgressTracker

    tracker = ProgressTracker()
    if quiet or not sys.stderr.isatty() and os.environ.get("ROLESCOPE_PROGRESS") != "1":
        return tracker, None
    from tqdm import tqdm

    bar = tqdm(total=0, unit="call", file=sys.stderr, dynamic_ncols=True)
    lock = threading.Lock()

    def on_event(ev) -> None:
        with lock:
            bar.total = ev.total
            bar.n = ev.done
            bar.set_postfix(cached=ev.cached, failed=ev.failed, tok_in=ev.tokens_in, tok_out=ev.tokens_out, refresh=False)
            if ev.message:  # a provider batch: its status and counts while the run waits for it
                bar.set_description_str(one_line(ev.message)[:80], refresh=False)  # the provider's batch id
            bar.refresh()

    tracker.subscribe(on_event)
    return tracker, bar


def _cancel_on_sigint() -> threading.Event:
    """An Event set by the first Ctrl-C (graceful cancel: calls in flight finish and are stored); a second
    Ctrl-C gets the previous handler."""
    cancel = threading.Event()
    previous = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame) -> None:
        cancel.set()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, on_sigint)
    return cancel


def _execute(store, run_id: str, args: argparse.Namespace) -> int:
    from analysis.runs.executor import RetryPolicy
    from analysis.methods import execute_run

    from analysis.runs.provider_batch import BatchPolicy

    via = _via(store, run_id, args)
    tracker, bar = _progress_bar(args.quiet)
    cancel = _cancel_on_sigint()
    try:
        summary = execute_run(store, run_id, concurrency=getattr(args, "concurrency", 8),
                              retry=RetryPolicy(max_attempts=getattr(args, "max_attempts", 6),
                                                max_total_wait_s=getattr(args, "max_wait", 300.0)),
                              progress=tracker, cancel=cancel, confirmed=tuple(getattr(args, "trust_endpoint", [])), via=via,
                              out=getattr(args, "out", None), replies=getattr(args, "replies_read", None),
                              batch_policy=BatchPolicy(poll_s=getattr(args, "poll", 10.0)))
    finally:
        if bar is not None:
            bar.close()
    from analysis.run_outcome import run_outcome

    # the outcome as the app tells it (one function): the store's planned / sent / answered / failed / not-asked calls
    told = run_outcome(store, run_id, summary.status)
    c = told.counts
    not_asked = f", {c.not_asked} not asked" if c.not_asked else ""
    shown = one_line(run_id)  # a stored id (resume) may predate the --run-id check
    print(
        # the run's calls are the store's (as the Run page tells them); "cached" and the tokens are this execution's,
        # so a resume that asks nothing new says "(46 cached) … 0 tokens in"
        f"run {shown}: {summary.status}; {c.answered}/{c.planned} calls answered ({summary.cached} "
        f"cached), {c.failed} failed{not_asked}; {summary.tokens_in} tokens in, {summary.tokens_out} out, "
        f"{summary.seconds:.1f}s",
        file=sys.stderr,
    )
    if summary.batches_created or summary.batches_adopted:
        print(f"provider batches: {summary.batches_created} created, {summary.batches_adopted} open ones collected",
              file=sys.stderr)
    if summary.status == "awaiting_replies":
        return _awaiting(store, shown, summary, args)
    print(one_line(f"{told.title}. {told.detail}"), file=sys.stderr)  # stored reasons: a provider's ids, names
    _print_logprob_limit(store, run_id, told.detail)
    if summary.status == "cancelled":
        print(_continue_hint(store, run_id, shown, args), file=sys.stderr)
        return 130
    if c.failed:  # exit 1: some units failed (their failures are stored; resume or the next export asks again)
        print(f"{c.failed} calls failed; {_continue_hint(store, run_id, shown, args)}", file=sys.stderr)
        return 1
    if told.level == "error":  # nothing to score: no valid answer of the kinds the method's metrics read
        return 1
    if summary.status == "completed" and _answered_from_files(args):  # no wave left to export: read the numbers
        print(f"run {shown} is complete; its numbers: python -m analysis metrics {store.get_run(run_id)['method']} "
              f"--store {shlex.quote(str(store.path))}", file=sys.stderr)
    return 0


def _via(store, run_id: str, args: argparse.Namespace) -> str:
    """How this execution answers requests: ``--via``; on ``resume`` without it, ``batch`` when the run has a batch
    open at the provider (collected, not paid again), else ``live``."""
    via = getattr(args, "via", None)
    if via == "export" and getattr(args, "out", None) is None:
        raise InputError("--via export: name the requests file to write with --out FILE")
    if via is None and args.command == "resume":
        if store.open_batch_ids(run_id):
            print(f"run {one_line(run_id)} has a batch open at the provider: collecting it (--via batch)", file=sys.stderr)
            return "batch"
    return getattr(args, "via_forced", None) or via or "live"


def _print_logprob_limit(store, run_id: str, detail: str) -> None:
    """The setting to change when the run's first error is its server refusing the top logprobs asked: every such call
    failed alike. Why here too: a run asking no more than endpoints serve by default is not probed before it is
    created (``_refuse_unserved_logprobs``), and a server may be started below that."""
    from analysis.llm.check import logprob_limit

    limit = logprob_limit(detail)
    if limit is not None:
        print(one_line(limit.line(str(store.get_run(run_id)["model"]))), file=sys.stderr)


def _answered_from_files(args: argparse.Namespace) -> bool:
    """Whether this execution answers the run from batch files (``--via export``, ``export-requests``,
    ``import-replies``): it goes on with ``export-requests``, never a live ``resume``."""
    return getattr(args, "via_forced", None) in ("export", "import") or getattr(args, "via", None) == "export"


def _continue_hint(store, run_id: str, shown: str, args: argparse.Namespace) -> str:
    """The command that goes on with the run: for one answered from files, ``export-requests`` (the calls that failed
    and the waves not asked yet are exported again; a ``resume`` would send them live), else ``resume``."""
    if not _answered_from_files(args):
        return f"resume with: {_resume_hint(store, run_id, shown, args)}"
    out = shlex.quote(str(args.out)) if getattr(args, "out", None) is not None else "requests.jsonl"
    return (f"continue with: python -m analysis export-requests {shlex.quote(shown)} --store "
            f"{shlex.quote(str(store.path))} --out {out}")


def _resume_hint(store, run_id: str, shown: str, args: argparse.Namespace) -> str:
    """The resume command that works: with the --via and --trust-endpoint it needs (a key goes to a URL read from
    the store only when the command names it: a run made with ``--model NAME@URL`` resumes with that URL trusted)."""
    urls = list(getattr(args, "trust_endpoint", []) or [])
    spec = store.get_run(run_id)["model_spec"]
    if args.command == "run" and "@" in str(getattr(args, "model", "")) and spec.get("api_key_env") and spec.get("base_url"):
        urls.append(str(spec["base_url"]))
    extra = "".join(f" --trust-endpoint {shlex.quote(url)}" for url in dict.fromkeys(urls))
    if getattr(args, "via", None) == "batch":
        extra += " --via batch"
    return f"python -m analysis resume {shlex.quote(shown)} --store {shlex.quote(str(store.path))}{extra}"


def _awaiting(store, shown: str, summary, args: argparse.Namespace) -> int:
    """After an export (or an import that left the plan unfinished): what was written, and the next command."""
    out = getattr(args, "out", None)
    where = f"written to {out}" if out is not None else "not written (no --out)"
    print(f"run {shown}: awaiting {summary.awaiting:,} replies ({one_line(summary.awaiting_note)}); their requests {where}",
          file=sys.stderr)
    target = shlex.quote(str(out)) if out is not None else "requests.jsonl"
    if out is None:
        print(f"write them with: python -m analysis export-requests {shlex.quote(shown)} --store "
              f"{shlex.quote(str(store.path))} --out {target}", file=sys.stderr)
    print(f"then: vllm run_batch -i {target} -o replies.jsonl --model MODEL (or on Ray: python -m analysis.runs.ray_driver "
          f"{target} --base-url URL --out replies.jsonl; or any OpenAI batch runner), and "
          f"python -m analysis import-replies {shlex.quote(shown)} replies.jsonl --store {shlex.quote(str(store.path))} "
          "--out next-requests.jsonl", file=sys.stderr)
    return 0


def cmd_export_requests(args: argparse.Namespace) -> int:
    args.via_forced = "export"
    return cmd_resume(args)


def cmd_import_replies(args: argparse.Namespace) -> int:
    from analysis.importers.files import check_regular_file
    from analysis.runs.results_index import ResultsIndex
    from analysis.runs.runner import ImportedReplies

    if not args.store.exists():
        raise InputError(f"store {args.store}: file not found")

    check_regular_file(args.replies)
    with open(args.replies, "rb") as handle:  # checked whole before the store is touched; read back while it runs
        results = ResultsIndex()
        results.add(handle, str(args.replies))
        if not len(results):
            raise InputError(f"{args.replies}: no result lines")
        args.replies_read = ImportedReplies(results, str(args.replies))
        args.via_forced = "import"
        return cmd_resume(args)


def cmd_run(args: argparse.Namespace) -> int:
    from analysis import methods
    from analysis.llm.specs import parse_model_spec

    spec = parse_model_spec(args.model)
    plans = methods.get(args.method).plans(args, spec)  # (run-id suffix, plan): several for an ablation or campaign
    return _run_plans(args.method, spec, plans, args)


def _confirm_size(method: str, plans: list[dict], args: argparse.Namespace) -> None:
    """Refuse plans that make more than ``CONFIRM_CALLS`` calls in all unless ``--yes`` was given (before any run
    is created)."""
    from analysis import methods

    n_calls = sum(methods.get(method).n_calls(plan) for plan in plans)
    if n_calls > CONFIRM_CALLS and not getattr(args, "yes", False):
        runs = f" in {len(plans)} runs" if len(plans) > 1 else ""
        raise InputError(f"run {method}: this plan makes {n_calls:,} calls{runs}, more than {CONFIRM_CALLS:,}; check the "
                         "options and pass --yes to run it")


def _refuse_unserved_logprobs(spec, plans: list[dict], args: argparse.Namespace) -> None:
    """Before any run is created: a remote model whose plans read more top logprobs than the usual endpoints serve by
    default is asked once for that many (``probe_logprobs``). A server refusing them (vLLM below its --max-logprobs)
    would refuse every logprob call of the run, so the command stops on one line naming the setting, nothing stored.
    ``--via export`` sends nothing, so nothing is asked."""
    from analysis.llm.check import SERVED_BY_DEFAULT, probe_logprobs
    from analysis.runs.runner import logprobs_asked

    if spec.backend == "embedded" or getattr(args, "via", None) == "export":
        return
    asked = min(max((logprobs_asked(plan) for plan in plans), default=0), spec.max_top_logprobs)
    if asked <= SERVED_BY_DEFAULT:
        return
    limit = probe_logprobs(spec, asked, confirmed=tuple(getattr(args, "trust_endpoint", [])))
    if limit is not None:
        raise InputError(limit.line(spec.name))


def _print_plan_cost(method: str, spec, plans: list[dict], via: str) -> None:
    """One line on stderr before a run: its calls and waves, and (a priced model) the live and the batch cost."""
    from analysis import methods
    from analysis.runs.estimate import estimate_run

    m = methods.get(method)
    for plan in plans:
        est = estimate_run(method, "not modelled" if m.parts else m.tokens(plan), spec, m.n_calls(plan), None,
                           m.waves(plan))
        cost = "" if est.cost is None else (f"; est. ${est.cost:.4f} live, ${est.batch_cost:.4f} through the batch API "
                                            f"({spec.batch_price_factor:g} × live)")
        waves = f" in {est.waves} wave{'s' if est.waves != 1 else ''}" if via != "live" else ""
        print(f"plan: {est.n_calls:,} calls{waves}{cost}", file=sys.stderr)


def _run_plans(method: str, spec, plans: list[tuple[str, dict]], args: argparse.Namespace) -> int:
    """The runs of one command, one after another (several: run ids ``RUN_ID-SUFFIX`` when ``--run-id`` is given)."""
    from analysis.methods import create_run
    from analysis.runs.store import Store

    _confirm_size(method, [plan for _, plan in plans], args)
    _refuse_unserved_logprobs(spec, [plan for _, plan in plans], args)
    codes = []
    with Store(args.store) as store:
        _print_plan_cost(method, spec, [plan for _, plan in plans], getattr(args, "via", None) or "live")
        for suffix, plan in plans:
            run_id = create_run(store, method, spec, plan,
                                f"{args.run_id}-{suffix}" if args.run_id and len(plans) > 1 else args.run_id)
            print(f"run {one_line(run_id)} created in {args.store}", file=sys.stderr)
            codes.append(_execute(store, run_id, args))
            if codes[-1] == 130:
                break
    return max(codes)


def cmd_resume(args: argparse.Namespace) -> int:
    from analysis.runs.store import Store

    if not args.store.exists():
        raise InputError(f"store {args.store}: file not found")
    with Store(args.store) as store:
        store.get_run(args.run_id)
        return _execute(store, args.run_id, args)


def cmd_runs(args: argparse.Namespace) -> int:
    from analysis import methods
    from analysis.runs.store import Store

    if not args.store.exists():
        raise InputError(f"store {args.store}: file not found")
    from analysis.runs import comparable

    families = [f for m in methods.all_methods() for f in m.families]
    from analysis.runs.labels import labels, tagged, with_labels

    with Store(args.store, read_only=True) as store:
        df = store.runs()
        df.insert(3, "config", df["run_id"].map(comparable.configuration_of(comparable.store_runs(store), families)))
        df = tagged(with_labels(df, labels(store)), args.tag)
    if not args.json:
        df = df.assign(tags=df["tags"].map(",".join))
    if args.json:
        print(df.to_json(orient="records"))
    else:  # one line per run, whatever names a store holds (written before names were checked, or by other tools)
        text = df.map(lambda v: one_line(v) if isinstance(v, str) else v)
        print(text.to_string(index=False) if len(df) else "no runs")
    return 0


def cmd_label(args: argparse.Namespace) -> int:
    from analysis.runs.labels import parse_tags, set_label
    from analysis.runs.store import Store

    if not args.store.exists():
        raise InputError(f"store {args.store}: file not found")
    with Store(args.store) as store:
        set_label(store, args.run_id, name=args.name, tags=parse_tags(",".join(args.tag)), note=args.note)
    print(f"labelled {args.run_id}", file=sys.stderr)
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from analysis.llm.specs import load_named_models

    named = {name: spec.public_dict() for name, spec in load_named_models().items()}
    forms = {
        "embedded": "SmolLM2-135M-Instruct in-process (offline; a tiny model: answers are near chance)",
        "openai:<model>": "api.openai.com, key from OPENAI_API_KEY",
        "hf:<model>": "Hugging Face router, key from HF_TOKEN",
        "<model>@<base_url>": "any OpenAI-compatible server (vLLM, Ollama, llama.cpp); key from ROLESCOPE_API_KEY if set",
    }
    if args.json:
        print(json.dumps({"forms": forms, "named": named}, indent=1))
    else:
        for form, what in forms.items():
            print(f"{form:24} {what}")
        for name, spec in named.items():
            print(one_line(f"{name:24} {spec['backend']}:{spec['model']} {spec['base_url'] or ''} params={spec['params']}"))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from analysis.runs.export import export_store
    from analysis.runs.store import Store

    if not args.store.exists():
        raise InputError(f"store {args.store}: file not found")
    with Store(args.store, read_only=True) as store:
        paths = export_store(store, args.out, args.format)
    for p in paths:
        print(one_line(str(p)), file=sys.stderr)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    """The method whose importer reads this kind of file imports it (``Method.run_import``); a kind several methods
    import is prepared by each (every file read and checked) before any stores (``Method.prepare_import``); a RoleScope
    report file is read back by ``analysis.report_file.restore``."""
    if args.kind == REPORT_KIND:
        from analysis.report_file.restore import restore

        missing = [str(p) for p in args.paths if not p.exists()]
        if missing:
            raise InputError(f"import {REPORT_KIND}: no such file {', '.join(missing)}")
        return restore(args.paths, args.store, args.json, accept_edited=args.accept_edited)
    importers = import_kinds()[args.kind]
    if len(importers) == 1:
        return importers[0].run_import(args.kind, args.paths, args.store, args.json)
    missing = [m.name for m in importers if m.prepare_import is None]
    if missing:
        raise InputError(f"import {args.kind}: several methods import it but {', '.join(missing)} cannot prepare an "
                         "import before storing (Method.prepare_import)")
    stores = [m.prepare_import(args.kind, args.paths, args.json) for m in importers]  # every file checked first
    return max(store(args.store) for store in stores)


def cmd_report(args: argparse.Namespace) -> int:
    """Write the store's report file (``analysis.report_file``) to ``--out``; the figures are the dashboard's
    (``Method.figures``)."""
    from analysis.importers.files import check_out_file, write_atomically
    from analysis.report_file import report_html

    out = check_out_file(args.out, "report --out", force=args.force, expected="an .html file")
    started = time.perf_counter()
    with _cache_store(args.store) as store:
        text = report_html(store, models=args.models, methods=args.methods, runs=args.runs, 
                           n_boot=args.n_boot, chance=args.chance)
    out = check_out_file(out, "report --out", force=args.force, expected="an .html file")  # changed meanwhile?
    try:
        write_atomically(out, [text.encode("utf-8")])
    except OSError as exc:
        raise InputError(f"report --out {out}: cannot write it ({exc.strerror})") from None
    print(f"{one_line(str(out))}: {len(text.encode('utf-8')) / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s",
          file=sys.stderr)
    return 0


def cmd_table(args: argparse.Namespace) -> int:
    """Print (or write to ``--out``) the results table (``analysis.results_table``): every headline per model and
    configuration as ``metrics --json`` gives it with the same ``--n-boot`` and ``--chance``."""
    from analysis.importers.files import check_out_file, write_atomically
    from analysis.results_table import render, results_table

    out = None if args.out is None else check_out_file(args.out, "table --out", force=args.force)
    with _cache_store(args.store) as store:
        text = render(results_table(store, models=args.models, methods=args.methods, n_boot=args.n_boot,
                                    chance=args.chance), args.format, digits=args.digits, label=args.label)
    if out is None:
        sys.stdout.write(text)
        return 0
    out = check_out_file(out, "table --out", force=args.force)  # changed meanwhile?
    try:
        write_atomically(out, [text.encode("utf-8")])
    except OSError as exc:
        raise InputError(f"table --out {out}: cannot write it ({exc.strerror})") from None
    print(f"wrote {one_line(str(out))}", file=sys.stderr)
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    from analysis.runs.store import Store

    if not args.store.exists():
        raise InputError(f"store {args.store}: file not found")
    with Store(args.store) as store:
        runs = store.runs()
        known = set(runs["run_id"]) if len(runs) else set()
        missing = [r for r in args.run_ids if r not in known]
        if missing:
            raise InputError(f"delete: no run {', '.join(missing)} in {args.store} (see `runs --store {args.store}`)")
        what = runs.set_index("run_id").loc[args.run_ids]
        listing = one_line("; ".join(f"{r} ({row['method']}, {row['model']}, {row['status']})" for r, row in what.iterrows()))
        if not args.yes:
            if not sys.stdin.isatty():
                raise InputError("delete: not on a terminal; add --yes to confirm deleting " + listing)
            answer = input(f"Delete {listing}{' and their cached calls' if args.calls else ''}? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("nothing deleted", file=sys.stderr)
                return 1
        for run_id in args.run_ids:
            removed = store.delete_run(run_id, calls=args.calls)
            print(f"deleted {run_id}" + (f" and {removed} cached call(s)" if args.calls else " (its cached calls are kept)"),
                  file=sys.stderr)
    return 0


def cmd_metrics(args: argparse.Namespace) -> int:
    from analysis import methods

    with _cache_store(args.store) as store:
        doc = methods.get(args.method).cached_report(store, args.model, config=args.config, n_boot=args.n_boot,
                                                     chance=args.chance)
    if args.model and args.model not in doc["models"] and args.model not in doc.get("published", {}):
        raise InputError(f"model '{args.model}' has no {args.method} answers in {args.store}")
    print(json.dumps(doc, indent=None if args.json else 1, allow_nan=False))
    return 0


def _figure_out(out: Path | None) -> Path:
    """The output file of ``figure``, checked before any report is read: a known extension, a writable folder."""
    from analysis.figures.export import FORMATS

    if out is None:
        raise InputError("figure: give --out FILE (.svg, .pdf or .png), or --list")
    if out.suffix.lower().lstrip(".") not in FORMATS:
        raise InputError(f"figure --out {out}: unsupported extension '{out.suffix}' (give one of: "
                         + ", ".join(f".{f}" for f in FORMATS) + ")")
    folder = out.resolve().parent
    if out.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise InputError(f"figure --out {out}: cannot write there (no such folder, or not writable)")
    return out


def _method_figures(store: Any, name: str, models: list[str] | None, n_boot: int, *,
                    strict: bool = True) -> dict[str, Any]:
    """{figure name: figure} of method ``name`` on ``store`` for ``models`` (default: every model of its report), from
    its report (``Method.cached_report``, the dashboard's options) and its ``figures`` hook. A model the report
    lacks is an ``InputError`` when ``strict``, else left out (listing every method's figures)."""
    from analysis import methods

    method = methods.get(name)
    doc = method.cached_report(store, n_boot=n_boot)
    unknown = [m for m in models or [] if m not in doc["models"]]
    if unknown and not strict:
        models = [m for m in models or [] if m in doc["models"]]
        if not models:
            return {}
    elif unknown:
        have = ", ".join(sorted(doc["models"])) or "none"
        raise InputError(f"figure --models: {', '.join(unknown)} has no {name} answers in this store (models: {have})")
    return dict(method.figures(doc, models or sorted(doc["models"]))) if method.figures is not None else {}


def cmd_figure(args: argparse.Namespace) -> int:
    """Write one figure of a method (``Method.figures``) with Plotly's static export, or list the names."""
    from analysis import methods

    name = args.method.replace("-", "_") if args.method else None
    if name is not None and name not in method_names():
        raise InputError(f"figure: unknown method '{args.method}' (methods: {', '.join(method_names())})")
    if name is None and not args.list:
        raise InputError("figure: give METHOD and FIGURE, or --list")
    out = None if args.list else _figure_out(args.out)
    with _cache_store(args.store) as store:
        if args.list:
            sizes = store.table_sizes()
            chosen = [name] if name else [m.name for m in methods.all_methods() if m.has_data(sizes)]
            for method in chosen:
                for figure in _method_figures(store, method, args.models, args.n_boot, strict=name is not None):
                    print(f"{method} {figure}")
            return 0
        found = _method_figures(store, name, args.models, args.n_boot)
    if args.figure not in found:
        have = ", ".join(found) or "none for these models"
        what = f"unknown figure '{args.figure}'" if args.figure else "give FIGURE"
        raise InputError(f"figure {args.method}: {what} (figures: {have})")
    from analysis.figures.export import write

    write(found[args.figure], out, scale=args.scale, width=args.width, height=args.height)
    print(f"wrote {one_line(str(out))}", file=sys.stderr)
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    from analysis.demo_store import DEMO_STORE
    from analysis.doc_tables import stale_docs

    with _cache_store(args.store or DEMO_STORE) as store:
        stale = stale_docs(store)
    for path, text in stale.items():
        if args.check:
            print(f"{path}: generated tables differ from the reports (run: python -m analysis docs)", file=sys.stderr)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"rewrote {path}", file=sys.stderr)
    return 1 if args.check and stale else 0


def cmd_reread(args: argparse.Namespace) -> int:
    from analysis.reread import reread

    results = reread(args.store, args.run, log=lambda line: print(one_line(line)))
    counts = {s: sum(r.status == s for r in results) for s in ("changed", "unchanged", "skipped")}
    print(f"{len(results)} run(s): {counts['changed']} changed, {counts['unchanged']} unchanged, {counts['skipped']} skipped")
    return 0


def cmd_parse(args: argparse.Namespace) -> int:
    """Every stdin line read first (a bad line is one error naming it, and nothing is printed), then one
    ``{"valid", "value", "reason"}`` line per reply, from the reader the runs use."""
    from analysis import methods
    from analysis.importers.files import parse_json_line

    reader = next(r for m in methods.all_methods() for r in m.readers if r.kind == args.kind)
    given = []
    for n, line in enumerate(sys.stdin.read().splitlines(), 1):
        if not line.strip():
            continue
        doc = parse_json_line(line, f"stdin line {n}", constants=float)  # a context's NaN: refused by its type
        if not isinstance(doc, dict) or not isinstance(doc.get("reply"), str):
            raise InputError(f'stdin line {n}: needs a "reply" string')
        missing = [f for f in reader.needs if f not in doc and f not in reader.defaults]
        if missing:
            raise InputError(f"stdin line {n}: {args.kind} needs {', '.join(missing)} in the line")
        if doc.get("finish_reason") is not None and not isinstance(doc["finish_reason"], str):
            raise InputError(f"stdin line {n}: field 'finish_reason': text or null")
        if reader.context is not None:  # the run's own types and bounds, checked before any reply is read
            try:
                checked = reader.context.model_validate({**reader.defaults, **doc}).model_dump()
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(str(p) for p in first["loc"])
                raise InputError(f"stdin line {n}: field '{loc}': {first['msg'].removeprefix('Value error, ')}") from None
            doc = {**doc, **checked}
        given.append((n, doc))
    out = []
    for n, doc in given:
        try:
            reading = reader.read(doc["reply"], doc.get("finish_reason"), {**reader.defaults, **doc})
        except (InputError, ValueError, TypeError) as exc:
            raise InputError(f"stdin line {n}: {one_line(str(exc))}") from None
        out.append(json.dumps({"valid": reading.valid, "value": reading.value, "reason": reading.reason},
                              ensure_ascii=False))
    if out:
        print("\n".join(out))
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from analysis import methods

    boards = [m for m in methods.all_methods() if m.leaderboard is not None and args.method in (None, m.name)]
    if not boards:
        have = ", ".join(m.name for m in methods.all_methods() if m.leaderboard is not None)
        raise InputError(f"leaderboard --method {args.method}: that method has no leaderboard (methods with one: {have})")
    with _cache_store(args.store) as store:
        board = boards[0].leaderboard(store, n_boot=args.n_boot, chance=args.chance)
    if args.json:
        print(json.dumps(board, allow_nan=False))
        return 0
    import pandas as pd

    from analysis.chance import vs_chance

    rows = pd.DataFrame([{k: v for k, v in row.items() if k != "chance"}
                         | ({"rank_order vs chance": vs_chance((row["chance"] or {}).get("rank_order"))}
                            if "chance" in row else {}) for row in board["rows"]])
    rows = rows.map(lambda v: one_line(v) if isinstance(v, str) else v)  # stored model names print on one line each
    print(rows.to_string(index=False) if len(rows) else f"no {boards[0].name} results in this store")
    print(f"diversity (1 - Kendall's W): {board['diversity']}; sensitivity: {board['sensitivity']}")
    for gap in board.get("invalid_gaps") or []:
        print(f"warning: not ranked on equal footing — {one_line(gap['text'])}", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from analysis.demo import CONFIGS, DEMO_STORE, build_demo, campaign_configs, refresh_reports

    if args.demo_command == "reports":
        refresh_reports(args.store or DEMO_STORE, args.chance)
        return 0

    if args.model and args.store is None:
        raise InputError("demo build --model: give --store PATH (the bundled demo store holds the embedded model's runs only)")
    if args.svs and args.store is None:
        raise InputError("demo build --svs: give --store PATH (the bundled demo holds no text of a canonical instrument)")
    configs = campaign_configs(args.model, args.answer_mode) if args.model else CONFIGS
    build_demo(args.store or DEMO_STORE, args.size, args.methods, args.concurrency, configs=configs, cancel=_cancel_on_sigint(),
               svs=args.svs, rederive=args.rederive, chance_sims=args.chance,
               imports=False if args.no_imports else args.imports)
    return 0


COMMANDS = {
    "run": cmd_run, "resume": cmd_resume, "export-requests": cmd_export_requests, "import-replies": cmd_import_replies, "runs": cmd_runs, "models": cmd_models, "export": cmd_export,
    "import": cmd_import, "metrics": cmd_metrics, "delete": cmd_delete, "leaderboard": cmd_leaderboard, "demo": cmd_demo,
    "report": cmd_report, "table": cmd_table, "parse": cmd_parse, "figure": cmd_figure,
    "reread": cmd_reread, "docs": cmd_docs, "label": cmd_label,
}


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    user_input = USER_INPUT.set(True)  # a model spec parsed from these arguments is one the user configured
    try:
        return COMMANDS[args.command](args)
    except RoleScopeError as exc:
        print(f"error: {one_line(redact(str(exc)))}", file=sys.stderr)
        return exc.exit_code
    except ValidationError as exc:  # a plan or option out of range (--samples 0, --messages -2): bad input
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or exc.title
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        print(f"error: {exc.title} field '{one_line(where)}': "
              f"{one_line(redact(str(first['msg']).removeprefix('Value error, ')))}{more}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # last resort: still one line, still key-free
        print(f"error: {type(exc).__name__}: {one_line(redact(str(exc)))}", file=sys.stderr)
        return 1
    finally:
        USER_INPUT.reset(user_input)


if __name__ == "__main__":
    sys.exit(main())
