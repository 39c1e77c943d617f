"""Personality inventories: Big Five profiles with human norms, reliability, test–retest, shaping, MTMM and the
published figures, all read from the inventory report."""

import pandas as pd
import streamlit as st

from analysis.methods.inventory import figures as inv_figures
from analysis.methods.inventory import plots
from app import data, samples, state, ui
from app.methods.inventory import data as inv_data

ctx, models = ui.method_page(
    "inventory", "Can a model play a persona's personality on a standard inventory? Each item is asked on its own with "
    "the persona's description (Serapio-García et al. 2023); scores per domain against human norms, reliability (α, ω, "
    "λ6), test–retest across option orders, and shaping: personas given a target level on one domain, recovered from "
    "their answers.", inv_data.models, nothing="inventory answers",
    hint="Run the inventory method on the **Run** page (or `python -m analysis run inventory --model SPEC`).")
ref = ctx.ref

left, right = st.columns(2)
model = state.selectbox("Model", models, key="model", container=left)
mdoc = inv_data.doc(ref)["models"][model]
inventories = list(mdoc["inventories"])
inventory = state.selectbox("Inventory", inventories, key="inventory", container=right, default=mdoc["inventory"])
idoc = mdoc["inventories"][inventory]
ui.model_notes([model], data.model_specs(ref))
origin = idoc.get("provenance") or {}
if origin.get("imported"):
    st.info(f"**Imported published answers** of {model}: {origin.get('citation') or origin.get('source')}. "
            f"Administration: {origin.get('administration')}; its own configuration, never pooled with item-by-item "
            "runs." + (f" {origin['text_note']}." if origin.get("text_note") else ""), icon="📥")
with st.spinner(f"Simulating chance on this design ({data.CHANCE_SIMS} answer sets per null model; cached after)…"):
    bands = ((data.chance(ref, "inventory").get(model) or {}).get("_all") or {}).get(inventory) or {}

for metric, what in (("shaping", "shaping ρ (mean over domains)"), ("alpha", "α (mean over domains)")):
    if ui.chance_verdict(bands.get(metric)) == "chance-like":
        st.error(f"**{model}'s {what} is indistinguishable from chance**: {ui.chance_text(bands.get(metric))}.",
                 icon="⚠️")

m = st.columns(5)
m[0].metric("Personas · sheets", f"{idoc['n_personas']} · {idoc['n_sheets']}",
            help="A sheet is one persona answering every item in one option order.")
m[1].metric("Items · options", f"{idoc['n_items']} · {len(idoc['position']['shares'])}")
m[2].metric("Answer mode", idoc.get("answer_mode") or "—")
inv_counts = (mdoc.get("counts") or [{}])[0]
m[3].metric("Invalid answers", f"{inv_counts.get('count', 0)} of {inv_counts.get('n', 0)}")
m[4].metric("Norms", idoc.get("norms") or "—", help=idoc.get("norms_reason") or "Johnson's IPIP-NEO norms by sex and age "
            "(five-factor-e): percentiles, and the human 25–75 % band on the profile chart.")
ui.readers_caption("inventory")

st.subheader("Domains")
st.caption("Score: mean keyed item score (1–k) over the personas. Percentile: five-factor-e's norm percentile, mean over "
           "the complete sheets. α, ω (one factor, minres, the inventory's key imposed: psych's flip = FALSE) and λ6 (G6, "
           "smc) over the answer sheets, as R psych computes them (ω and λ6 on pairwise-complete correlations: 'complete sheets' "
           "counts the sheets that answered every item, the others count in the pairs they answered). Against the key: items that still load negatively "
           "after keying (psych's default would silently reverse them and report a high ω). Test–retest: r across personas between the two option orders. Shaping ρ: Spearman of target level "
           "against score over the personas shaped on the domain; drift: mean |ρ| of that level with the other domains. "
           "Shaping d: Cohen's d of the score, units shaped high (level > 5) against low (< 5), pooled SD, on the "
           "design's unit ('d on': repeats of one persona type are one unit, their mean score), with its 95 % CI "
           "('CI over': a bootstrap over the units when they repeat, else the analytic one as R effsize::cohen.d). "
           "'d over sheets' counts every repeat (PersonaLLM's published figure), its CI still resampling types. "
           "'vs chance': the larger p of random answers and of answers shuffled across personas.")
from analysis.methods.inventory.report_types import BIG_FIVE  # noqa: E402

