"""The PersonaGym session through create_run/execute_run with a scripted fake client (no network, no model)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from analysis.llm.client import ChatRequest
from analysis.llm.specs import ModelSpec
from analysis.methods.personagym import TASKS
from analysis.methods.personagym.cli import metrics_json
from analysis.methods.personagym.plan import build_personagym_plan
from analysis.methods.personagym.session import PersonaGymPlan, plan_json
from analysis.methods.personagym.tables import ANSWERS, ENVIRONMENTS, EXAMPLES, GENERATIONS, GRADES, QUESTIONS
from analysis import methods
from analysis.runs import runner
from analysis.runs.executor import RetryPolicy
from analysis.runs.progress import ProgressTracker
from analysis.runs.store import Store
from tests.methods.personagym.fakes import FakeClient, default_reply, stage_of

URL = "http://127.0.0.1:9/v1"
AGENT = ModelSpec(name="agent", backend="custom", model="a", base_url=URL, api_key_env="ROLESCOPE_API_KEY")
JUDGE1 = ModelSpec(name="judge1", backend="custom", model="j1", base_url=URL, api_key_env="ROLESCOPE_API_KEY")
JUDGE2 = ModelSpec(name="judge2", backend="openai", model="j2", base_url="https://api.example.org/v1",
                   api_key_env="OPENAI_API_KEY")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, trust_endpoints) -> type[FakeClient]:
    trust_endpoints(AGENT, JUDGE1, JUDGE2)
    FakeClient.reset()
    monkeypatch.setattr(runner, "LLMClient", FakeClient)
    return FakeClient


def run(store: Store, progress: ProgressTracker | None = None, run_id: str | None = None,
        **options: object) -> tuple[str, PersonaGymPlan]:
    options = {"personas": 1, "questions_per_task": 1, "environments_per_persona": 2} | options
    plan = build_personagym_plan(AGENT, **options)
    run_id = methods.create_run(store, "personagym", AGENT, plan_json(plan), run_id)
    methods.execute_run(store, run_id, concurrency=4, retry=RetryPolicy(max_attempts=1), progress=progress,
                       api_key="sk-test-key-0123456789abcdef")
    return run_id, plan


def test_pipeline_rows_calls_and_models(tmp_path: Path, fake: type[FakeClient]) -> None:
    """2 personas x 2 questions x 5 tasks, two evaluators: exactly n_calls calls, each stage's rows, each role on its
    own model (the generator = first evaluator), grades averaged; a re-execution is all cache hits."""
    progress = ProgressTracker()
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, progress, personas=2, questions_per_task=2, evaluators=[JUDGE1, JUDGE2])
        stage_tables = (ENVIRONMENTS, GENERATIONS, QUESTIONS, ANSWERS, EXAMPLES, GRADES)
        tables = {t.name: store.table(t.name, [run_id]) for t in stage_tables}
        calls = store.frame("SELECT model, COUNT(*) AS n FROM calls GROUP BY model")
        doc = metrics_json(store)
        assert store.get_run(run_id)["status"] == "completed"
        before = len(fake.calls)
        again = methods.execute_run(store, run_id)
        assert (again.cached, again.done, again.total, len(fake.calls)) == (92, 92, 92, before)
    assert plan.n_calls() == 2 * (1 + 5 + 10 * (2 + 2)) == 92 == before
    snap = progress.snapshot()
    assert (snap.total, snap.done, snap.failed) == (92, 92, 0)
    by_model = Counter(name for name, _ in fake.calls)
    assert by_model == {"agent": 20, "judge1": 2 + 10 + 20 + 20, "judge2": 20}
    assert dict(zip(calls["model"], calls["n"])) == by_model  # cache entries keyed by each model's identity
    stages = Counter((name, stage_of(r)) for name, r in fake.calls)
    assert stages[("agent", "answer")] == 20 and stages[("judge2", "grade")] == 20 and stages[("judge1", "examples")] == 20
    sizes = {name: len(df) for name, df in tables.items()}
    assert sizes == {"personagym_environments": 2, "personagym_generations": 10, "personagym_questions": 20,
                     "personagym_answers": 20, "personagym_examples": 20, "personagym_grades": 40}
    assert all(set(df["status"]) == {"ok"} for df in tables.values())
    env = tables["personagym_environments"].iloc[0]
    assert json.loads(env.selected) == plan.environments[:2] and env.n_selected == 2
    q = tables["personagym_questions"]
    assert set(q["model"]) == {"judge1"} and q.groupby(["persona_id", "task"]).size().eq(2).all()
    grades = tables["personagym_grades"]
    assert set(grades["evaluator"]) == {"judge1", "judge2"} and set(grades["model"]) == {"agent"}
    assert set(grades["score"]) == {4.0}
    assert set(grades["n_examples"]) == {5}
    m = doc["models"]["agent"]
    assert m["persona_score"] == 4.0 and m["n_graded"] == 20 and m["invalid"] == 0 and len(m["personas"]) == 2
    key = "sk-test-key-0123456789abcdef"  # the caller's key reaches only clients of the same endpoint
    assert sorted(fake.keys[:3], key=str) == [("agent", key), ("judge1", key), ("judge2", None)]
    assert sorted(fake.closed) == ["agent", "agent", "judge1", "judge1", "judge2", "judge2"]  # every client closed


def test_prompts_carry_persona_question_answer_and_examples(tmp_path: Path, fake: type[FakeClient]) -> None:
    """The agent's system prompt holds the persona; a grade request holds the question, that answer and the five
    score examples of that question."""
    with Store(tmp_path / "s.db") as store:
        _, plan = run(store)
    persona = plan.personas[0].description
    answers = [r for _, r in fake.calls if stage_of(r) == "answer"]
    assert len(answers) == 5 and all(persona in r.messages[0][1] and r.messages[0][0] == "system" for r in answers)
    grade = next(r for _, r in fake.calls if stage_of(r) == "grade")
    text = grade.messages[-1][1]
    question = re.search(r"Question: (.*)\n", text).group(1)
    assert any(r.messages[1][1] == question for r in answers)
    assert "Response to grade: Well, in my line of work I would handle it calmly. (agent)" in text
    assert all(f"Score {s}: An example answer that deserves score {s}." in text for s in range(1, 6))


def test_question_retries_use_new_samples_and_record_shortfall(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Too few valid questions: retried with a new sample index and seed, asking only for the missing ones; repeats
    are not counted twice; after 1 + max_retries attempts the missing slot is a shortfall, its calls skipped."""
    def reply(request: ChatRequest, model: str) -> str:
        if stage_of(request) != "questions":
            return default_reply(request, model)
        task = re.search(r"Evaluation task: (.+?) \(", request.messages[-1][1]).group(1)
        return {0: f'["{task}: what would you do when the storm hits the harbour?", "Why?"]',
                1: f'["{task}: what would you do when the storm hits the harbour?", "{task}: how do you calm an apprentice?"]',
                }.get(request.sample, "I have no more ideas.")

    fake.reply = staticmethod(reply)
    progress = ProgressTracker()
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, progress, questions_per_task=3, max_retries=2)
        gens = store.table(GENERATIONS.name, [run_id])
        qs = store.table(QUESTIONS.name, [run_id])
    requests = [r for _, r in fake.calls if stage_of(r) == "questions"]
    assert len(requests) == 5 * 3 and sorted(r.sample for r in requests) == [0] * 5 + [1] * 5 + [2] * 5
    seeds = {dict(r.params)["seed"] for r in requests}
    assert len(seeds) == 15  # one seed per (task, attempt): the cache never returns the same reply
    asked = sorted((r.sample, int(re.search(r"Write exactly (\d+)", r.messages[-1][1]).group(1))) for r in requests)
    assert set(asked) == {(0, 3), (1, 2), (2, 1)}
    assert set(gens["n_new"]) == {1, 0} and list(gens.sort_values("attempt").groupby("attempt")["n_new"].first()) == [1, 1, 0]
    assert set(gens[gens["attempt"] == 2]["status"]) == {"invalid"}
    per_task = qs.groupby("task")["status"].apply(list).to_dict()
    assert all(sorted(v) == ["ok", "ok", "shortfall"] for v in per_task.values())
    short = qs[qs["status"] == "shortfall"].iloc[0]
    assert short.reason == "2 of 3 valid questions after 3 attempts" and pd.isna(short.question)
    # calls: 1 env + 15 generations + 10 questions x (answer, examples, grade); total raised by the 10 retries
    assert len(fake.calls) == 1 + 15 + 10 * 3
    snap = progress.snapshot()
    assert snap.total == plan.n_calls() + 10 and snap.done == snap.total and len(fake.calls) == snap.done - 5 * 3


