"""Sentences the trust page shows about a metrics document (pure text from the JSON; no Streamlit)."""

from __future__ import annotations

from typing import Any

_SETS = {"paper": "the paper's Table 5 traits and levels of the split",
         "rolescope15": "RoleScope's earlier 15 attributes (--attribute-set rolescope15)"}


def personas_text(personas: dict[str, dict[str, Any]]) -> str:
    """Where the personas of each level come from: the generated bank (the offline default) or a GenAgents file."""
    if not personas:
        return "Personas: unknown (imported results)."
    parts = []
    for level, info in personas.items():
        split, n = info.get("split", "test"), info.get("n")
        if info.get("imported"):
            parts.append(f"{level}: the source's own personas ({info.get('source')}, condition {info.get('condition')}), "
                         "each described by the source's persona prompt (stored only when imported with its text; the "
                         "bundled demo keeps numbers only)")
            continue
        attrs = _SETS.get(info.get("attribute_set", ""), str(info.get("attribute_set")))
        if not info.get("source"):
            what = "personas of a bank the run did not record"
        elif info.get("source") == "genagents" and info.get("persona_form"):
            what = (f"{n} personas sampled from the whole GenAgents bank `{info.get('path')}` ({info.get('size')} agents, "
                    f"sample seed {info.get('seed')}), Big Five drawn at random, described by the attributes of the "
                    "paper's App. C.4 persona; a persona whose level of an attribute is not one of its test levels is "
                    "left out of that attribute's groups only (counted per attribute)")
        elif info.get("source") == "genagents":
            what = (f"{n} personas of the {split} split of the GenAgents bank `{info.get('path')}` ({info.get('size')} "
                    f"eligible agents, sample seed {info.get('seed')}), Big Five drawn at random")
        else:
            what = (f"{n} personas of the {split} split of the generated bank (the offline default: {info.get('size')} "
                    f"personas drawn uniformly, seed {info.get('seed')}; the paper used the GenAgents bank — pass "
                    "`--personas gss_agents.jsonl` to do the same)")
        parts.append(f"{level}: {what}; described by {attrs}")
    return "Personas — " + "; ".join(parts) + "."


def invalid_text(doc: dict[str, Any]) -> str:
    """The unparseable replies per kind ("27 beliefs, 6 rounds"), and how many planned answers got no reply at all
    (rounds never played after an invalid one, failed calls), which are not unparseable replies."""
    replies, rows = doc.get("invalid_replies"), doc.get("invalid") or {}
    if replies is None:  # a document from before replies were told apart from planned answers
        return ", ".join(f"{n} {kind}" for kind, n in rows.items())
    parts = []
    for kind, n in replies.items():
        missing = rows.get(kind, n) - n
        parts.append(f"{n} {kind}" + (f" (and {missing} with no reply: never played or failed)" if missing else ""))
    return ", ".join(parts)


def mean_sd_text(summary: dict[str, Any]) -> str:
    """'$6.92 ± 2.01 (53 of 53 valid)' from an ``amount_sent`` entry; '—' with the reason when undefined."""
    mean, sd = summary.get("mean") or {}, summary.get("sd") or {}
    valid = f"{summary.get('valid', 0)} of {summary.get('n', 0)} valid"
    if mean.get("value") is None:
        return f"— ({mean.get('reason') or 'undefined'}; {valid})"
    spread = f" ± {sd['value']:.2f}" if sd.get("value") is not None else f" (SD —: {sd.get('reason')})"
    return f"${mean['value']:.2f}{spread} ({valid}){bound_text(mean)}"


def bound_text(entry: dict[str, Any]) -> str:
    """'; 72 % read: every unread reply at $0 … at $10 gives $5.89 … $8.72' when a number's unread replies could move it
    (``coverage.bound``: under 90 % read), else ''."""
    cov = entry.get("coverage") or {}
    bound = cov.get("bound")
    if not bound:
        return ""
    share = cov.get("read_share")
    return (f"; {share:.0%} read" if share is not None else "") + \
        f": {bound['note']} gives {bound['lo']:.2f} … {bound['hi']:.2f}"


