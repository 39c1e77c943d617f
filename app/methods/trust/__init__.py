"""The trust game in the app: its page and its run form."""

from app.methods.base import Hook, MethodView, PageInfo, SampleTable

SECTION = "Other methods"
VIEW = MethodView(
    name="trust", label="Trust", order=3, section=SECTION,
    pages=(PageInfo("app/methods/trust/page.py", "Trust game", ":material/handshake:", "trust", SECTION,
                    "Belief vs behaviour per attribute, conditioning, forecasts vs play."),),
    run_form=Hook("app.methods.trust.run_form:form"),
    summary=("Personas state beliefs about trusting others and then play the trust game (Mannekote et al. 2025): "
             "does what they do follow what they believe? *Belief–behaviour Spearman*: the median Spearman of "
             "belief vs behaviour rankings over attributes."),
    campaign_form=Hook("app.methods.trust.campaign_form:options"),
    samples={"trust_transfers": SampleTable("Trust transfers", ("conditioning", "endowment")),
             "trust_beliefs": SampleTable("Trust beliefs", ("strategy", "endowment")),
             "trust_forecasts": SampleTable("Trust forecasts", ("archetype",)),
             "trust_rounds": SampleTable("Trust rounds", ("archetype", "persona_id"))},
)
