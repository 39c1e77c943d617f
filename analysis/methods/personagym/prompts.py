"""The prompts of the PersonaGym stages (RoleScope's wording, after the paper's Appendix A).

The structure (roles, message count and order, decoding) is the reference's (github vsamuel2003/PersonaGym,
``code/run.py``, ``code/utils.py``); the wording is RoleScope's, except the persona prompt (the reference's own) and a
rubric loaded from the user's copy of the
reference's ``rubrics/*.txt`` (``--rubrics PATH``), which is sent as written, with the judge's system prompt of that
clone (``prompts/rubric_grading/sys_prompt.txt``; ``data.load_judge_system``) in place of ``JUDGE_SYSTEM``. Every prompt asks for an output the parsers in ``analysis.methods.personagym.parse`` read: a JSON list
(environments, questions), "Score k: ..." lines (score examples), and a last sentence "Therefore,
the final score is N." (grades). The persona agent gets the persona in its system prompt and each
question alone as the user message.
"""

from __future__ import annotations

from analysis.llm.structured import TEXT, obj, whole
from analysis.methods.personagym import SCORES
from analysis.methods.personagym.data import Rubric

#: The reference's persona prompt, word for word (``code/utils.py``: ``persona_prompt``); its personas are noun phrases
#: ("A 71-year-old retired nurse from Italy, ..."), which "Adopt the identity of" takes as written.
AGENT_SYSTEM = ("Adopt the identity of {persona}. Answer the questions while staying in strict accordance with the nature "
                "of this identity.")

JUDGE_SYSTEM = (
    "You are a careful judge of role-play. You grade how well a response fits a given persona on one evaluation "
    "task, strictly and fairly, following the rubric you are given."
)


def agent_messages(persona: str, question: str) -> list[dict[str, str]]:
    """System prompt instantiating the persona, then the question as the user's message."""
    return [{"role": "system", "content": AGENT_SYSTEM.format(persona=persona)}, {"role": "user", "content": question}]


def environment_prompt(persona: str, environments: list[str], n: int | None = None) -> list[dict[str, str]]:
    """Ask for the environments of the list most relevant to the persona, as a JSON list of names: as many as the
    model finds relevant (``n`` None, the reference's ``select_settings``), or exactly ``n``."""
    listing = "\n".join(f"- {name}" for name in environments)
    if n is None:
        choose, reply = ("Choose the environments from the list that are relevant to this person: the ones in which they "
                         "are most likely to find themselves, or which would reveal the most about them.",
                         "Reply with a JSON list of the environment names you chose")
    else:
        choose, reply = (f"Choose the {n} environments from the list in which this person is most likely to find "
                         "themselves, or which would reveal the most about them.",
                         f"Reply with a JSON list of exactly {n} environment names")
    text = (
        f"Below are a persona and a list of environments. {choose}\n\n"
        f"Persona: {persona}\n\nEnvironments:\n{listing}\n\n"
        f"{reply}, copied exactly as written in the list, and nothing else."
        "\n\nSelected environments:"
    )
    return [{"role": "user", "content": text}]


def question_prompt(persona: str, environments: list[str], rubric: Rubric, n: int) -> list[dict[str, str]]:
    """Ask for n questions for one task, set in the persona's environments, as a JSON list of strings."""
    text = (
        f"You write test questions for a role-play evaluation. The questions will be asked directly to someone "
        f"playing the persona below, and they test one evaluation task.\n\n"
        f"Persona: {persona}\n"
        f"Environments: {'; '.join(environments) if environments else '(any setting that suits the persona)'}\n"
        f"Evaluation task: {rubric.task} ({rubric.description})\n"
        f"How to write the questions: {rubric.question_guidance}\n\n"
        f"Write exactly {n} different, challenging questions, each set in one of the environments and addressed to the "
        f"persona as \"you\". Reply with a JSON list of {n} strings and nothing else.\n\nQuestions:"
    )
    return [{"role": "user", "content": text}]


