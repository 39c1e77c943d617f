"""Stick to Your Role! in the app: Structure and Stability pages, the leaderboard section, its run form."""

from app.methods.base import Hook, ImportKind, MethodView, PageInfo, SampleTable

SECTION = "Stick to Your Role!"
VIEW = MethodView(
    name="values", label="Values", order=1, section=SECTION,
    pages=(
        PageInfo("app/methods/values/structure.py", "Value structure", ":material/donut_large:", "structure", SECTION,
                 "MDS circumplex of the items, Stress, CFA fits and loadings, separability."),
        PageInfo("app/methods/values/stability.py", "Stability", ":material/compare_arrows:", "stability", SECTION,
                 "Rank-order and ipsative stability across contexts, persona profiles."),
    ),
    home="leaderboard",
    run_form=Hook("app.methods.values.run_form:form"),
    summary=("Schwartz value questionnaires (PVQ, SVS) given to simulated personas after conversations on "
             "different topics (Kovač et al. 2024): do the values hold their structure and stay stable? *Cardinal "
             "score*: the mean of the leaderboard columns; *rank-order stability*: Spearman across personas "
             "between contexts, averaged."),
    campaign_form=Hook("app.methods.values.campaign_form:options"),
    leaderboard=Hook("app.methods.values.leaderboard:section"),
    compare=Hook("app.methods.values.compare:section"),
    samples={"values_answers": SampleTable("Values answers", ("persona_id", "context"))},
    sample_detail=Hook("app.methods.values.inputs:conversation"),
    inputs=Hook("app.methods.values.inputs:tabs"),
    imports=(ImportKind("value-stability", "Stick to Your Role! results.json", ("json",), "Context label",
                        Hook("app.methods.values.inputs:import_results"), folder_per_file=True,
                        file_name="results.json"),),
)
