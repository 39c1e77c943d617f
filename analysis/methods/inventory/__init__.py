"""Personality inventories given to personas (Serapio-García et al. 2023, *Personality Traits in Large Language
Models*, arXiv 2307.00184; Nature Machine Intelligence 2025): any Likert inventory, IPIP-NEO-120/300 scored with
``five-factor-e``.

Modules: ``inventory`` (the file format and its loaders), ``personas`` (biographies and the shaping design),
``prompts`` (persona instruction, item preamble and postamble, option orders), ``parse`` and ``readers`` (reply ->
option), ``session`` (one independent call per persona × item × order), ``scoring`` (item, domain and facet scores,
norm percentiles), ``psychometrics`` (α, ω, λ6, test–retest, MTMM, shaping), ``testings`` (repeated testings of one
respondent, the human row), ``human_norm`` (a norm from people's answers), ``importer`` (PersonaLLM) and
``behavioral`` (ChatGPT-Behavioral), ``report``, ``chance``, ``compare``, ``can_show``, ``samples``, ``published``,
``method``.
"""

from __future__ import annotations

#: The Big Five domains by their usual letters, in the order the pages show them.
BIG_FIVE: dict[str, str] = {"O": "Openness", "C": "Conscientiousness", "E": "Extraversion", "A": "Agreeableness",
                            "N": "Neuroticism"}