def test_no_environment_means_not_asked(tmp_path: Path, fake: type[FakeClient]) -> None:
    """A generator that never names a known environment: retried, then the persona's questions are not asked."""
    fake.reply = staticmethod(lambda r, m: '["The open sea"]' if stage_of(r) == "environments" else default_reply(r, m))
    progress = ProgressTracker()
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, progress, max_retries=1)
        envs = store.table(ENVIRONMENTS.name, [run_id])
        qs = store.table(QUESTIONS.name, [run_id])
        assert store.table(ANSWERS.name, [run_id]).empty and store.table(GENERATIONS.name, [run_id]).empty
    assert list(envs["status"]) == ["invalid", "invalid"] and list(envs["n_unknown"]) == [1, 1]
    assert len(qs) == 5 and set(qs["status"]) == {"not_asked"}
    assert qs["reason"].iloc[0].startswith("not asked: no environment selected after 2 attempts")
    assert len(fake.calls) == 2
    snap = progress.snapshot()
    assert snap.total == plan.n_calls() + 1 == snap.done


def test_failed_answer_then_resume(tmp_path: Path, fake: type[FakeClient]) -> None:
    """A failed agent call: answer 'failed', its grades 'not_asked', the run completes with failures; resume makes
    only the missing calls and fills them in."""
    target = {}

    def fail(request: ChatRequest, model: str) -> bool:
        if stage_of(request) == "answer" and "Linguistic Habits" in request.messages[1][1]:
            target["q"] = request.messages[1][1]
            return True
        return False

    fake.fail = staticmethod(fail)
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store)
        assert store.get_run(run_id)["status"] == "completed_with_failures"
        ans = store.table(ANSWERS.name, [run_id]).set_index("task")
        grades = store.table(GRADES.name, [run_id]).set_index("task")
        assert ans.loc["Linguistic Habits", "status"] == "failed" and "injected" in ans.loc["Linguistic Habits", "reason"]
        assert grades.loc["Linguistic Habits", "status"] == "not_asked"
        assert grades.loc["Linguistic Habits", "reason"].startswith("not asked: answer failed: HTTP 400")
        assert set(grades.drop(index="Linguistic Habits")["status"]) == {"ok"}
        made = len(fake.calls)
        fake.fail = staticmethod(lambda r, m: False)
        summary = methods.execute_run(store, run_id)
        assert summary.status == "completed" and len(fake.calls) == made + 2  # the answer and its one grade
        assert set(store.table(GRADES.name, [run_id])["status"]) == {"ok"}
        assert set(store.table(ANSWERS.name, [run_id])["status"]) == {"ok"}
    assert made == plan.n_calls() - 1  # the failed answer was attempted once, its grade never


