"""Trust game: stated beliefs vs played behaviour per attribute, conditioning, forecasts vs play per round."""

import pandas as pd
import streamlit as st

from analysis import published
from analysis.methods.trust.report_types import (
    FORECASTS_IMPORTED, agreement_rows, count_text, imported_rows, invalid_text, mean_sd_text, personas_text, vs_human_text,
)
from app import data, state, ui
from app.methods.trust import charts as trust_charts
from app.methods.trust import data as trust_data

ctx, models = ui.method_page(
    "trust", "Do role-playing agents practise what they preach? A persona states how much people like it would send in "
    "a trust game (beliefs), then plays the game (behaviour); the two should agree (Mannekote et al. 2025). The Trustor "
    "gets an endowment, sends part of it, the amount is tripled.", trust_data.trust_models, nothing="trust-game results",
    hint="Run it on the **Run** page, or from a shell: `python -m analysis run trust --model embedded --limit-personas "
         "10` (population level; add `--level individual` for repeated games).")
ref = ctx.ref

model = state.selectbox("Model", models, key="model")
ui.model_notes([model], data.model_specs(ref))
mdoc = trust_data.trust_doc(ref)["models"][model]
invalid = mdoc.get("invalid_replies") or mdoc.get("invalid") or {}
st.caption(f"Endowment ${mdoc.get('endowment')}; unparseable replies kept and counted: " + invalid_text(mdoc) + ".")
ui.readers_caption("trust")
st.caption(personas_text(mdoc.get("personas") or {}))
reasons = mdoc.get("invalid_reasons") or {}
if reasons:
    with st.expander("Why replies failed to parse"):
        ui.table(pd.DataFrame([{"table": t, "reason": r, "replies": n} for t, by in reasons.items() for r, n in by.items()]),
                     hide_index=True, width="stretch")
        st.caption("Every reply is stored with its reason; the Data page shows the raw text.")


def _outside(d: dict) -> str | None:
    """'3 (Full time 2, Catholic 1)' for an attribute's personas outside its levels; None in documents without it."""
    if d.get("n_outside_levels") is None:
        return None
    by = d.get("outside_levels") or {}
    return str(d["n_outside_levels"]) + (" (" + ", ".join(f"{v} {n}" for v, n in by.items()) + ")" if by else "")


def behaviour_only(why: str) -> None:
    """What the personas sent, when no belief parsed (so there is no consistency to compute)."""
    behaviour = mdoc.get("behaviour") or {}
    if not behaviour.get("n_personas"):
        ui.empty(why + " No persona played with a valid amount either.")
        return
    cond = behaviour.get("conditioning", "none")
    how = "" if cond == "none" else (
        f" (from the `{cond}`-conditioned games, whose role prompts carried "
        + (f"{behaviour['priors_in_prompt']} prior ranking(s))" if behaviour.get("priors_in_prompt") else "no belief)"))
    st.info(why + " Below is the behaviour alone: the single-round sends of the personas who played" + how + ".")
    m = st.columns(2)
    m[0].metric("Personas with a valid send", behaviour["n_personas"])
    m[1].metric("Mean sent", f"${behaviour['mean_sent']:.2f}")
    ui.plot(trust_charts.trust_behaviour(ref, model), key="behaviour")
    st.caption("η² = SS_between / SS_total of the send by the attribute's levels (empty when every send is equal). With "
               "one or two personas per level it is large by chance: hover a bar for the mean send and n per level.")

