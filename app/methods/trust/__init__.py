"""The trust game in the app: its page and its run form."""

from app.methods.base import Hook, MethodView, PageInfo, SampleTable

SECTION = "Other methods"
VIEW = MethodView(
    name="trust", label="Trust", order=3, section=SECTION,
    pages=(PageInfo("app/methods/trust/page.py", "Trust game", ":material/handshake:", "trust", SECTION,
                    "Belief vs behaviour per attribute, conditioning, forecasts vs play."),),
    run_form=Hook("app.methods.trust.run_form:form"),
    campaign_form=Hook("app.methods.trust.campaign_form:options"),
    samples={"trust_transfers": SampleTable("Trust transfers", ("conditioning", "endowment")),
             "trust_beliefs": SampleTable("Trust beliefs", ("strategy", "endowment")),
             "trust_forecasts": SampleTable("Trust forecasts", ("archetype",)),
             "trust_rounds": SampleTable("Trust rounds", ("archetype", "persona_id"))},
)
