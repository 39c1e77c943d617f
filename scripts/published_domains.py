"""Write ``analysis/methods/inventory/published_domains.json`` from the figures_data CSVs of the paper's repository.

    python scripts/published_domains.py PATH/TO/personality_in_llms [--out FILE]

Source: Serapio-García et al. 2025 (Nature Machine Intelligence), github google-deepmind/personality_in_llms @ c3fea44,
``figures_data/convergent_validity.csv`` and ``figures_data/external_validity_<DOMAIN>.csv`` (materials CC-BY-4.0).
Only the numbers are taken, with the model ids, the scale codes and the one human column's label; the files' notes
(free text in the last column) are left out. Scale names are RoleScope's own list (``SCALES``); each code is a scale of
the study's external-rating admin session (``admin_sessions/prod_run_01_external_rating.json``), where the test checks
them.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

REPOSITORY = "github google-deepmind/personality_in_llms"
COMMIT = "c3fea44"
PAPER = ("Serapio-García et al. 2025, A psychometric framework for evaluating and shaping personality traits in large "
         "language models, Nature Machine Intelligence (doi 10.1038/s42256-025-01115-6)")
#: The repository's figures_data/README says the files are "the source of data for some (not all) of the figures"
#: without naming which figure or table: none is claimed here.
FIGURE = "figure or table not named by the repository's figures_data README"
OUT = Path(__file__).resolve().parents[1] / "analysis" / "methods" / "inventory" / "published_domains.json"

#: The paper's domain codes -> RoleScope's domain letter and name.
DOMAINS = {"EXT": ("E", "Extraversion"), "AGR": ("A", "Agreeableness"), "CON": ("C", "Conscientiousness"),
           "NEU": ("N", "Neuroticism"), "OPE": ("O", "Openness")}
#: Criterion scale codes of the external-validity files -> (instrument, scale name), as the study's admin session
#: defines them (``measures.<instrument>.scales.<code>``).
SCALES = {
    "PA": ("PANAS", "PANAS Positive Affect"), "NA": ("PANAS", "PANAS Negative Affect"),
    "ACHV": ("PVQ", "PVQ-RR Achievement"), "CONF": ("PVQ", "PVQ-RR Conformity"), "SCRT": ("PVQ", "PVQ-RR Security"),
    "PHYS": ("BPAQ", "BPAQ Physical Aggression"), "VRBL": ("BPAQ", "BPAQ Verbal Aggression"),
    "ANGR": ("BPAQ", "BPAQ Anger"), "HSTL": ("BPAQ", "BPAQ Hostility"),
    "CSE": ("SSCS", "SSCS Creative Self-Efficacy"), "CPI": ("SSCS", "SSCS Creative Personal Identity"),
}
#: The source's model ids -> readable names (those of the paper's Table 1, as ``published.json`` spells them).
MODELS = {
    "palm_62b_q": "PaLM 62B", "flan_palm_8b_q": "Flan-PaLM 8B", "flan_palm_62b_q": "Flan-PaLM 62B",
    "flan_palm_540b_q": "Flan-PaLM 540B", "flan_palmchilla_62b_q": "Flan-PaLMChilla 62B",
    "gpt-3.5-turbo-0125": "GPT-3.5 Turbo", "Llama-2-7b": "Llama 2 7B", "Llama-2-13b": "Llama 2 13B",
    "Llama-2-70b": "Llama 2 70B", "Llama-2-7b-chat": "Llama 2-Chat 7B", "Llama-2-13b-chat": "Llama 2-Chat 13B",
    "Llama-2-70b-chat": "Llama 2-Chat 70B", "Mistral-7B-v0.1": "Mistral 7B v0.1",
    "Mistral-7B-Instruct-v0.1": "Mistral 7B Instruct v0.1", "Mixtral-8x7B-v0.1": "Mixtral 8x7B v0.1",
    "Mixtral-8x7B-Instruct-v0.1": "Mixtral 8x7B Instruct v0.1", "gpt-4o-mini": "GPT-4o mini", "gpt-4o": "GPT-4o",
}


def _source(file: str) -> str:
    return f"{PAPER}; {FIGURE}; {REPOSITORY} @ {COMMIT}, {file}"


def _read(path: Path) -> tuple[list[str], list[list[str]]]:
    """Header and rows, cells stripped (``csv``, not pandas: the scale code "NA" must stay a string)."""
    with path.open(newline="", encoding="utf-8") as fh:
        header, *rows = [[c.strip() for c in row] for row in csv.reader(fh)]
    return header, rows


def convergent(root: Path) -> dict[str, Any]:
    """figures_data/convergent_validity.csv: per model, IPIP-NEO vs BFI convergent r per domain and the Avg."""
    file = "figures_data/convergent_validity.csv"
    header, rows = _read(root / file)
    columns = header[2:]  # "", "model_id", then the domains and Avg
    if columns != [*DOMAINS, "Avg"]:
        raise ValueError(f"{file}: unexpected columns {columns}")
    models = {row[1]: {c: float(v) for c, v in zip(columns, row[2:])} for row in rows if row[1]}
    return {"file": file, "source": _source(file), "columns": columns, "models": models}


def external(root: Path, domain: str, model_ids: list[str]) -> dict[str, Any]:
    """figures_data/external_validity_<domain>.csv: per model, r of the IPIP-NEO domain with each criterion scale;
    a column that is no model id but holds numbers is the human comparator (its header, e.g. a citation, is its
    label); columns without a number (the stray last one) and rows without a scale code (spacers, notes) are left out."""
    file = f"figures_data/external_validity_{domain}.csv"
    header, rows = _read(root / file)
    data = [row for row in rows if len(row) > 1 and row[1]]
    scales = [row[1] for row in data]
    unknown = sorted(set(scales) - set(SCALES))
    if unknown:
        raise ValueError(f"{file}: scale codes {unknown} are not in SCALES")
    out: dict[str, Any] = {"file": file, "source": _source(file), "scales": scales, "human": None, "models": {}}
    for k, name in enumerate(header[2:], start=2):
        cells = [row[k] if k < len(row) else "" for row in data]
        if not any(cells):
            continue
        values = {s: float(v) for s, v in zip(scales, cells)}
        if name in model_ids:
            out["models"][name] = values
        elif out["human"] is None:
            out["human"] = {"label": name, "values": values}
        else:
            raise ValueError(f"{file}: a second column that is no model id: {name!r}")
    missing = sorted(set(model_ids) - set(out["models"]))
    if missing:
        raise ValueError(f"{file}: no column for {missing}")
    return out


def build(root: Path) -> dict[str, Any]:
    """The bundled document (``analysis.methods.inventory.published.domains`` describes it)."""
    conv = convergent(root)
    ids = list(conv["models"])
    unnamed = sorted(set(ids) - set(MODELS))
    if unnamed:
        raise ValueError(f"model ids without a readable name: {unnamed}")
    used = {s for d in DOMAINS for s in external(root, d, ids)["scales"]}
    return {
        "source": f"{PAPER}; per-domain figures from {REPOSITORY} @ {COMMIT}, figures_data/*.csv ({FIGURE}); "
                  "IPIP-NEO-300 against BFI and the criterion scales, unshaped persona descriptions, 1,250 simulated "
                  "response profiles per model; materials CC-BY-4.0",
        "repository": REPOSITORY, "commit": COMMIT,
        "models": {m: MODELS[m] for m in ids},
        "domains": {code: {"domain": letter, "name": name} for code, (letter, name) in DOMAINS.items()},
        "scales": {code: {"instrument": inst, "name": name} for code, (inst, name) in SCALES.items() if code in used},
        "convergent": conv,
        "external": {d: external(root, d, ids) for d in DOMAINS},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="a checkout of google-deepmind/personality_in_llms (@ c3fea44)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    doc = build(args.root)
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(doc['models'])} models, {sum(len(e['scales']) for e in doc['external'].values())} criterion scales "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
