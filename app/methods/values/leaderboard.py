"""The values section of the Leaderboard: Cardinal / Ordinal ranking, metric columns with CIs, diversity and sensitivity."""

import pandas as pd
import streamlit as st

from app import data, state, ui
from app.methods.values import charts as values_charts
from app.methods.values import data as values_data


def section(ctx: ui.PageContext) -> None:
    """The Stick to Your Role! board (reference ``rank_models.py``) for the sidebar's models."""
    ref = ctx.ref
    st.subheader("Values (Stick to Your Role!)")
    st.caption("Kovač et al. 2024: how well each model keeps a simulated "
               "persona's values stable across conversation contexts, and how valid their structure is.")

    if not data.has_rows(ref, "values_answers"):
        ui.empty(f"No value questionnaire answers in **{ref.name}**.",
                 "Run the values method on the **Run** page, or import Stick to Your Role! `results.json` files on the "
                 "**Data** page.")
        return

    with st.spinner("Computing structure, CFA and stability for every model (cached afterwards)…"):
        doc = values_data.values_doc(ref)
        board = values_data.values_board(ref)
    models = ctx.pick(list(doc["models"]))
    if not models:
        ui.empty("None of the models picked in the sidebar has values answers.")
        return
    ui.model_notes(models, data.model_specs(ref))
    ui.headlines(ref, "values", models)
    rows, _ = ranking(ctx, doc, board, models)
    published_beside(doc, rows, models)
    robustness(board, len(board["rows"]))
    all_columns(ctx, rows, board)


#: The mark of the columns where a failed CFA fit is scored (CFI 0, RMSEA 1, SRMR 1), explained under the table.
SCORED = "†"


def column_config() -> dict:
    """The board's columns: labels, direction arrows and what each means; † marks the failure-scored CFA columns."""
    num = lambda label, help, fmt="%.3f": st.column_config.NumberColumn(label, help=help, format=fmt)  # noqa: E731
    return {
        "model": st.column_config.TextColumn("model"),
        "cardinal": st.column_config.ProgressColumn("Cardinal ↑", help="Mean of the model's leaderboard columns", min_value=0.0,
                                                    max_value=1.0, format="%.3f"),
        "ordinal": st.column_config.ProgressColumn("Ordinal ↑",
                                                   help="Mean win rate over the columns (#models strictly lower / (M−1))",
                                                   min_value=0.0, max_value=1.0, format="%.3f"),
        "rank_order": num("Rank-order ↑", "Spearman across personas of ipsatised value scores between two contexts; "
                                        "mean over pairs and values"),
        "rank_order_ci": st.column_config.TextColumn("95% CI", help="Percentile bootstrap over personas (1000 resamples)"),
        "rank_order_chance": st.column_config.TextColumn(
            "RO vs chance", help="Largest p-value of the rank-order stability under random answers and under answers shuffled "
                                 "across personas, simulated on the model's own design ('chance-like': random answers could "
                                 "score as well)"),
        "ipsative": num("Ipsative ↑", "Per persona, Spearman over the 10 values between two contexts; mean over personas and pairs"),
        "ipsative_ci": st.column_config.TextColumn("95% CI ", help="Percentile bootstrap over personas (1000 resamples)"),
        "stress": num("Stress ↓", "Stress-1 of the theory-initialised MDS of item correlations (lower is better); mean over contexts"),
        "cfi": num(f"CFI ↑ {SCORED}", "Comparative fit index of the magnifying-glass CFA, mean over contexts; "
                                       f"{SCORED} a failed fit scored 0 here, as the reference's leaderboard does"),
        "srmr": num(f"SRMR ↓ {SCORED}", "Standardised root mean square residual (lower is better); "
                                         f"{SCORED} a failed fit scored 1 here, as the reference's leaderboard does"),
        "rmsea": num(f"RMSEA ↓ {SCORED}", "Root mean square error of approximation (lower is better); "
                                           f"{SCORED} a failed fit scored 1 here, as the reference's leaderboard does"),
        "rank": st.column_config.TextColumn("#", width="small", help="— : the score is undefined (never ranked)"),
        "n_columns": st.column_config.NumberColumn("columns", help="Leaderboard columns the model's score averages over"),
        "cfa_failed": st.column_config.TextColumn(f"failed CFA fits {SCORED}",
                                                  help="Fits the leaderboard scored by the failure rule (CFI 0, RMSEA 1)"),
        "undefined": st.column_config.TextColumn("why undefined"),
        "personas": st.column_config.NumberColumn("personas"),
        "invalid_share": st.column_config.NumberColumn("invalid", help="Share of answers that could not be parsed", format="percent"),
    }


