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
