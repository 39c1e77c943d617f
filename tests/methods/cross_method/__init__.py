"""Tests of cross-method validity (one persona set through every method; ``analysis.methods.cross_method``)."""

#: ``run cross-method`` options of a small campaign, for the contract test over every method
#: (tests/test_method_contract.py): the two questionnaires, which the stub server answers.
CONTRACT_RUN = ["--personas", "5", "--methods", "values,inventory",
                "--set", "values.limit_items=20,inventory.inventory=rolescope-mini,inventory.order=ascending,"
                         "inventory.answer_mode=text"]


def fixture_answers(store, model: str, seed: int) -> None:
    """The app fixture store's campaign of ``model`` (``tests/app/fixture_store.py``): 12 bundled personas through
    values, the inventory and the trust game, with planted links across methods (``synthetic.build_campaign``)."""
    from tests.methods.cross_method.synthetic import build_campaign

    run_id = build_campaign(store, model, "12", seed=seed, run_id=f"xm-{model}")
    # the campaign ran a day before the fixture's other runs: each method's own run stays its latest configuration
    store.redate_run(run_id, store.get_run(run_id)["created_at"] - 86400, with_parts=True)


#: The seed offset of this method's answers in the app fixture store (``tests/app/fixture_store.py``: model k's seed is
#: k + FIXTURE_SEED; the store writes methods in this order).
FIXTURE_SEED = 41
