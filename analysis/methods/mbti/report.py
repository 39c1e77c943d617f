"""The MBTI report: the ``metrics mbti --json`` document.

    {"models": {NAME: {"subjects": {SUBJ: {"scores": {"E": x, "N": x, "T": x, "J": x, "A": x},
                                           "type": "ENTJ-T", "consistency": x, "n_testings": n,
                                           "invalid": n,
                                           "uncertainty": {"scores_ci": {DIM: [lo, hi]}, "n_statements": {DIM: n},
                                                           "letters": {DIM: {"letter", "decided", "reason"}},
                                                           "type": "EN[T/F]J-T", "n_decided": k, "n_boot": B}}},
                       "robustness": {SUBJ: x},
                       "distributions": [{"subject", "order_mode", "statements": frame}],
                       "fairness": {"Men|Women": x, "Boys|Girls": x},
                       "type_gaps": {"Men|Women": {"dimensions": {DIM: {"diff": number, "ci": [lo, hi],
                                                                        "n_statements", "n_shared", "letters": [a, b],
                                                                        "letters_differ"}},
                                                   "n_letters_differ": k}},
                       "headlines": {"mbti_consistency": {"value", "reason", "coverage", "chance_reason"?},
                                     "mbti_decided": {"value", "reason", "coverage", "note"}},
                       "counts": [...]}}}

A subject's scores, type and consistency come from its permuted-order testings (the paper's unbiased prompts), or
from its fixed-order ones when it has no permuted testing; ``invalid`` counts the invalid answers of those testings.
Only the runs of one configuration count (the latest unless ``config`` names another; ``analysis.runs.comparable``);
each model's entry also carries ``configuration`` (the id used) and ``configurations`` (every one found, how each
differs). ``robustness`` lists the subjects that have both orders. A fairness pair is null unless both of its
subjects are present (names matched case-insensitively). Numbers that cannot be computed are null.

The headline ``mbti_consistency`` is the mean over the subjects whose consistency is defined: its ``coverage`` says
over how many of the model's subjects ("7 of 8 subjects"), and when that is a subset its ``chance_reason`` says why
it has no chance verdict (the null band is of the mean over every subject). With one testing per subject (the
published ChatGPT-MBTI answers) it is undefined and says why in a sentence (``no_consistency_reason``).

``uncertainty``, ``type_gaps`` and the headline ``mbti_decided`` (``analysis.methods.mbti.uncertainty``): a bootstrap
over the statements (``n_boot`` resamples, seeded) gives each dimension score a 95 % CI; a letter whose CI includes 50
is undecided ("E/I"); ``mbti_decided`` is the mean over subjects of the decided letters of the four (E/I, N/S, T/F, J/P),
the headline a single testing supports; ``type_gaps`` holds Men − Women (and Boys − Girls) per dimension with a paired
CI over statements and whether the letters differ.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.errors import InputError
from analysis.methods.base import counts, frame_doc, number
from analysis.methods.mbti import chance as mbti_chance
from analysis.methods.mbti.compare import mbti_subject_spread
from analysis.methods.mbti.metrics import answer_distribution, model_metrics
from analysis.methods.mbti.scoring import scores_by_testing
from analysis.methods.mbti.answers import selected_answers
from analysis.methods.mbti.families import FAMILY
from analysis.methods.mbti.subjects import FAIRNESS_PAIRS
from analysis.methods.mbti.uncertainty import (
    TYPE_BOOT, chosen_answers, decided_headline, subject_uncertainty, type_gaps,
)
from analysis.runs import comparable
from analysis.runs.store import Store


def metrics_json(store: Store, model: str | None = None, config: comparable.Chosen = None, *,
                 chance: int = 0, n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The ``metrics mbti --json`` document for every model in the store (or only ``model``), each on one
    configuration (``configuration``: its id; ``configurations``: every one found, see ``analysis.runs.comparable``),
    with its ``reliability`` and, when ``chance`` > 0, its null bands (``analysis.methods.mbti.chance``)."""
    selection = comparable.select(store, FAMILY, model=model, config=config)
    answers = selected_answers(store, selection=selection)
    if model is not None and answers.empty:
        raise InputError(f"no MBTI answers for model '{model}' in {store.path}")
    scores = scores_by_testing(answers)
    models = {}
    for name in dict.fromkeys(scores["model"]):
        mine = answers[answers["model"] == name]
        doc = model_metrics(scores[scores["model"] == name]) | selection.document(name)
        for subject, sd in mbti_subject_spread(scores[scores["model"] == name]).items():
            if subject in doc["subjects"]:
                doc["subjects"][subject]["sd"] = sd  # the whiskers of the dimension chart: SD over its testings
        defined = [s["consistency"] for s in doc["subjects"].values() if s["consistency"] is not None]
        left_out = [subject for subject, s in doc["subjects"].items() if s["consistency"] is None]
        # a type's letters are a result, not a display option: decided on TYPE_BOOT resamples whatever n_boot the
        # caller asks for its other CIs (0 = none), so the Overview, the pages and --json show the same type
        type_boot = TYPE_BOOT if n_boot > 0 else 0
        uncertainty = {s: subject_uncertainty(chosen_answers(mine, s), n_boot=type_boot, seed=seed)
                       for s in doc["subjects"]}
        for subject, u in uncertainty.items():
            doc["subjects"][subject]["uncertainty"] = u
        doc["type_gaps"] = type_gaps(mine, doc["subjects"], FAIRNESS_PAIRS, n_boot=type_boot, seed=seed)
        doc["headlines"] = {"mbti_consistency": number(
            sum(defined) / len(defined) if defined else None,
            no_consistency_reason(doc["subjects"], selection.used[name].signature),
            n=len(defined), of=len(doc["subjects"]), unit="subjects",
            chance_reason=f"no chance verdict: the null band is of the mean over all {len(doc['subjects'])} subjects, "
                          f"and {len(left_out)} ({', '.join(left_out)}) "
                          f"{'has' if len(left_out) == 1 else 'have'} no consistency (needs ≥ 2 scored testings)"
            if left_out and defined else None),
            "mbti_decided": decided_headline(uncertainty, type_boot)}
        doc["counts"] = [counts("invalid answers", int((mine["valid"] != 1).sum()), len(mine))]
        doc["reliability"] = mbti_chance.model_reliability(mine)
        doc["distributions"] = distributions(mine)
        if chance > 0:
            doc["chance"] = mbti_chance.model_chance(mine, doc, n_sims=chance, store=store)
        models[name] = doc
    return {"models": models}