def test_invalid_grades_are_excluded_and_counted(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Unparseable and out-of-range grades are 'invalid' with their raw text, excluded from the means (never 0)."""
    def reply(request: ChatRequest, model: str) -> str:
        if stage_of(request) == "grade":
            task = re.search(r"Evaluation task: (.*)\n", request.messages[-1][1]).group(1)
            if task.startswith("Toxicity"):
                return "Great answer, I'd give it full marks."
            if task.startswith("Linguistic"):
                return "Therefore, the final score is 0." if model == "judge1" else "Therefore, the final score is 2."
            return "Therefore, the final score is 5." if model == "judge1" else "Therefore, the final score is 4."
        return default_reply(request, model)

    fake.reply = staticmethod(reply)
    with Store(tmp_path / "s.db") as store:
        run_id, _ = run(store, evaluators=[JUDGE1, JUDGE2])
        grades = store.table(GRADES.name, [run_id])
        doc = metrics_json(store)["models"]["agent"]
    invalid = grades[grades["status"] == "invalid"]
    assert len(invalid) == 3 and invalid["score"].isna().all() and invalid["raw"].notna().all()
    assert set(invalid["reason"]) == {"no 'final score is N' sentence", "final score 0 out of range 1-5"}
    assert doc["tasks"] == {"Expected Action": 4.5, "Linguistic Habits": 2.0, "Persona Consistency": 4.5,
                            "Toxicity Control": None, "Action Justification": 4.5}
    assert doc["persona_score"] is None and doc["invalid"] == 3 and doc["n_graded"] == 4 and doc["not_graded"] == 1


def test_incomplete_score_examples(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Score examples missing scores: by default (the reference) one call, and the question is graded with the
    examples that parsed and the criteria (n_examples = 3 marks it, counted in the document); with examples_retries
    they are asked again; with grade_without_examples False the grades are not asked."""
    partial = "Score 1: I would walk away.\nScore 3: I would ask around first.\nScore 5: I would plan it all carefully."
    fake.reply = staticmethod(lambda r, m: partial if stage_of(r) == "examples" else default_reply(r, m))
    with Store(tmp_path / "s.db") as store:
        strict_id, _ = run(store, examples_retries=1, grade_without_examples=False)
        ex = store.table(EXAMPLES.name, [strict_id])
        strict = store.table(GRADES.name, [strict_id])
        assert len(ex) == 10 and set(ex["status"]) == {"invalid"} and set(ex["n_examples"]) == {3}
        assert set(strict["status"]) == {"not_asked"}
        assert strict["reason"].iloc[0] == ("not asked: no complete score examples after 2 attempts "
                                            "(no example for score 2, 4)")
        fake.calls.clear()
        lenient_id, _ = run(store)
        lenient = store.table(GRADES.name, [lenient_id])
        assert len(store.table(EXAMPLES.name, [lenient_id])) == 5  # one call per question
        doc = metrics_json(store, "agent")  # the latest configuration: this run
    assert set(lenient["status"]) == {"ok"} and set(lenient["n_examples"]) == {3}
    assert doc["models"]["agent"]["graded_incomplete_examples"] == 5 and doc["models"]["agent"]["n_graded"] == 5
    grade = next(r for _, r in fake.calls if stage_of(r) == "grade").messages[-1][1]
    assert "Score 3: I would ask around first." in grade and "Score 2: " not in grade.split("Example responses")[1]


def test_fixed_questions_from_a_question_file(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Personas from question files: no environment or question calls; the first N questions per task are used."""
    folder = tmp_path / "qs"
    folder.mkdir()
    doc = {"Expected Action": ["What do you do first when the nets come up empty?", "How do you plan tomorrow's trip?"],
           "Toxicity": ["A rival skipper mocks your boat in front of everyone. What do you say?"],
           "Linguistic Habits": ["Describe your morning on the boat to a visiting student."]}
    (folder / "A 50-year-old fisherman from Galicia who sings at the harbour festival.json").write_text(json.dumps(doc))
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, questions=folder, personas="all", questions_per_task=1)
        qs = store.table(QUESTIONS.name, [run_id])
        grades = store.table(GRADES.name, [run_id])
    assert plan.n_calls() == 3 * 3 == len(fake.calls)
    assert {stage_of(r) for _, r in fake.calls} == {"answer", "examples", "grade"}
    assert sorted(qs["task"]) == sorted(["Expected Action", "Toxicity Control", "Linguistic Habits"])
    assert set(qs["source"]) == {"file"} and len(grades) == 3
    assert plan.personas[0].description == "A 50-year-old fisherman from Galicia who sings at the harbour festival"


def test_refusals_are_counted(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Answers that decline the persona are flagged with their marker, still graded, and counted per model."""
    def reply(request: ChatRequest, model: str) -> str:
        if stage_of(request) == "answer" and "Toxicity" not in request.messages[1][1]:
            return "As an AI language model, I don't have personal experiences, but here are some ideas."
        return default_reply(request, model)

    fake.reply = staticmethod(reply)
    with Store(tmp_path / "s.db") as store:
        run_id, _ = run(store)
        ans = store.table(ANSWERS.name, [run_id])
        doc = metrics_json(store)["models"]["agent"]
    assert ans["refusal"].sum() == 4 and set(ans.loc[ans["refusal"] == 1, "refusal_marker"]) == {"as an ai language model"}
    assert doc["refusals"] == 4 and doc["n_graded"] == 5
    assert set(TASKS) == set(doc["tasks"])


def test_environments_as_many_as_the_model_chooses_or_capped(tmp_path: Path, fake: type[FakeClient]) -> None:
    """Default (the reference's select_settings): no count asked, every known name the model lists is kept (7 here);
    with a cap of 2 the prompt asks for 2 and the other 5 are counted as extra, not used."""
    def reply(request: ChatRequest, model: str) -> str:
        if stage_of(request) != "environments":
            return default_reply(request, model)
        return json.dumps(re.findall(r"^- (.+)$", request.messages[-1][1], re.MULTILINE)[:7])

    fake.reply = staticmethod(reply)
    with Store(tmp_path / "s.db") as store:
        free_id, free = run(store, environments_per_persona=None)
        capped_id, capped = run(store, environments_per_persona=2)
        envs = {r: store.table(ENVIRONMENTS.name, [r]).iloc[0] for r in (free_id, capped_id)}
        qs = store.table(QUESTIONS.name, [free_id])
    prompts = [r.messages[-1][1] for _, r in fake.calls if stage_of(r) == "environments"]
    assert "Choose the environments from the list" in prompts[0] and "Choose the 2 environments" in prompts[1]
    assert (envs[free_id].n_selected, envs[free_id].n_extra) == (7, 0)
    assert (envs[capped_id].n_selected, envs[capped_id].n_extra) == (2, 5)
    assert json.loads(qs["environments"].iloc[0]) == free.environments[:7]
    assert free.environments_per_persona is None and capped.environments_per_persona == 2


def test_answers_cut_at_the_limit_are_flagged_and_counted(tmp_path: Path, fake: type[FakeClient]) -> None:
    """An answer whose reply stopped at max_tokens (finish_reason 'length') is stored truncated = 1, still graded,
    and counted per model and persona in the metrics document."""
    fake.finish = staticmethod(lambda r, m: "length" if stage_of(r) == "answer" and "Expected Action" in
                               r.messages[-1][1] else "stop")
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, questions_per_task=2)
        answers = store.table(ANSWERS.name, [run_id])
        doc = metrics_json(store)
    assert plan.answer_max_tokens == 3000 and all(dict(r.params)["max_tokens"] == 3000 for _, r in fake.calls)
    assert int(answers["truncated"].sum()) == 2 and set(answers.loc[answers["truncated"] == 1, "task"]) == {"Expected Action"}
    m = doc["models"]["agent"]
    assert m["truncated"] == 2 and m["n_graded"] == 10 and sum(p["truncated"] for p in m["personas"].values()) == 2


def test_invalid_replies_cut_at_the_limit_say_so(tmp_path: Path, fake: type[FakeClient]) -> None:
    """An invalid grade whose reply hit the length limit says so in its reason (its score may lie past the cut); an
    invalid reply that ended on its own does not."""
    def reply(request: ChatRequest, model: str) -> str:
        return "The persona is convincing and the response" if stage_of(request) == "grade" else default_reply(request, model)

    fake.reply = staticmethod(reply)
    fake.finish = staticmethod(lambda r, m: "length" if stage_of(r) == "grade" and "Toxicity" in r.messages[-1][1]
                               else "stop")
    with Store(tmp_path / "s.db") as store:
        run_id, _ = run(store)
        grades = store.table(GRADES.name, [run_id]).set_index("task")["reason"]
    assert grades["Toxicity Control"] == "no 'final score is N' sentence (the reply hit the length limit)"
    assert grades["Expected Action"] == "no 'final score is N' sentence"


def test_self_graded_runs_say_so(tmp_path: Path, fake: type[FakeClient]) -> None:
    """No --evaluators: the agent grades and writes its own questions -> self-graded in both roles. An evaluator that is
    the agent's model under another name (same backend, model and server, other decoding) is still the agent; other
    judges with their own generator -> not self-graded."""
    twin = AGENT.model_copy(update={"name": "agent-greedy", "params": {"temperature": 0.0}})
    with Store(tmp_path / "a.db") as store:
        run(store)
        alone = metrics_json(store)["models"]["agent"]["self_graded"]
    with Store(tmp_path / "b.db") as store:
        run(store, evaluators=[twin, JUDGE2], generator=JUDGE2)
        twin_doc = metrics_json(store)["models"]["agent"]["self_graded"]
    with Store(tmp_path / "c.db") as store:
        run(store, evaluators=[JUDGE1, JUDGE2])
        other = metrics_json(store)["models"]["agent"]["self_graded"]
    assert alone == {"value": True, "roles": ["evaluator", "question generator"]}
    assert twin_doc == {"value": True, "roles": ["evaluator"]}
    assert other == {"value": False, "roles": []}


def test_json_grades(tmp_path: Path, fake: type[FakeClient]) -> None:
    """``--answer-format json``: each grade request carries the grade schema (score 1-5) and asks for the JSON object;
    a JSON grade is read, one out of range is invalid with the reason; the plan records the format."""
    def reply(request: ChatRequest, model: str) -> str:
        if stage_of(request) == "grade":
            assert json.loads(dict(request.params)["response_format"])["json_schema"]["schema"]["properties"]["score"] \
                == {"type": "integer", "minimum": 1, "maximum": 5}
            task = re.search(r"Evaluation task: (.*)\n", request.messages[-1][1]).group(1)
            return json.dumps({"reasoning": "fits", "score": 9 if task.startswith("Toxicity") else 4})
        return default_reply(request, model)

    fake.reply = staticmethod(reply)
    with Store(tmp_path / "s.db") as store:
        run_id, plan = run(store, answer_format="json")
        grades = store.table(GRADES.name, [run_id])
        assert store.get_run(run_id)["plan"]["answer_format"] == "json"
    assert set(grades.loc[grades["status"] == "ok", "score"]) == {4.0}
    assert list(grades.loc[grades["status"] == "invalid", "reason"]) == ["final score 9 out of range 1-5"]
    assert "answer_format" not in plan_json(build_personagym_plan(AGENT, personas=1))
