"""PersonaGym in the app: its page, its run form and its importer."""

from app.methods.base import Hook, ImportKind, MethodView, PageInfo, SampleTable

SECTION = "Other methods"
VIEW = MethodView(
    name="personagym", label="PersonaGym", order=4, section=SECTION,
    pages=(PageInfo("app/methods/personagym/page.py", "PersonaGym", ":material/theater_comedy:", "personagym", SECTION,
                    "Task scores and PersonaScore, per-persona questions, answers and grades."),),
    run_form=Hook("app.methods.personagym.run_form:form"),
    summary=("Personas answer generated questions in environments, graded against rubrics on five tasks (Samuel et "
             "al. 2024). *PersonaScore*: the mean of the five task scores."),
    campaign_form=Hook("app.methods.personagym.campaign_form:options"),
    samples={"personagym_answers": SampleTable("PersonaGym answers", ("persona", "task")),
             "personagym_grades": SampleTable("PersonaGym grades", ("persona", "task", "evaluator"))},
    sample_detail=Hook("app.methods.personagym.detail:graded"),
    imports=(ImportKind("personagym", "PersonaGym questions / scores JSON", ("json",), "Model name",
                        Hook("app.methods.personagym.inputs:import_files")),),
)