def imported_section(imported: dict) -> None:
    """Published answers imported from a source (one configuration per condition): amounts sent, and how RoleScope's
    reading of the replies agrees with the source's own extraction."""
    st.subheader("Imported published answers")
    used = next((c for c, e in imported.items() if e.get("used")), next(iter(imported)))
    st.info(f"What this source supports: {imported[used].get('supports')}.")
    ui.table(pd.DataFrame(imported_rows(imported)), hide_index=True, width="stretch")
    st.caption("Shift from base: the mean over the personas valid in both conditions of (amount in the condition − "
               "amount in the base condition), $ of a $10 endowment, with its paired 95 % bootstrap CI over personas.")
    config = state.selectbox("Condition", list(imported), key="imported_condition", default=used,
                             format_func=lambda c: str(imported[c].get("condition")))
    entry = imported[config]
    m = st.columns(2)
    m[0].metric("Amount sent, the source's extraction (mean ± SD)", mean_sd_text(entry.get("amount_sent") or {}),
                help="Over the amounts the source stored within [0, endowment]; others (above the endowment, "
                     "\"I don't know\", NaN) are invalid, never clipped. SD with n − 1.")
    m[1].metric("Amount sent, RoleScope's reading (mean ± SD)", mean_sd_text(entry.get("amount_sent_reader") or {}),
                help="The trust-amount reader over each stored reply (whole dollars in [0, endowment]).")
    ui.plot(trust_charts.trust_imported(ref, model, config), key="imported_distribution")
    st.markdown("**RoleScope's reading vs the source's extraction** (per persona)")
    ui.table(pd.DataFrame(agreement_rows(entry)), hide_index=True, width="stretch")
    st.caption(f"Source {entry.get('source')}, condition {entry.get('condition')}, endowment ${entry.get('endowment')}. "
               "The Samples page shows each persona's reply next to both readings.")


def versus_human() -> None:
    """The ``trust_vs_human`` headline as the report holds it: the model's mean sent against Berg et al.'s humans."""
    entry = (mdoc.get("headlines") or {}).get("trust_vs_human") or {}
    by = f" by {entry['extraction']} extraction" if entry.get("extraction") else ""
    st.markdown(f"**Amount sent against humans** (Trust: sent − human){by}: {vs_human_text(entry)}")
    if (mine := entry.get("by_rolescope_reading")) is not None:  # the same number on RoleScope's own reading
        st.markdown(f"By RoleScope's reading of the same replies: {vs_human_text(mine)}")
    if entry.get("value") is not None:
        st.caption(f"{entry.get('note')}. Human baseline: {entry.get('source')}; {entry.get('baseline_note')}. "
                   "Unread replies are no random sample: under 90 % read, the number with every unread reply at $0 "
                   "and at $10 shows how far they could move it.")


versus_human()
imported = mdoc.get("imported") or {}
if imported:
    imported_section(imported)
is_import = any(e.get("used") for e in imported.values())

