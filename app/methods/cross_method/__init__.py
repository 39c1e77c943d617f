"""Cross-method validity in the app: its page, its run form and its Compare section."""

from app.methods.base import Hook, MethodView, PageInfo

SECTION = "Other methods"
VIEW = MethodView(
    name="cross_method", label="Cross-method", order=6, section=SECTION,
    pages=(PageInfo("app/methods/cross_method/page.py", "Cross-method", ":material/hub:", "cross-method", SECTION,
                    "One persona set through every method: do the methods agree about a persona? MTMM, convergent "
                    "and discriminant pairs, chance bands.", heading="Cross-method validity"),),
    run_form=Hook("app.methods.cross_method.run_form:form"),
    summary=("One persona set through values, the inventory, the trust game and PersonaGym: do the methods agree "
             "about each persona as people's answers do (RoleScope's own analysis)? *Convergent r*: the mean r of "
             "the pairs predicted to agree; *pattern r*: how well all pairs' r follow the prediction."),
    compare=Hook("app.methods.cross_method.compare:section"),
)