# the Big Five in their usual order (O, C, E, A, N), any other domain after them (stored documents sort their keys)
order = [d for d in BIG_FIVE if d in idoc["domains"]] + [d for d in idoc["domains"] if d not in BIG_FIVE]
typed = any(e.get("alpha_within") for e in idoc["domains"].values())
if typed:
    first = next(e for e in idoc["domains"].values() if e.get("alpha_within"))
    st.info(f"**Reliability within persona type.** These personas are {first['alpha_within']['of_types']} shaped types: "
            "shaping spreads the types apart on purpose, so α, ω and λ6 pooled over every sheet measure how well the "
            "shaping worked, not how consistent the answers are. α, ω and λ6 below are computed within each type and "
            "give the median over the types where they are defined (range and count beside them); 'α pooled within' is "
            "α of the answers centred on their type's means; 'α between types' is the pooled coefficient, inflated by "
            "shaping, shown only for comparison with published figures.", icon="ℹ️")


def _range(e: dict, metric: str) -> str:
    w = e.get(f"{metric}_within") or {}
    if not w.get("n_types"):
        return "—"
    return f"{w['min']:.2f} to {w['max']:.2f} ({w['n_types']} of {w['of_types']} types)"


def _ci(e: dict, key: str) -> str:
    lo, hi = e.get(f"{key}_lo"), e.get(f"{key}_hi")
    return f"[{lo:.2f}, {hi:.2f}]" if e.get(key) is not None and lo is not None and hi is not None else "—"


rows = []
for d, e in ((d, idoc["domains"][d]) for d in order):
    within = {"α range over types": _range(e, "alpha"), "α pooled within": (e.get("alpha_within") or {}).get("pooled"),
              "α between types (inflated)": e.get("alpha_between"),
              "ω between types (inflated)": e.get("omega_between")} if typed else {}
    sheets_d = {"d over sheets": e.get("shaping_d_sheets"), "sheets d 95 % CI": _ci(e, "shaping_d_sheets")} \
        if "shaping_d_sheets" in e else {}
    rows.append({"domain": f"{d} · {e['name']}", "score": e.get("score"), "percentile": e.get("percentile"),
                 "α": e.get("alpha"), **within, "α vs chance": ui.vs_chance(bands.get(f"alpha/{d}")), "ω": e.get("omega"),
                 "against the key": ", ".join(ui.plain(k["item_id"]) for k in e.get("keying") or []) or "—",
                 "complete sheets": e.get("n_complete_sheets"), "λ6": e.get("lambda6"), "λ6 vs chance": ui.vs_chance(bands.get(f"lambda6/{d}")),
                 "test–retest": e.get("test_retest"), "retest vs chance": ui.vs_chance(bands.get(f"test_retest/{d}")),
                 "shaping ρ": e.get("shaping_rho"), "ρ vs chance": ui.vs_chance(bands.get(f"shaping/{d}")),
                 "ρ 95 % CI": _ci(e, "shaping_rho"), "drift": e.get("drift"), "shaping d": e.get("shaping_d"),
                 "d 95 % CI": _ci(e, "shaping_d"), "d on": e.get("shaping_d_unit") or "—",
                 "CI over": e.get("shaping_d_ci_unit") or "—", **sheets_d,
                 "d vs chance": ui.vs_chance(bands.get(f"shaping_d/{d}")), "items": e.get("n_items")})
ui.table(pd.DataFrame(rows), hide_index=True, width="stretch",
         column_config={c: st.column_config.NumberColumn(c, format="%.2f")
                        for c in ("score", "percentile", "α", "ω", "λ6", "test–retest", "shaping ρ", "drift", "shaping d",
                                  "α pooled within", "α between types (inflated)", "ω between types (inflated)",
                                  "d over sheets")})
against = [f"{d}: " + ", ".join(f"{ui.plain(k['item_id'])} ({ui.plain(k['item'])}, loading {k['loading']:.2f})" for k in e["keying"])
           for d, e in ((d, idoc["domains"][d]) for d in order) if e.get("keying")]
if against:
    st.warning("**Items answered against their key.** After the inventory's reverse-keying these items still correlate "
               "negatively with the rest of their domain (the model agrees with a statement and with its opposite); "
               "they lower α and ω. " + "; ".join(against) + ".", icon="⚠️")
for metric, what in (("shaping", "Shaping ρ, mean over domains"), ("alpha", "α, mean over domains")):
    head = mdoc["headlines"].get("inventory_" + metric) or {}
    st.markdown(f"**{what}: {ui.fmt(head.get('value'))}**" + (f" ({head['note']})" if head.get("note") else ""))
    ui.chance_caption(bands.get(metric))