def criteria_text(rubric: Rubric) -> str:
    return "\n".join(f"Score {s}: {rubric.criteria[str(s)]}" for s in SCORES)


def examples_prompt(persona: str, question: str, rubric: Rubric) -> list[dict[str, str]]:
    """Ask for one example response per score 1-5 for this persona and question."""
    lines = "\n".join(f"Score {s}: <a response that deserves score {s}>" for s in SCORES)
    text = (
        "Below are a persona, a question asked to that persona, and the scoring criteria of one evaluation task. "
        "Write five example responses to the question, as the persona might answer, one for each score from 1 to 5, "
        "so that each example deserves exactly its score under the criteria.\n\n"
        f"Persona: {persona}\nQuestion: {question}\n\n"
        f"Evaluation task: {rubric.title}. {rubric.description}\n"
        f"Scoring criteria:\n{criteria_text(rubric)}\n\n"
        f"Reply in exactly this format, one example response per score, and nothing else:\n{lines}"
    )
    return [{"role": "user", "content": text}]


def examples_text(examples: dict[str, str]) -> str:
    """The score examples shown to a judge, one "Score k: ..." line per example that parsed."""
    return "\n".join(f"Score {s}: {examples[str(s)]}" for s in SCORES if str(s) in examples) or "(none available)"


def fill_template(template: str, persona: str, question: str, response: str, examples: dict[str, str]) -> str:
    """A rubric file's text with its four fields filled (``{persona}``, ``{question}``, ``{response}``,
    ``{score_example}``: the reference's ``format_rubrics``); replaced, not ``str.format``ted, so other braces stay."""
    for field, value in (("{persona}", persona), ("{question}", question), ("{response}", response),
                         ("{score_example}", examples_text(examples))):
        template = template.replace(field, value)
    return template


#: ``--answer-format json``: the grade as a JSON object (``GRADE_SCHEMA``), asked for instead of the final sentence.
JSON_GRADE = ('Reply with one JSON object only: {"reasoning": "<your reasoning, a few sentences>", "score": N} where N '
              "is a whole number from 1 to 5.")
GRADE_SCHEMA = obj({"reasoning": TEXT, "score": whole(1, 5)})


def grading_prompt(persona: str, question: str, response: str, rubric: Rubric, examples: dict[str, str],
                   system: str = JUDGE_SYSTEM, answer_format: str = "text") -> list[dict[str, str]]:
    """The judge's system prompt (``system``: the plan's ``judge_system``), then the filled-in rubric for one response:
    task, criteria, score examples, persona, question, response.

    A rubric loaded from a rubric file (``rubric.template``, e.g. the reference's ``rubrics/*.txt``) is sent as that
    file's text with its fields filled; the bundled rubrics use RoleScope's wording below."""
    if rubric.template is not None:
        filled = fill_template(rubric.template, persona, question, response, examples)
        return [{"role": "system", "content": system},
                {"role": "user", "content": f"{filled}\n\n{JSON_GRADE}" if answer_format == "json" else filled}]
    ending = ("Explain your reasoning, then " + JSON_GRADE[0].lower() + JSON_GRADE[1:] if answer_format == "json" else
              'Explain your reasoning in a few sentences, then end with the sentence "Therefore, the final score is '
              'N." where N is a whole number from 1 to 5.')
    text = (
        "Grade one response given by someone playing a persona, on one evaluation task. Read the task and the scoring "
        "criteria, compare the response with the example response given for each score, and choose the score whose "
        f"example it resembles most, using the criteria to decide. {ending}\n\n"
        f"Evaluation task: {rubric.title}\nWhat it judges: {rubric.description}\n\n"
        f"Scoring criteria:\n{criteria_text(rubric)}\n\n"
        f"Example responses for this persona and question:\n{examples_text(examples)}\n\n"
        f"Persona: {persona}\nQuestion: {question}\n"
        f"Response to grade: {response.strip() or '(no response)'}\n\nEvaluation:"
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": text}]
