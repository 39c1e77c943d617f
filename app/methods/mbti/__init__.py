"""ChatGPT-MBTI in the app: its page, its Compare section, its run form and inputs."""

from app.methods.base import Hook, ImportKind, MethodView, PageInfo, SampleTable

SECTION = "Other methods"
VIEW = MethodView(
    name="mbti", label="MBTI", order=2, section=SECTION,
    pages=(PageInfo("app/methods/mbti/page.py", "MBTI", ":material/psychology:", "mbti", SECTION,
                    "Dimension scores, type, consistency / robustness / fairness, answer distributions.",
                    heading="MBTI assessment"),),
    run_form=Hook("app.methods.mbti.run_form:form"),
    summary=("The model assesses people (groups, named persons) through the MBTI statements, over independent "
             "testings (Rao et al. 2023). *Consistency* s_c = 100/(100 + mean distance of the testings to their "
             "mean)."),
    compare=Hook("app.methods.mbti.compare:section"),
    samples={"mbti_answers": SampleTable("MBTI answers", ("subject", "order_mode", "testing"))},
    inputs=Hook("app.methods.mbti.inputs:tabs"),
    imports=(ImportKind("chatgpt-mbti", "ChatGPT-MBTI answer CSV", ("csv",), "Model name",
                        Hook("app.methods.mbti.inputs:import_answers")),),
)