tabs = st.tabs(["Population", "Conditioning", "Individual", "Endowment ablation"])
with tabs[0]:
    population = mdoc.get("population") or {}
    if not population and is_import:
        behaviour_only("Imported published answers: the source elicited no beliefs apart from the game, so there is "
                       "no belief–behaviour consistency to compute.")
    elif not population:
        behaviour_only(f"No valid beliefs for this model ({invalid.get('beliefs', 0)} unparseable), so there is "
                       "nothing to compare the play with.")
    else:
        strategies = list(population)
        strategy = state.segmented("Belief elicitation", strategies, key="strategy",
                                   default="Ctx+Tr" if "Ctx+Tr" in strategies else None,
                                   help="NoCtx+Tr: trust ranking without the game; Ctx+Tr: with the game described; "
                                        "Ctx+$: expected dollars sent per level.")
        pop = population[strategy]
        with st.spinner(f"Simulating chance on this design ({data.CHANCE_SIMS} random plays per null model; cached after)…"):
            bands = (((data.chance(ref, "trust").get(model) or {}).get("population") or {}).get(strategy) or {})
        m = st.columns(3)
        m[0].metric("Median Spearman ↑", ui.ci_text(pop.get("median_spearman"), *(pop.get("median_spearman_ci") or [None, None])),
                    help="Median over attributes of Spearman between the belief ranking of the levels and the ranking by mean "
                         "transfer in play; 95% bootstrap CI over personas.")
        m[1].metric("Median |η² belief − η² behaviour| ↓",
                    ui.ci_text(pop.get("median_abs_diff"), *(pop.get("median_abs_diff_ci") or [None, None])),
                    help="How far the stated effect size of an attribute is from the effect size in play (one-way ANOVA η²).")
        m[2].metric("Personas who played", pop.get("n_personas", 0))
        st.caption(f"Effect-size consistency (the paper's MAE, Sec. 4.3): mean over attributes of |η² belief − η² "
                   f"behaviour| = {ui.ci_text(pop.get('mae_eta2'), *(pop.get('mae_eta2_ci') or [None, None]))}.")
        with m[0]:
            ui.chance_caption(bands.get("median_spearman"), 2)
        with m[1]:
            ui.chance_caption(bands.get("median_abs_diff"), 2)
        half = pop.get("reliability") or {}
        with m[2]:
            st.caption(f"Split-half reliability of behaviour (Spearman–Brown, {half.get('n_splits', 0)} random splits of the "
                       f"personas): {ui.fmt(half.get('split_half'), 2)}" + (f" — {half['reason']}" if half.get("reason") else ""))
        paper = data.published("trust")
        paper = paper[paper["metric"].isin([f"median_spearman/{strategy}", f"median_abs_diff/{strategy}"])]
        if len(paper):
            wide = paper.assign(metric=paper["metric"].str.split("/").str[0]).pivot(index="model", columns="metric",
                                                                                   values="value")
            st.caption(f"Published (paper, Table 3, {strategy}; figures from the paper, not computed here): " + "; ".join(
                f"{name}: ρ {ui.fmt(r['median_spearman'], 2)}, |Δη²| {ui.fmt(r['median_abs_diff'], 2)}"
                for name, r in wide.iterrows()))
        st.caption("Per attribute: do the levels the persona believes send more actually send more (left), and is the "
                   "attribute's stated effect as strong as its effect in play (right)?")
        attributes = pop.get("attributes") or {}
        if any(d.get(k) is not None for d in attributes.values() for k in ("spearman", "eta2_behaviour")):
            ui.plot(trust_charts.trust_attributes(ref, model, strategy), key="attributes")
        else:
            st.info(f"Nothing to draw: no attribute has a defined ρ or η² of behaviour. Both need two levels of the "
                    f"attribute played with valid transfers ({(mdoc.get('behaviour') or {}).get('n_personas', 0)} "
                    "personas sent a valid amount).")
        rows = [{"attribute": a, "belief ranking": " > ".join(d.get("belief_ranking") or []),
                 "behaviour ranking": " > ".join(d.get("behaviour_ranking") or []), "Spearman ↑": d.get("spearman"),
                 "η² belief": d.get("eta2_belief"), "η² behaviour": d.get("eta2_behaviour"), "|Δη²| ↓": d.get("abs_diff"),
                 "levels compared": d.get("n_levels_compared"), "personas grouped": d.get("n_grouped"),
                 "outside its levels": _outside(d)} for a, d in pop["attributes"].items()]
        ui.table(pd.DataFrame(rows), hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(c, format="%.2f")
                                    for c in ("Spearman ↑", "η² belief", "η² behaviour", "|Δη²| ↓")})
        st.caption("A ranking of 3–4 levels matches the belief by chance one time in 6–24: a single attribute's ρ = 1 is "
                   "weak evidence; the chance band above is that of the median over attributes. 'outside its levels': "
                   "personas whose value of the attribute is not one of the levels asked about (a GenAgents persona "
                   "who is Catholic, or works full time): left out of that attribute only.")