def shift_text(shift: dict[str, Any] | None) -> str:
    """'+$0.02 [−0.66, +0.74] (53 personas)' for a condition's paired shift from the base condition; '—' with the
    reason when undefined; '' for the base condition itself (no shift)."""
    if not shift:
        return ""
    mean = shift.get("mean") or {}
    if mean.get("value") is None:
        return f"— ({mean.get('reason') or 'undefined'})"
    lo, hi = shift.get("ci") or (None, None)
    ci = f" [{lo:+.2f}, {hi:+.2f}]" if lo is not None and hi is not None else f" (CI —: {shift.get('ci_reason')})"
    return f"{mean['value']:+.2f}{ci} ({shift.get('n_pairs', 0)} personas)"


def vs_human_text(entry: dict[str, Any]) -> str:
    """The ``trust_vs_human`` headline in a sentence: the difference, its CI and units, or '—' with the reason."""
    if entry.get("value") is None:
        return f"— ({entry.get('reason') or 'undefined'})"
    ci = entry.get("ci") or {}
    interval = (f", 95 % CI [{ci['lo']:+.2f}, {ci['hi']:+.2f}] ({entry.get('ci_units')})"
                if ci.get("lo") is not None and ci.get("hi") is not None else "")
    cov = entry.get("coverage") or {}
    read = f" over {cov['text']}" if cov.get("n", 0) < cov.get("of", 0) else ""
    return f"{entry['value']:+.2f} {entry.get('unit', '$')}{interval}{read}{bound_text(entry)}"


#: What the forecast view says for a model whose answers are imported: no public source holds a real model's
#: forecasts; which configuration has them, and the command that makes them for a real model (``docs/cli.md``).
FORECASTS_IMPORTED = (
    "No public source holds a real model's forecasts: agent-trust published single-round amounts sent (and multi-round "
    "games between two LLM players, with no forecasts). The configuration that has forecasts is the embedded model's "
    "structured runs, `smollm2-json` (the individual level with `--answer-format json`). To get them for a real model, "
    "run the individual level against it: `python -m analysis run trust --model openai:gpt-4o-mini --level individual "
    "--rounds 6 --archetypes 1,3,5 --answer-format json --store my.db` (any model spec instead of "
    "`openai:gpt-4o-mini`; drop `--answer-format json` for the paper's free text).")


def count_text(entry: dict[str, Any] | None) -> str:
    """'4 of 53 (7.5 %)' from a ``counts`` entry; '—' where there is none (a report from before it was counted)."""
    if not entry:
        return "—"
    share = f" ({100 * entry['rate']:.1f} %)" if entry.get("rate") is not None else ""
    return f"{entry.get('count', 0)} of {entry.get('n', 0)}{share}"


def imported_rows(imported: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per imported configuration (condition): the amount sent by the source's extraction and by RoleScope's
    reading, the replies that reading left invalid, and how often the two agree."""
    rows = []
    for entry in imported.values():
        agree = entry.get("reader_agreement") or {}
        both = [agree.get(k, {}).get("n", 0) for k in ("both_equal", "both_different")]
        rows.append({"condition": entry.get("condition"), "personas": (entry.get("amount_sent") or {}).get("n"),
                     "source: mean ± SD": mean_sd_text(entry.get("amount_sent") or {}),
                     "RoleScope's reading: mean ± SD": mean_sd_text(entry.get("amount_sent_reader") or {}),
                     "invalid replies (RoleScope's reading)": count_text(entry.get("invalid_replies")),
                     "equal where both valid": f"{both[0]} of {sum(both)}",
                     "shift from base, $ [95 % CI] (paired)": shift_text(entry.get("shift_from_base"))})
    return rows


def agreement_rows(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The reader-agreement table of one imported configuration: class, personas, example persona ids."""
    return [{"class": d.get("label", cls), "personas": d.get("n", 0),
             "examples (persona ids)": ", ".join(d.get("examples") or [])}
            for cls, d in (entry.get("reader_agreement") or {}).items()]
