"""The trust method's declaration: its registration as 'trust', each hook a function of its modules named by import
string (``analysis.hooks.Hook``, imported on first call). Plans are built in ``analysis.methods.trust.plan``."""

from __future__ import annotations

from analysis.hooks import Hook
from analysis.methods.base import BundledImport, Headline, Method
from analysis.methods.trust import tables  # noqa: F401 - registers the method's tables in the store's schema
from analysis.methods.trust.families import FAMILIES
from analysis.methods.trust.options import TrustOptions
from analysis.methods.trust.published import PUBLISHED
from analysis.methods.trust.readers import READERS

M = "analysis.methods.trust"

METHOD = Method(
    name="trust", title="Trust game", label="Trust", order=3,
    tables=("trust_transfers", "trust_beliefs", "trust_rounds"),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py",
             "analysis/reliability.py", "analysis/chance.py", "analysis/stats.py"),
    help="trust game: belief-behaviour consistency",
    options=TrustOptions,
    plans=Hook(f"{M}.cli:plans_from_args"),
    n_calls=Hook(f"{M}.session:n_calls"),
    waves=Hook(f"{M}.session:waves"),
    tokens=Hook(f"{M}.session:tokens"),
    session=Hook(f"{M}.session:build_session"),
    report=Hook(f"{M}.cli:report"),
    figures=Hook(f"{M}.figures:report_figures"),
    report_model=Hook(f"{M}.report_types:TrustReport"),
    chance=Hook(f"{M}.report_types:chance_bands"),
    can_show=Hook(f"{M}.can_show:can_show"),
    compare=Hook(f"{M}.compare:compare_sides"),
    samples=Hook(f"{M}.samples:samples"),
    persona_plan=Hook(f"{M}.shared_personas:persona_plan"),
    headlines=(Headline("trust_spearman", "Trust: belief–behaviour Spearman ↑",
                        null=lambda band, entry: ((band.get("population") or {}).get(entry.get("strategy")) or {}).get(
                            "median_spearman")),
               # sent − human: > 0 sends more than Berg et al.'s 32 senders; no direction is better (not ranked on it)
               Headline("trust_vs_human", "Trust: sent − human ($)",
                        ci=lambda doc: ((doc.get("headlines") or {}).get("trust_vs_human") or {}).get("ci"))),
    families=FAMILIES,
    published=PUBLISHED,
    readers=READERS,
    importers=("agent-trust", "chatgpt-behavioral"), run_import=Hook(f"{M}.cli:import_command"),
    prepare_import=Hook(f"{M}.cli:prepare_import"),
    bundled_imports=(BundledImport("agent-trust", "agent_trust", Hook(f"{M}.importer:load_bundled")),
                     BundledImport("chatgpt-behavioral", "chatgpt_behavioral", Hook(f"{M}.behavioral:load_bundled"))),
)