testings = idoc.get("testings")
if testings:
    st.subheader("Repeated testings")
    st.caption(f"{testings['n_testings']} testings of {testings['unit']} ({testings['n_units']} unit(s)). Test–retest: "
               "ICC(2,1) with the items as targets and the testings as raters (agreement of the item answers across "
               "testings); profile r: the mean Pearson r of two testings' item answers, over every pair of testings. "
               "Spread: the SD of the domain score across testings.")
    t = st.columns(2)
    t[0].metric("Test–retest ICC(2,1), every item", ui.fmt(testings.get("icc")))
    t[1].metric(f"Profile r, mean over {testings.get('profile_r_pairs') or 0:,} pairs of testings", ui.fmt(testings.get("profile_r")))
    ui.table(pd.DataFrame([{"domain": f"{d} · {idoc['domains'][d]['name']}" if d in idoc["domains"] else d,
                            "mean over testings": e.get("mean"),
                            "mean 95 % CI": (f"[{e['mean_lo']:.2f}, {e['mean_hi']:.2f}]" if e.get("mean_lo") is not None
                                             else "—"),
                            "CI over": e.get("mean_ci_unit") or e.get("mean_ci_reason") or "—",
                            "SD across testings": e.get("sd"),
                            "ICC(2,1)": e.get("icc"), "why —": e.get("icc_reason") or ""}
                           for d, e in ((d, testings["domains"][d]) for d in order if d in testings["domains"])]),
             hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f")
                            for c in ("mean over testings", "SD across testings", "ICC(2,1)")})
human = idoc.get("human")
if human:
    st.subheader("Against people")
    st.caption(f"{human['n_people']:,} people's answers to the same items ({human['source']}). {human['unit']}. "
               f"{human.get('missing') or ''}. The model's α and ω above treat its testings as the units; the people's "
               "treat people as units. Percentile: where the model's domain score (its mean over testings) falls among "
               "people's domain scores (mid-rank).")
    ui.table(pd.DataFrame([{"domain": f"{d} · {idoc['domains'][d]['name']}" if d in idoc["domains"] else d,
                            "people": e.get("n"), "people's α": e.get("alpha"), "people's ω": e.get("omega"),
                            "model's α": (idoc["domains"].get(d) or {}).get("alpha"),
                            "people's mean (SD)": f"{e['mean']:.2f} ({e['sd']:.2f})" if e.get("mean") is not None else "—",
                            "model's score": e.get("model_score"), "model's percentile": e.get("model_percentile")}
                           for d, e in ((d, human["domains"][d]) for d in order if d in human["domains"])]),
             hide_index=True, width="stretch",
             column_config={c: st.column_config.NumberColumn(c, format="%.2f")
                            for c in ("people's α", "people's ω", "model's α", "model's score", "model's percentile")})
with st.expander("Why a number is —"):
    reasons = [f"- **{d}** {k.removesuffix('_reason')}: {v}" for d, e in idoc["domains"].items() for k, v in e.items()
               if k.endswith("_reason") and v]
    st.markdown("\n".join(dict.fromkeys(reasons)) or "Every number is defined.")

profiles = inv_figures.profile_frame(inv_data.doc(ref), model) if inventory == mdoc["inventory"] else None
if profiles is not None and len(profiles):
    st.subheader("Profiles")
    people = list(dict.fromkeys(profiles["persona_id"]))
    chosen = state.multiselect("Personas", people, default=people[:3], key="personas")
    st.caption("Each persona's domain scores; grey: the human 25–75 % range of the domain's score (Johnson's IPIP-NEO "
               "norms for the persona's sex and age), where the inventory has norms. Click a point for its answers.")
    picked = ui.plot(inv_figures.profiles(inv_data.doc(ref), model, chosen or people[:1]), key="profiles", select=True)
    found = samples.units(picked, ("persona_id", "domain"))
    answers = inv_data.answers(ref, model)
    if found:
        unit = found[0]
        rows_ = answers[(answers["persona_id"] == unit["persona_id"]) & (answers["domain"] == unit["domain"])
                        & (answers["inventory"] == inventory)]
        samples.panel(ref, rows_, f"{unit['persona_id']} · {unit['domain']}", key="profiles",
                      columns=("order_mode", "item_id", "item", "number", "option", "keyed", "valid", "reason", "raw"),
                      labels=("order_mode", "item_id"), split="order_mode", split_label="Option order",
                      link=samples.data_link("inventory_answers", rows_, persona_id=unit["persona_id"]),
                      persona=samples.one_persona_link("inventory", str(unit["persona_id"])))
    else:
        samples.hint()

    st.subheader("Shaping")
    curve = inv_figures.shaping(inv_data.doc(ref), model)
    if curve is None:
        st.info("No persona was shaped (a run with --shaping none): nothing to draw.")
    else:
        st.caption("Target level against the mean score of the shaped domain, one line per domain (± 1 SD over "
                   "personas). A model that plays the levels draws rising lines; flat lines mean the shaping did not "
                   "reach the answers.")
        ui.plot(curve, key="shaping")