def ranking(ctx: ui.PageContext, doc: dict, board: dict, models: list[str]) -> tuple[pd.DataFrame, str]:
    """The ranked table (undefined scores unranked) and its charts; returns the rows and the ranking score."""
    ref = ctx.ref
    score = state.segmented("Rank by", ["cardinal", "ordinal"], key="score", format_func=str.capitalize,
                            help="Cardinal = mean of the columns; Ordinal = mean win rate over the columns.")
    rows = values_data.leaderboard_rows(ref)
    rows = rows[rows["model"].isin(models)].copy()
    for key in ("rank_order", "ipsative"):
        rows[f"{key}_ci"] = [ui.ci_text(None, lo, hi) for lo, hi in zip(rows[f"{key}_lo"], rows[f"{key}_hi"])]
    bands = data.chance(ref, "values")
    rows["rank_order_chance"] = [ui.vs_chance((bands.get(m) or {}).get("rank_order")) for m in rows["model"]]
    rows = rows.sort_values(score, ascending=False, kind="stable", na_position="last").reset_index(drop=True)
    defined = rows[score].notna()
    # undefined is never ranked: "—" instead of a rank, and the reason beside it
    rows.insert(0, "rank", [str(k) for k in range(1, int(defined.sum()) + 1)] + ["—"] * int((~defined).sum()))
    rows["cfa_failed"] = [f"{int(f)} of {int(n)}" if n else "—" for f, n in zip(rows["cfa_failed"], rows["cfa_fits"])]
    rows["undefined"] = ["" if ok else ("no leaderboard column: value structure undefined in every context (fewer than 3 "
                                        "personas, or no correlation)" if not n else "no column with a score")
                         for ok, n in zip(defined, rows["n_columns"])]

    n_all = len(board["rows"])
    meaning = ("Cardinal score: the mean of the model’s columns" if score == "cardinal" else
               "Ordinal score: the mean over columns of the share of other models it beats")
    st.caption(f"{meaning} "
               f"(reference `rank_models.py`). Scores are computed over the {n_all} model{'s' * (n_all != 1)} of the store; "
               "click a column header to sort. 95% CIs: percentile bootstrap over personas.")
    ui.readers_caption("values")
    config = column_config()
    order = ["rank", "model", "cardinal", "ordinal", "n_columns", "invalid_share", "personas", "rank_order", "rank_order_ci",
             "rank_order_chance", "ipsative", "ipsative_ci", "stress", "cfi", "srmr", "rmsea", "cfa_failed", "undefined"]
    if not rows["undefined"].any():
        order.remove("undefined")
    ui.table(rows[[c for c in order if c in rows]], hide_index=True, width="stretch", column_config=config, key="board")
    counts = sorted({int(n) for n, ok in zip(rows["n_columns"], defined) if ok})
    if len(counts) > 1:
        st.warning(f"The models are averaged over different numbers of columns ({', '.join(map(str, counts))}): a model "
                   "without some contexts is scored on the others only, so these scores are not on the same footing. "
                   "Compare models run on the same contexts.", icon="⚠️")
    failed = int(rows["cfa_failed"].str.split(" of ").str[0].replace("—", "0").astype(int).sum())
    st.caption(f"{SCORED} {board['failure_scoring']}. A fit fails when it does not converge, a latent correlation "
               "reaches 1, a covariance matrix is not positive definite …; 'failed CFA fits' counts a model's fits scored so "
               f"({failed} in this table), and the Cardinal and Ordinal scores include them. The Structure page shows each "
               "failed fit as — with its reason.")

    # Drawn on demand: the table already carries the scores as bars, and the page paints faster without Plotly.
    chart_box = st.expander("Charts: the ranking score, and rank-order stability with 95% CIs", key="charts",
                            on_change="rerun", bind="query-params")
    if chart_box.open:
        left, right = chart_box.columns(2)
        with left:
            st.markdown(f"**{score.capitalize()} score**")
            ui.plot(values_charts.leaderboard_bars(ref, tuple(models), score, False), key="score_bars")
        with right:
            st.markdown("**Rank-order stability with 95% CI**")
            ui.plot(values_charts.leaderboard_bars(ref, tuple(models), "rank_order", True), key="ro_bars")
    return rows, score


