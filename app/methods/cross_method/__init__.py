"""Cross-method validity in the app: its page, its run form and its Compare section."""

from app.methods.base import Hook, MethodView, PageInfo

SECTION = "Other methods"
VIEW = MethodView(
    name="cross_method", label="Cross-method", order=6, section=SECTION,
    pages=(PageInfo("app/methods/cross_method/page.py", "Cross-method", ":material/hub:", "cross-method", SECTION,
                    "One persona set through every method: do the methods agree about a persona? MTMM, convergent "
                    "and discriminant pairs, chance bands."),),
    run_form=Hook("app.methods.cross_method.run_form:form"),
    compare=Hook("app.methods.cross_method.compare:section"),
)
