"""Prompt texts for value questionnaires (RoleScope's own wording).

The order of messages is chosen for prefix reuse: persona system prompt, then the conversation,
then the question, so every item asked after the same conversation shares the same prefix.
"""

from __future__ import annotations

from analysis.llm.options import LETTERS
from analysis.values.instruments import Instrument, Item
from analysis.values.populations import Persona

PVQ_INSTRUCTIONS = (
    "Below is a short description of a person. Think about how much that person is or is not like you."
)
SVS_INSTRUCTIONS = (
    "Rate how important the value below is to you as a guiding principle in your life. Use -1 for a value "
    "opposed to your principles, 0 for not important, 3 for important, 6 for very important and 7 for a value "
    "of supreme importance (usually no more than two values get 7)."
)
ANSWER_WITH_LETTER = "Answer with the letter of one option only."


def persona_system(persona: Persona) -> str:
    return (
        f"You are {persona.name}. {persona.description}\n"
        f"Stay in character as {persona.name} in everything you say: answer in the first person, "
        "as this person would, with their opinions, habits and values."
    )


def human_user_system() -> str:
    return (
        "You are a human user talking with an AI chatbot. Continue the conversation as that human user "
        "would: react to what the chatbot said, ask follow-up questions. Reply with one sentence."
    )


def other_persona_system(persona: Persona) -> str:
    return (
        f"You are {persona.name}. {persona.description}\n"
        "You are talking with another person. Stay in character and reply with one sentence."
    )


def lettered(labels: list[str]) -> str:
    return "\n".join(f"{LETTERS[i]}. {label}" for i, label in enumerate(labels))


def item_question(instrument: Instrument, item: Item, gender: str, labels: list[str]) -> str:
    """The question for one item with its (already permuted) option labels."""
    if instrument.kind == "svs":
        return f"{SVS_INSTRUCTIONS}\n\nValue: {item.wording(gender)}\n\n{lettered(labels)}\n\n{ANSWER_WITH_LETTER}"
    intro = instrument.instructions or PVQ_INSTRUCTIONS
    return (
        f"{intro}\n\nDescription: \"{item.wording(gender)}\"\n\nHow much is this person like you?\n"
        f"{lettered(labels)}\n\n{ANSWER_WITH_LETTER}"
    )


def svs_pick_question(items: list[Item], which: str) -> str:
    """Ask for the most important (``which='most'``) or most opposed (``'least'``) value of a list."""
    listing = "\n".join(f"{n}. {it.wording('any')}" for n, it in enumerate(items, 1))
    ask = (
        "Which ONE of these values is the MOST important to you as a guiding principle in your life?"
        if which == "most"
        else "Which ONE of these values is the MOST OPPOSED to your values, or if none is, the least important to you?"
    )
    return f"Here is a list of values:\n{listing}\n\n{ask} Answer with its number and name."
