"""Personality inventories in the app: their page and run form."""

from app.methods.base import Hook, MethodView, PageInfo, SampleTable

SECTION = "Other methods"
VIEW = MethodView(
    name="inventory", label="Inventory", order=5, section=SECTION,
    pages=(PageInfo("app/methods/inventory/page.py", "Inventories", ":material/checklist:", "inventory", SECTION,
                    "Big Five profiles with human norms, α / ω / λ6, test–retest, shaping, MTMM.",
                    heading="Personality inventories"),),
    run_form=Hook("app.methods.inventory.run_form:form"),
    summary=("IPIP-NEO or any Likert inventory given to personas shaped to target trait levels, scored against "
             "human norms (Serapio-García et al. 2023). *Shaping ρ*: Spearman of target level against score, mean "
             "over the domains; *α*: Cronbach's α, mean over the domains (within persona type, median over types, when "
             "the personas are shaped types: pooled over types it is inflated by shaping)."),
    campaign_form=Hook("app.methods.inventory.campaign_form:options"),
    compare=Hook("app.methods.inventory.compare:section"),
    samples={"inventory_answers": SampleTable("Inventory answers", ("persona_id", "inventory", "order_mode", "domain"))},
)
