"""The values method's generated doc tables (``analysis.doc_tables``), from its report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.doc_tables import fmt, table
from analysis.methods.values.report_types import fit_index_text

LEE = "brucewlee/values"
FIRST = "first_asking"


def _lee_models(report: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any], Mapping[str, Any]]]:
    out = []
    for model, doc in sorted(report["models"].items()):
        note = next((n for n in doc.get("imported") or [] if n.get("source") == LEE), None)
        if note is not None:
            out.append((model, doc, note))
    return out


def lee_values_structure(report: Mapping[str, Any]) -> str:
    """Lee et al.'s models: circumplex Stress and order distance, CFA groups fitted (of 4) and their CFI, re-test
    rank-order and ipsative stability with 95 % CIs over the re-asked personas."""
    rows = []
    for model, doc, note in _lee_models(report):
        first = (doc.get("contexts") or {}).get(FIRST) or {}
        groups = first.get("cfa") or {}
        fitted = {g: v for g, v in groups.items() if v.get("converged") and v.get("cfi") is not None}
        ci = doc.get("ci") or {}
        ro, ip = ci.get("rank_order") or {}, ci.get("ipsative") or {}
        same = note.get("retest_identical_replies") or {}
        rows.append([model, str(doc.get("n_personas")), fmt(first.get("stress"), 3), fmt(first.get("order_distance"), 1),
                     f"{len(fitted)} of {len(groups)}: "
                     + (", ".join(f"{g} {fit_index_text(v['cfi'], 2)}" for g, v in fitted.items()) or "none"),
                     f"{fmt(doc.get('rank_order'))} [{fmt(ro.get('lo'))}, {fmt(ro.get('hi'))}]",
                     f"{fmt(doc.get('ipsative'))} [{fmt(ip.get('lo'))}, {fmt(ip.get('hi'))}]",
                     f"{same.get('n', 0):,} of {same.get('of', 0):,}"])
    return table(["model", "personas", "Stress (first asking)", "order distance", "CFA groups fitted (CFI)",
                  "re-test rank-order [95 % CI]", "ipsative [95 % CI]", "re-asked replies identical"], rows)


def lee_values_readers(report: Mapping[str, Any]) -> str:
    """Lee et al.'s models: RoleScope's values reader against the authors' parsed letter, per class, and the most
    frequent difference (authors' letter → RoleScope's)."""
    rows = []
    for model, doc, note in _lee_models(report):
        agree = note.get("reader_agreement") or {}
        total = sum(c["n"] for c in agree.values())
        different = agree.get("both_different") or {}
        top = next(iter(different.get("pairs") or []), None)
        rows.append([model, f"{total:,}", *(f"{(agree.get(k) or {}).get('n', 0):,}" for k in
                                             ("both_equal", "both_different", "only_source", "only_reader",
                                              "both_invalid")),
                     f"{top[0]} ({top[1]:,})" if top else "—"])
    return table(["model", "answers", "same letter", "different", "only the authors'", "only RoleScope's",
                  "neither", "most frequent difference"], rows)