def no_consistency_reason(subjects: dict[str, Any], signature: dict[str, Any]) -> str:
    """Why no subject has a consistency, in a sentence: a source that asked each subject once, a configuration that
    tested each once, or too few scored testings."""
    once = all(s.get("n_testings", 0) < 2 for s in subjects.values())
    if once and signature.get("imported"):
        return (f"this source ({signature.get('source') or 'an import'}) asked each subject once; consistency needs two "
                "testings of a subject")
    if once:
        return ("each subject was tested once in this configuration; consistency needs two testings of a subject "
                "(run with --testings 2 or more)")
    return "no subject has a defined consistency (needs ≥ 2 scored testings)"


def distributions(answers: pd.DataFrame) -> list[dict[str, Any]]:
    """What the answers-per-statement chart draws, per subject × option order of one model's answers: the option
    counts of each statement over the testings (``metrics.answer_distribution``, the paper's Figure 3) with its
    dimension and wording, as ``{"subject", "order_mode", "statements": frame document}``."""
    out = []
    for (subject, order), mine in answers.groupby(["subject", "order_mode"], sort=False):
        dist = answer_distribution(mine)
        text = mine.drop_duplicates("statement_id").set_index("statement_id")
        dist.insert(1, "dimension", dist["statement_id"].map(text["dimension"]))
        dist.insert(2, "statement", dist["statement_id"].map(text["statement"]) if "statement" in text else None)
        out.append({"subject": subject, "order_mode": order, "statements": frame_doc(dist)})
    return out


def report(store: Store, model: str | None = None, *, config: comparable.Chosen = None, n_boot: int = 1000,
           chance: int = 0) -> dict[str, Any]:
    """``Method.report``: ``metrics_json`` (``n_boot``: the statement bootstrap of each subject's scores and type gaps,
    ``analysis.methods.mbti.uncertainty``)."""
    return metrics_json(store, model, config=config, chance=chance, n_boot=n_boot)


def where_they_differ(a: Any, b: Any) -> dict[str, dict[str, Any]]:
    """``Method.gaps``: the statements where the two sides' mean signed agreement differs most
    (``compare.statement_gaps``)."""
    from analysis.methods.mbti.compare import statement_gaps

    return {"statements": frame_doc(statement_gaps(*(selected_answers(s.store, s.model, config=s.config) for s in (a, b))))}


def compare_sides(a: Any, b: Any, *, n_boot: int = 1000) -> list[Any]:
    """``Method.compare``: the two sides' headlines with paired CIs over their testings (``compare.compare_mbti``)."""
    from analysis.methods.mbti.compare import compare_mbti

    ta, tb = (scores_by_testing(selected_answers(s.store, s.model, config=s.config)) for s in (a, b))
    return compare_mbti(a.doc, b.doc, ta, tb, n_boot=n_boot)