with tabs[1]:
    conditioning = mdoc.get("conditioning") or {}
    measured = {c: d for c, d in conditioning.items() if d.get("attributes")}
    if not conditioning:
        ui.empty("No conditioning runs for this model.",
                 "Run `python -m analysis run trust --conditioning self|weak|strong` to put beliefs into the role prompt.")
    elif not measured:
        ui.empty(f"The conditioned run{'s' * (len(conditioning) > 1)} ({', '.join(conditioning)}) put no prior into the "
                 "role prompts (no belief parsed), so there is no conditioning effect to measure.")
    else:
        conditioning = measured
        st.caption("The role prompt carries no beliefs (none), the model's own (self), or priors perturbed to Spearman 0.8 "
                   "(weak) / 0.2 (strong) with the original. If behaviour follows the prompt, the blue bar is high; if it "
                   "follows the model's own beliefs regardless, the orange one is.")
        ui.plot(trust_charts.trust_conditioning(ref, model), key="conditioning")
        ui.table(pd.DataFrame([{"conditioning": c, "strategy": d.get("strategy"),
                                    "median ρ with prompt prior": d.get("median_spearman_imposed"),
                                    "median ρ with original beliefs": d.get("median_spearman_original"),
                                    "target reached (attributes)": (f"{d['n_reached']} of {d['n_with_target']}"
                                                                    if "n_reached" in d else "—"),
                                    "median ρ with prompt prior, target reached": d.get("median_spearman_imposed_reached"),
                                    "MAE η² ↓": d.get("mae_eta2"),
                                    "personas": d.get("n_personas"),
                                    "invalid transfers": count_text(d.get("invalid_transfers"))}
                                   for c, d in conditioning.items()]),
                     hide_index=True, width="stretch")
        st.caption("Imposed priors aim at Spearman 0.8 (weak) / 0.2 (strong) with the original ranking; on 2- and "
                   "3-level attributes no ranking has that ρ and the closest one is imposed (often the original itself, "
                   "i.e. self-conditioning). 'target reached' = achieved ρ within 0.05 of the target; the medians of "
                   "that column use only those attributes. MAE η²: mean |η² of the original belief − η² in play|.")
        table4 = published.load("trust")["table4"]["conditions"]
        st.caption("Published (paper, Table 4, median Spearman; figures from the paper, not computed here): " + "; ".join(
            f"{cond}: " + ", ".join(f"{m} {ui.fmt(v, 2)}" for m, v in by.items()) for cond, by in table4.items()))
        with st.expander("Achieved prior ρ per attribute"):
            ui.table(pd.DataFrame([{"conditioning": c, "attribute": a, "levels": r.get("n_levels"), "target ρ": r.get("target"),
                                    "achieved ρ": r.get("prior_spearman"), "reached": r.get("target_reached"),
                                    "ρ with prompt prior": r.get("spearman_imposed"),
                                    "ρ with original": r.get("spearman_original")}
                                   for c, d in conditioning.items() for a, r in d["attributes"].items()]),
                     hide_index=True, width="stretch")