st.subheader("Position bias")
pos = idoc["position"]
st.caption(f"How often each number was given. Without a preference for a position each is {pos['chance_share']:.0%}. "
           f"The first number was given in {ui.fmt(pos.get('first'), 3)} of the valid answers. Mean |ascending − "
           f"descending| domain score of a persona: {ui.fmt(pos.get('order_gap'), 2)}"
           + (f" ({pos['order_gap_reason']})" if pos.get("order_gap_reason") else "")
           + " — a model that answers by position rather than meaning flips its scores when the numbering is reversed.")
ui.plot(inv_figures.positions(inv_data.doc(ref), model, inventory), key="positions")

st.subheader("Multitrait–multimethod")
mt = mdoc.get("mtmm") or {}
if mt.get("matrix"):
    st.caption(f"Correlations across {mt['n_personas']} personas of the domain scores on {' and '.join(mt['inventories'])}"
               + (f" ({mt['n_shaped']} of them shaped: not comparable with the paper's Table 1, which is on unshaped "
                  "personas)" if mt.get("n_shaped") else "") + ". "
               f"Convergent validity (same domain, two inventories): {ui.fmt(mt.get('convergent'), 2)}; discriminant Δ "
               f"(convergent − mean |r| of different domains): {ui.fmt(mt.get('discriminant'), 2)}"
               + (f" — {mt['reason']}" if mt.get("reason") else "") + ".")
    for metric in ("convergent", "discriminant"):
        if (mt.get("chance") or {}).get(metric):
            st.markdown(f"**{metric.capitalize()}: {ui.fmt(mt.get(metric), 2)}**")
            ui.chance_caption(mt["chance"][metric])
    per = mt.get("convergent_domains") or {}
    if per:
        st.markdown("Convergent r per domain: " + " · ".join(f"{d} {ui.fmt(per[d], 2)}" for d in BIG_FIVE if d in per)
                    + "".join(f" · {d} {ui.fmt(r, 2)}" for d, r in per.items() if d not in BIG_FIVE))
    ui.plot(inv_figures.mtmm(inv_data.doc(ref), model), key="mtmm")
else:
    st.info(f"MTMM: {mt.get('reason') or 'not available'}.")

st.subheader("Published figures")
pub = data.published("inventory")
st.caption("Printed in the paper for real models (IPIP-NEO-300 against BFI) — shown for scale, never ranked with "
           "this store's models. " + (pub["source"].iloc[0] if len(pub) else ""))
mtmms = {m: inv_data.doc(ref)["models"][m].get("mtmm") or {} for m in models}
shaped = [m for m, mt_m in mtmms.items() if mt_m.get("n_shaped")]  # the paper's Table 1 is on unshaped personas
if shaped:
    st.caption(f"Not set beside the paper: {', '.join(shaped)} — its MTMM is computed on shaped personas "
               "(shaping moves a persona's domains with its target), the paper's on unshaped persona descriptions. "
               "Run the two inventories with `--shaping none` for a comparable MTMM.")
mine = {m: mt_m.get("convergent") for m, mt_m in mtmms.items() if m not in shaped}
mine = {m: v for m, v in mine.items() if v is not None}
if len(pub) and mine:
    st.caption("Convergent validity: the paper's models (grey) and this store's (dashed lines) on one axis — beside each "
               "other, not ranked together: the paper used IPIP-NEO-300 and BFI with 1,250 prompt variants per model.")
    ui.plot(plots.beside_published(pub, mine), key="published")
if len(pub):
    wide = pub.pivot_table(index="model", columns="metric", values="value", aggfunc="first").reset_index()
    ui.table(wide, hide_index=True, width="stretch")

st.markdown(f"**Convergent r per domain — {inv_data.PUBLISHED_LABEL}**")
per_domain = inv_data.published_convergent(ref)
st.caption("The paper's correlation of each IPIP-NEO-300 domain with the same BFI domain, per model, over 1,250 "
           "simulated response profiles (50 unshaped persona descriptions × item instructions and postambles), beside "
           "this store's per-domain convergent r from its MTMM (its own two inventories and personas) — shown for "
           "scale, never ranked or averaged with this store's models. " + per_domain["source"].iloc[0])
ui.plot(inv_figures.domains_beside_published(inv_data.doc(ref), models), key="published_domains")
ui.table(inv_data.published_convergent_table(ref), hide_index=True, width="stretch",
         column_config={c: st.column_config.NumberColumn(c, format="%.2f") for c in ("E", "A", "C", "N", "O", "Avg")})

with st.expander("Facets"):
    facets = pd.DataFrame([{"facet": f, **v} for f, v in (idoc.get("facets") or {}).items()])
    if facets.empty:
        st.caption("This inventory has no facets.")
    else:
        ui.table(facets, hide_index=True, width="stretch")
