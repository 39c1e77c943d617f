"""Prompt texts and message lists for value questionnaires.

The wording is RoleScope's own; the structure is the reference's (flowersteam/value_stability,
``simulate_conversation_utils.py``, ``models/utils.py:construct_messages``, ``svs_utils.py``):

- the persona is set by one system message ``You are {description}`` (``persona_prompt="reference"``);
  models without a system role get it as a first user message answered "OK";
- the interlocutor simulates a human user of a chatbot, or another persona, and replies in one sentence;
  it sees the opening as its own message, after an empty user message (the reference's alternation fix);
- each questionnaire item is a new user message after the conversation: instructions, item, lettered
  options ``(A) label``, then the answer-format request of the answer mode.

The order of messages suits prefix reuse: persona prompt, then the conversation, then the question.
"""

from __future__ import annotations

from typing import Literal

from analysis.llm.options import LETTERS
from analysis.methods.values.instruments import Instrument, Item
from analysis.methods.values.populations import Persona

PersonaPrompt = Literal["reference", "in-character"]
Message = dict[str, str]

PVQ_INSTRUCTIONS = (
    "Below is a short description of a person. Think about how much that person is or is not like you."
)
SVS_INSTRUCTIONS = (
    "Rate how important the value below is to you as a guiding principle in your life. Use -1 for a value "
    "opposed to your principles, 0 for not important, 3 for important, 6 for very important and 7 for a value "
    "of supreme importance (usually no more than two values get 7)."
)
ANSWER_WITH_LETTER = "Answer with the letter of one option only."
# The answer-format requests appended to every question (reference ``models/vllmmodel.py`` query_string).
LETTER_ONLY = 'Reply only with "(X)", where X is the letter of the option you choose.'
THINK_THEN_ANSWER = ('Think it through step by step, then end your reply with "Answer: (X)", where X is the letter '
                     "of the option you choose.")
REST_OF_LIST = "Now, rate the rest of the values."
# ``--answer-format json``: the same requests, as one JSON object (``analysis.methods.values.schemas``).
JSON_LETTER = 'Reply with one JSON object only: {"answer": "X"}, where X is the letter of the option you choose.'
JSON_THINK = ('Think it through step by step, and reply with one JSON object only: {"reasoning": "<your reasoning>", '
              '"answer": "X"}, where X is the letter of the option you choose.')


def persona_system(persona: Persona, style: PersonaPrompt = "reference") -> str:
    """``reference``: "You are {description}" (the reference's ``set_persona_str``); ``in-character``: RoleScope's
    earlier prompt, which also asks the model to stay in character with the persona's opinions and values."""
    if style == "reference":
        return f"You are {persona.description}"
    return (
        f"You are {persona.name}. {persona.description}\n"
        f"Stay in character as {persona.name} in everything you say: answer in the first person, "
        "as this person would, with their opinions, habits and values."
    )


def human_user_system() -> str:
    return "You are simulating a human who is using a chatbot. Every reply you write is one sentence long."


def other_persona_system(persona: Persona) -> str:
    return f"You are simulating {persona.description} Every reply you write is one sentence long."


# -- earlier RoleScope wording (structure="appended"), kept for runs that use it ----------------------------

def appended_human_user_system() -> str:
    return (
        "You are a human user talking with an AI chatbot. Continue the conversation as that human user "
        "would: react to what the chatbot said, ask follow-up questions. Reply with one sentence."
    )


def appended_other_persona_system(persona: Persona) -> str:
    return (
        f"You are {persona.name}. {persona.description}\n"
        "You are talking with another person. Stay in character and reply with one sentence."
    )


# -- message lists ----------------------------------------------------------------------------------------

def with_setting(setting: str, messages: list[Message], system_role: bool = True) -> list[Message]:
    """The setting (persona or interlocutor prompt) first, then ``messages``, with the reference's alternation fix
    (``models/utils.py:fix_alternating_msg_order``): a system message followed by an assistant message gets an empty
    user message between them; without a system role the setting is a user message, answered "OK" unless an
    assistant message follows (with no message yet, a question will follow)."""
    head: list[Message] = [{"role": "system" if system_role else "user", "content": setting}]
    if messages and messages[0]["role"] == "assistant" and system_role:
        head.append({"role": "user", "content": ""})
    elif not system_role and (not messages or messages[0]["role"] == "user"):
        head.append({"role": "assistant", "content": "OK"})
    return [*head, *messages]