def published_beside(doc: dict, rows: pd.DataFrame, models: list[str]) -> None:
    """The published leaderboard's figures beside this store's models that ran its protocol."""
    st.subheader("Beside the published Stick to Your Role! leaderboard")
    paper = data.published("values")
    if len(paper):
        board_pub = paper.pivot(index="model", columns="metric", values="value").reset_index()
        board_pub = board_pub[["model", "cardinal", "ordinal", "rank_order"]].assign(
            model=lambda f: f["model"] + " (published)", protocol="published")
        # this store's models on the same columns, when their run is the leaderboard's protocol; the others say why not
        off = {m: doc["models"][m]["off_protocol"] for m in models}
        ours = rows[rows["model"].isin([m for m, why in off.items() if why is None])]
        ours = pd.DataFrame({"model": ours["model"], "cardinal": ours["cardinal"], "ordinal": None,
                             "rank_order": ours["rank_order"], "protocol": "this store: leaderboard campaign"})
        side = pd.concat([board_pub, ours], ignore_index=True).sort_values("cardinal", ascending=False, na_position="last")
        st.caption("Figures published by the leaderboard for real models, bundled with their source, with this store's models "
                   "that ran its protocol (`python -m analysis run values --campaign leaderboard --reference PATH`: nine "
                   "evaluations, 50 personas). The published Ordinal win rate is relative to the leaderboard's own pool of "
                   "models, so a store model has none here (—). "
                   f"Source: {paper['source'].iloc[0]}")
        ui.table(side, hide_index=True, width="stretch",
                 column_config={"cardinal": st.column_config.NumberColumn("Cardinal ↑", format="%.3f"),
                                "ordinal": st.column_config.NumberColumn("Ordinal ↑ (its pool)", format="%.3f"),
                                "rank_order": st.column_config.NumberColumn("RO stability ↑", format="%.3f"),
                                "protocol": st.column_config.TextColumn("from")})
        left_out = {m: why for m, why in off.items() if why is not None}
        if left_out:
            st.caption("Not placed beside the published figures (not the leaderboard's protocol): "
                       + "; ".join(f"**{m}**: {why}" for m, why in left_out.items()) + ".")


def robustness(board: dict, n_all: int) -> None:
    """Diversity and sensitivity of the ranking (benchbench)."""
    st.subheader("Is the benchmark's ranking robust?")
    st.caption("Zhang & Hardt 2024 (benchbench): diversity = 1 − Kendall's W of the columns' rankings (0 = all columns agree); "
               "sensitivity = how far a model can move when columns are re-weighted (cardinal) or irrelevant models are added "
               "(ordinal): τ = (1 − Kendall τ)/2, MRC = max rank change / (M − 1). Ordinal sensitivity uses the reference's "
               "split (benchbench's default, as value_stability calls it): the relevant models L are the first M//5 rows of "
               "the table, which the reference lists in its own hand-written order and RoleScope by model name (not by "
               "score); the others may be added. It needs at least 10 models.")
    sens = board.get("sensitivity") or {}
    m = st.columns(6)
    m[0].metric("Kendall's W", ui.fmt(board.get("kendall_w"), 2))
    m[1].metric("Diversity", ui.fmt(board.get("diversity"), 2))
    for k, kind in enumerate(("cardinal", "ordinal")):
        s = sens.get(kind) or {}
        m[2 + 2 * k].metric(f"{kind.capitalize()} sensitivity τ", ui.fmt(s.get("tau"), 2))
        m[3 + 2 * k].metric(f"{kind.capitalize()} MRC", ui.fmt(s.get("mrc"), 2), help=s.get("reason"))
    undefined = [f"{kind} sensitivity: {(sens.get(kind) or {}).get('reason')}" for kind in ("cardinal", "ordinal")
                 if (sens.get(kind) or {}).get("reason")]
    if undefined:
        st.caption("— = undefined: " + "; ".join(undefined) + ".")
    if n_all < 3:
        st.caption("With fewer than 3 models, diversity and sensitivity say little (they are undefined for one model).")


def all_columns(ctx: ui.PageContext, rows: pd.DataFrame, board: dict) -> None:
    """Every leaderboard column of the shown models."""
    ref = ctx.ref
    with st.expander("All leaderboard columns (higher is better in every column)"):
        columns = values_data.values_columns(ref)
        columns = columns.loc[[m for m in rows["model"] if m in columns.index]]
        st.caption("`RO:a|b` = rank-order stability between contexts a and b; per context `1-Stress`, `CFI`, `1-SRMR`, "
                   f"`1-RMSEA` ({SCORED} the CFA columns: {board['failure_scoring']}).")
        ui.table(columns, width="stretch",
                     column_config={c: st.column_config.NumberColumn(c, format="%.3f") for c in columns.columns})