with tabs[2]:
    archetypes = (mdoc.get("individual") or {}).get("archetypes") or {}
    if not archetypes and imported:
        st.info(FORECASTS_IMPORTED)
    elif not archetypes:
        ui.empty("No individual-level games for this model.", "Run `python -m analysis run trust --level individual`.")
    elif not any(d.get("n_pairs") for d in archetypes.values()):
        st.info(f"No round has both a valid forecast and a valid send ({invalid.get('forecasts', 0)} forecasts "
                "unparseable), so there is no forecast error to show. Below is the play alone: the mean send per round "
                "over the personas whose round was played with a valid amount.")
        if any(d.get("n_personas") for d in (mdoc.get("play") or {}).values()):
            ui.plot(trust_charts.trust_play(ref, model), key="play")
        else:
            st.info("Nothing to draw either: no round was played with a valid amount.")
    else:
        st.caption("Before playing 6 rounds against a Trustee who returns min($k, 3 × sent), the persona forecasts its send "
                   "per round; MAE = mean |forecast − actual send| over personas, by round and overall (95% CI over personas).")
        ui.plot(trust_charts.forecast_mae(ref, model), key="mae")
        with st.spinner("Simulating chance forecasts…"):
            mae_bands = ((data.chance(ref, "trust").get(model) or {}).get("individual") or {})
        ui.table(pd.DataFrame([{"archetype k": int(k), "MAE ↓": d.get("mae"),
                                    "95% CI": ui.ci_text(None, *(d.get("mae_ci") or [None, None])),
                                    "chance (random forecasts)": ui.chance_text({"uniform": ((mae_bands.get(k) or {}).get("mae") or {}).get("uniform")}, 2),
                                    "vs chance": ui.vs_chance((mae_bands.get(k) or {}).get("mae")),
                                    "personas": d.get("n_personas"), "pairs": d.get("n_pairs")}
                                   for k, d in sorted(archetypes.items(), key=lambda kv: int(kv[0]))]),
                     hide_index=True, width="stretch", column_config={"MAE ↓": st.column_config.NumberColumn("MAE ↓", format="%.2f")})
        st.caption("Chance: forecasts drawn uniformly from $0 to the endowment, or another persona's forecasts for the "
                   "same Trustee (the forecasts kept, their link to the persona's own play broken).")
    trajectories = (mdoc.get("individual") or {}).get("trajectories") or {}
    if trajectories:
        st.markdown("**Forecasts next to play** (the paper's Tables 6–8: one table per Trustee archetype)")
        c = st.columns(2)
        k = state.selectbox("Trustee archetype k", sorted(trajectories, key=int), key="trace_k", container=c[0])
        persona = state.selectbox("Persona", sorted(trajectories[k]), key="trace_persona", container=c[1])
        ui.table(pd.DataFrame([{"round": r["round"], "forecast $": r["forecast"], "forecast explanation": r["explanation"]
                                or (f"— ({r['forecast_reason']})" if r.get("forecast_reason") else "—"),
                                "sent $": r["sent"], "returned $": r["returned"],
                                "play": "played" if r["valid"] else (r.get("reason") or "invalid")}
                               for r in trajectories[k][persona]]), hide_index=True, width="stretch")
        st.caption("Each forecast is made before its round from a crafted state summary (round 1: the game has just "
                   "started; later: the Trustee has returned $k after each transfer, and how many rounds remain), as in "
                   "the paper; runs with `--forecast upfront` forecast every round before play.")
with tabs[3]:
    endowments = mdoc.get("endowments") or {}
    if len(endowments) < 2:
        st.caption(f"One endowment in the store (${mdoc.get('endowment')}). The ablation (the paper's Table 9) runs the "
                   "population level at $10, $44 and $100 in one command: `python -m analysis run trust --endowments "
                   "10,44,100`.")
    rows = [{"strategy": s, "endowment": f"${e}", "mean Spearman (Table 9)": d.get("mean_spearman"),
             "median Spearman": d.get("median_spearman"), "median |Δη²|": d.get("median_abs_diff"),
             "MAE η²": d.get("mae_eta2"), "personas": d.get("n_personas")}
            for e, by in sorted(endowments.items(), key=lambda kv: int(kv[0])) for s, d in by.items()]
    if rows:
        frame = pd.DataFrame(rows)
        st.markdown("**Mean Spearman per strategy and endowment** (the paper's Table 9)")
        ui.table(frame.pivot(index="strategy", columns="endowment", values="mean Spearman (Table 9)")
                 .reindex(columns=[r["endowment"] for r in rows if r["strategy"] == rows[0]["strategy"]]),
                 width="stretch")
        ui.table(frame, hide_index=True, width="stretch")
        with st.expander("Published (paper, Table 9: mean Spearman; figures from the paper, not computed here)"):
            st.caption("How the paper aggregated Table 9 is unknown: its $10 column matches neither the mean nor the "
                       "median over attributes of its own Table 3. RoleScope's 'mean Spearman' is the mean over "
                       "attributes with a defined ρ; set the two side by side with that in mind.")
            table9 = published.load("trust")["table9"]["models"]
            ui.table(pd.DataFrame([{"model": m, "strategy": s, **{f"${e}": v for e, v in by.items()}}
                                   for m, strategies in table9.items() for s, by in strategies.items()]),
                     hide_index=True, width="stretch")
        with st.expander("Per attribute"):
            ui.table(pd.DataFrame([{"strategy": s, "endowment": f"${e}", "attribute": a, "Spearman": r.get("spearman"),
                                    "|Δη²|": r.get("abs_diff")}
                                   for e, by in endowments.items() for s, d in by.items()
                                   for a, r in (d.get("attributes") or {}).items()]), hide_index=True, width="stretch")
