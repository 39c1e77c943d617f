"""A scripted stand-in for LLMClient: replies chosen from the prompt's stage, deterministic, with hooks."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from analysis.llm.client import CallError, ChatReply, ChatRequest
from analysis.llm.specs import ModelSpec


def stage_of(request: ChatRequest) -> str:
    """Which PersonaGym stage a request belongs to, from its prompt."""
    roles = [r for r, _ in request.messages]
    text = request.messages[-1][1]
    if "Selected environments:" in text:
        return "environments"
    if text.rstrip().endswith("Questions:"):
        return "questions"
    if "Write five example responses" in text:
        return "examples"
    if "Therefore, the final score is" in text or '"score": N' in text:  # ours, the reference's rubric files, JSON
        return "grade"
    if roles == ["system", "user"]:
        return "answer"
    return "other"


def default_reply(request: ChatRequest, model: str) -> str:
    text = request.messages[-1][1]
    stage = stage_of(request)
    if stage == "environments":
        names = re.findall(r"^- (.+)$", text, re.MULTILINE)
        cap = re.search(r"Choose the (\d+) environments", text)
        return json.dumps(names[:int(cap.group(1)) if cap else 3])  # uncapped: the model chooses (three here)
    if stage == "questions":
        n = int(re.search(r"Write exactly (\d+) different", text).group(1))
        task = re.search(r"Evaluation task: (.+?) \(", text).group(1)
        return json.dumps([f"As a {task} probe number {request.sample}-{i}, what would you do next here?" for i in range(n)])
    if stage == "examples":
        return "\n".join(f"Score {s}: Response - An example answer that deserves score {s}." for s in range(1, 6))
    if stage == "grade":
        return "The response fits the persona well. Therefore, the final score is 4."
    if stage == "answer":
        return f"Well, in my line of work I would handle it calmly. ({model})"
    return "ok"


class FakeClient:
    """Replies from ``reply(request, model_name)``; records (model name, request) of every call."""

    calls: list[tuple[str, ChatRequest]] = []
    keys: list[tuple[str, str | None]] = []
    closed: list[str] = []
    reply: Callable[[ChatRequest, str], str] = staticmethod(default_reply)
    fail: Callable[[ChatRequest, str], bool] = staticmethod(lambda request, model: False)
    finish: Callable[[ChatRequest, str], str] = staticmethod(lambda request, model: "stop")

    def __init__(self, spec: ModelSpec, api_key: str | None = None, confirmed: tuple[str, ...] = ()):
        self.spec = spec
        FakeClient.keys.append((spec.name, api_key))

    async def complete(self, request: ChatRequest) -> ChatReply:
        FakeClient.calls.append((self.spec.name, request))
        if FakeClient.fail(request, self.spec.name):
            raise CallError("HTTP 400: bad request (injected)", retryable=False, status=400)
        return ChatReply(text=FakeClient.reply(request, self.spec.name), finish_reason=FakeClient.finish(request, self.spec.name),
                         tokens_in=10, tokens_out=5)

    async def aclose(self) -> None:
        FakeClient.closed.append(self.spec.name)

    @classmethod
    def reset(cls) -> None:
        cls.calls = []
        cls.keys = []
        cls.closed = []
        cls.reply = staticmethod(default_reply)
        cls.fail = staticmethod(lambda request, model: False)
        cls.finish = staticmethod(lambda request, model: "stop")