def conversation_view(turns: list[tuple[str, str]], me: str) -> list[Message]:
    """The conversation as seen by ``me`` ("persona" or "interlocutor"): its own turns are the assistant's."""
    return [{"role": "assistant" if who == me else "user", "content": text} for who, text in turns]


def lettered(labels: list[str]) -> str:
    return "\n".join(f"({LETTERS[i]}) {label}" for i, label in enumerate(labels))


def answer_request(mode: str, answer_format: str = "text") -> str:
    if answer_format == "json":
        return JSON_THINK if mode == "cot" else JSON_LETTER
    return THINK_THEN_ANSWER if mode == "cot" else LETTER_ONLY


def item_question(instrument: Instrument, item: Item, gender: str, labels: list[str], mode: str = "logprob",
                  lead: str | None = None, answer_format: str = "text") -> str:
    """One item with its (already permuted) option labels and the answer-format request of ``mode`` (``answer_format``
    'json': as one JSON object, ``schemas.item``).

    PVQ: the instructions, the portrait and the options in one message (reference ``format_example``). SVS: the
    value and the options, after ``lead`` ("You chose X, now rate its importance.", "Now, rate the rest of the
    values.", or nothing: the instructions came with the first pick, reference ``svs_utils.py``)."""
    if instrument.kind == "svs":
        head = f"{lead}\n\n" if lead else ""
        return f"{head}{item.wording(gender)}\n{lettered(labels)}\n\n{answer_request(mode, answer_format)}"
    intro = instrument.instructions or PVQ_INSTRUCTIONS
    return f"{intro}\n\n{item.wording(gender)}\n{lettered(labels)}\n\n{answer_request(mode, answer_format)}"


def appended_item_question(instrument: Instrument, item: Item, gender: str, labels: list[str]) -> str:
    """The earlier RoleScope question (``structure="appended"``): "A. label" options, one instruction."""
    listing = "\n".join(f"{LETTERS[i]}. {label}" for i, label in enumerate(labels))
    if instrument.kind == "svs":
        return f"{SVS_INSTRUCTIONS}\n\nValue: {item.wording(gender)}\n\n{listing}\n\n{ANSWER_WITH_LETTER}"
    intro = instrument.instructions or PVQ_INSTRUCTIONS
    return (f"{intro}\n\nDescription: \"{item.wording(gender)}\"\n\nHow much is this person like you?\n"
            f"{listing}\n\n{ANSWER_WITH_LETTER}")


def svs_pick_question(items: list[Item], which: str, instructions: str | None = None, list_no: int | None = None,
                      mode: str = "text", answer_format: str = "text") -> str:
    """Ask for the most important (``which='most'``) or most opposed (``'least'``) value of a list (``answer_format``
    'json': its name as one JSON object, ``schemas.pick``).

    With ``instructions`` (the first pick of a list) the questionnaire's instructions and the list's heading come
    first, as in the reference's first pick of each list."""
    listing = "\n".join(f"{n}. {it.wording('any')}" for n, it in enumerate(items, 1))
    ask = (
        "Which ONE of these values is the MOST important to you as a guiding principle in your life?"
        if which == "most"
        else "Which ONE of these values is the MOST OPPOSED to your values, or if none is, the least important to you?"
    )
    head = f"{instructions}\n\nVALUES LIST {'I' * (list_no or 1)}\n\n" if instructions else ""
    if answer_format == "json":
        form = ('Think it through step by step, and reply with one JSON object only: {"reasoning": "<your reasoning>", '
                '"answer": "<its name>"}.' if mode == "cot" else 'Reply with one JSON object only: {"answer": "<its name>"}.')
    else:
        form = ('Think it through step by step, then end your reply with "Answer:" followed by its number and name.'
                if mode == "cot" else "Answer with its number and name.")
    return f"{head}Here is a list of values:\n{listing}\n\n{ask} {form}"
