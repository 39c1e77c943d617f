"""The options of a PersonaGym run (``run personagym`` flags and the Run page's form): the protocol's defaults are the
reference's; the default materials (environments, personas, rubrics, judge prompt) are RoleScope's own, and
``--environments``, ``--personas``, ``--questions`` and ``--rubrics`` take the reference's (docs/methods/personagym.md)."""

from __future__ import annotations

from typing import Literal

from pathlib import Path

from analysis.cli_types import csv_list, non_negative_float, non_negative_int, positive_int, probability
from analysis.methods.options import Options, option


class PersonaGymOptions(Options):
    personas: str = option("all", "all (the 60 bundled, RoleScope's own), N (a seeded sample of them) or a personas file "
                                 "(.json list / .txt, e.g. the reference's 200 benchmark_personas as a JSON list)")
    persona_ids: list[str] | None = option(
        None, "only these personas of --personas (comma list of ids, in this order)", parse=csv_list, min_length=1)
    limit_personas: int | None = option(None, "only the first N personas of a personas file", parse=positive_int, ge=1)
    questions: Path | None = option(
        None, "question file or folder (<persona>.json = {task: [questions]}): fixed questions, no generation", parse=Path)
    questions_per_task: int = option(10, "questions per task and persona (default 10)", parse=positive_int, ge=1)
    evaluators: list[str] = option(help="comma list of grading model specs (default: the --model itself)", factory=list)
    generator: str | None = option(
        None, "model that picks environments, writes questions and score examples (default: the first evaluator)")
    environments_per_persona: int | None = option(
        None, "cap: ask for N environments and keep at most N (default: the generator picks as many relevant ones as it "
              "likes, the reference's behaviour)", parse=positive_int, ge=1)
    environments: str = option(
        "default", "'default' (the bundled 153, RoleScope's own) or a .json/.txt file of names (e.g. the reference's 150 "
                   "settings_list as a JSON list)")
    rubrics: str = option(
        "default", "'default' (bundled, RoleScope's wording and judge prompt), a rubrics .json, or a folder of rubric .txt "
                   "files such as the reference's PersonaGym/rubrics (sent to the judges as written, with the judge system "
                   "prompt beside it: PersonaGym/prompts/rubric_grading/sys_prompt.txt, or sys_prompt.txt in the folder)")
    max_retries: int = option(
        3, "extra generator attempts when environments or questions come out short (default 3)", parse=non_negative_int,
        ge=0)
    examples_retries: int = option(
        0, "extra attempts when a question's score examples are incomplete (default 0: one call, the reference's)",
        parse=non_negative_int, ge=0)
    skip_incomplete_examples: bool = option(
        False, "leave ungraded the questions whose score examples are incomplete (default: graded with the examples "
               "that parsed and the rubric's criteria, and marked)")
    seed: int = option(0, "seed of the persona sample and of the generator's sampling")
    temperature: float | None = option(
        None, "the persona agent's temperature (default 0.9, the reference's)", parse=non_negative_float, ge=0)
    top_p: float | None = option(
        None, "the persona agent's top_p (default 0.9, the reference's)", parse=probability, ge=0, le=1)
    max_tokens: int = option(
        3000, "length limit of the agent's answers (default 3000, the reference's); answers that hit it are flagged and "
              "counted", parse=positive_int, ge=1)
    answer_format: Literal["text", "json"] = option(
        "text", "json: each grade as a JSON object {reasoning, score} the endpoint constrains to a JSON schema (OpenAI "
                "response_format, vLLM guided decoding, llama.cpp); text: the paper's 'final score is N' (default)")
    call_max_tokens: int = option(
        3000, "length limit of the selection, question, examples and grading calls (default 3000, the reference's)",
        parse=positive_int, ge=1)
