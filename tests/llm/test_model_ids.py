"""``same_model`` and ``other_model`` (analysis/llm/model_ids.py): a reply's echoed model id against the requested one."""

from __future__ import annotations

import pytest

from analysis.llm.model_ids import other_model, same_model

SAME = [
    ("gpt-4o", "gpt-4o"),
    ("gpt-4o", "GPT-4o"),  # case
    ("gpt-4o", "gpt-4o-2024-08-06"),  # a dated snapshot of the alias
    ("gpt-4o-mini", "gpt-4o-mini-2024-07-18"),
    ("gpt-4", "gpt-4-0613"),  # month and day
    ("gpt-3.5-turbo", "gpt-3.5-turbo-0125"),
    ("claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022"),  # -latest: whatever snapshot is current
    ("claude-3-5-sonnet-latest", "claude-3-5-sonnet"),
    ("claude-3-5-sonnet", "claude-3-5-sonnet-20241022"),
    ("gemini-1.5-pro", "gemini-1.5-pro-002"),  # a revision number
    ("mistral-7b-instruct", "mistral-7b-instruct-v0.3"),  # a version
    ("openai/gpt-4o", "gpt-4o"),  # a provider prefix on one side
    ("gpt-4o", "openai/gpt-4o-2024-08-06"),
    ("meta-llama/Llama-3.1-8B-Instruct", "Llama-3.1-8B-Instruct"),
    ("Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"),
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/llama-3.1-8b-instruct"),
    ("Qwen/Qwen2.5-7B-Instruct", "/models/Qwen/Qwen2.5-7B-Instruct"),  # a served path ending in the requested id
    ("stub", " stub "),
]

OTHER = [
    ("gpt-4o", "gpt-4o-mini"),  # another variant
    ("gpt-4o", "gpt-4o-mini-2024-07-18"),
    ("gpt-4o-mini", "gpt-4o"),
    ("gpt-4", "gpt-3.5-turbo"),  # another family
    ("gpt-4", "gpt-4o"),
    ("gpt-4", "gpt-4-32k"),
    ("gpt-4", "gpt-4-32k-0613"),
    ("gpt-4", "gpt-4-0125-preview"),  # a snapshot with more after it
    ("gpt-4-turbo", "gpt-4"),
    ("gpt-4o-2024-08-06", "gpt-4o"),  # a pinned snapshot answered by the alias
    ("gpt-4o-2024-08-06", "gpt-4o-2024-05-13"),  # another snapshot
    ("claude-3-5-sonnet-latest", "claude-3-5-haiku-20241022"),
    ("claude-3-5-sonnet-latest", "claude-3-5-sonnet-v2-20241022"),
    ("meta-llama/Llama-3.1-8B-Instruct", "other-org/Llama-3.1-8B-Instruct"),  # two different prefixes
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct"),
    ("Llama-3.1-8B-Instruct", "Llama-3.1-8B"),
    ("Llama-3.1-8B", "Llama-3.1-8B-Instruct"),
    ("o1", "o1-mini"),
    ("stub", "stub-other"),
    ("stub", ""),
    ("gpt-4o", "gpt-4o-"),
]


@pytest.mark.parametrize("requested,echoed", SAME)
def test_the_same_model_as_providers_echo_it(requested: str, echoed: str) -> None:
    assert same_model(requested, echoed)


@pytest.mark.parametrize("requested,echoed", OTHER)
def test_another_model(requested: str, echoed: str) -> None:
    assert not same_model(requested, echoed)


@pytest.mark.parametrize("body", [{}, {"model": None}, {"model": ""}, {"model": "gpt-4o-2024-08-06"}, None, []])
def test_a_body_naming_no_model_or_the_requested_one_is_accepted(body: object) -> None:
    assert other_model(body, "gpt-4o") is None


def test_a_body_naming_another_model_says_both_on_one_line() -> None:
    why = other_model({"model": "gpt-4o-mini\n\x1b[2Jforged"}, "gpt-4o")
    assert why == r"the reply names the model 'gpt-4o-mini\n\x1b[2Jforged', not 'gpt-4o' that its request was sent to"
    assert other_model({"model": 4}, "gpt-4o") == "the reply's model field is int, not a model id"
    long = other_model({"model": "x" * 500}, "gpt-4o")
    assert long is not None and len(long) < 200
