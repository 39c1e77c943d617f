"""The inventory method's declaration: its registration as 'inventory', each hook a function of its modules named by
import string (``analysis.hooks.Hook``, imported on first call). Plans are built in ``analysis.methods.inventory.plan``."""

from __future__ import annotations

from analysis.hooks import Hook
from analysis.methods.base import BundledImport, Headline, Method, Published
from analysis.methods.inventory import session  # noqa: F401 - registers the method's table in the store's schema
from analysis.methods.inventory.families import FAMILY
from analysis.methods.inventory.options import InventoryOptions
from analysis.methods.inventory.readers import READERS

M = "analysis.methods.inventory"

METHOD = Method(
    name="inventory", title="Personality inventories", label="Inventory", order=5,
    tables=("inventory_answers",),
    sources=("analysis/methods/base.py", "analysis/persona_scores.py", "analysis/runs/comparable.py",
             "analysis/reliability.py", "analysis/chance.py"),
    help="personality inventories (IPIP-NEO, any Likert inventory) given to shaped personas (Serapio-García et al. 2023)",
    options=InventoryOptions,
    plans=Hook(f"{M}.plan:plans"),
    n_calls=Hook(f"{M}.session:n_calls"),
    waves=Hook(f"{M}.session:waves"),
    tokens=Hook(f"{M}.tokens:tokens"),
    session=Hook(f"{M}.session:build_session"),
    report=Hook(f"{M}.report:report"),
    figures=Hook(f"{M}.figures:report_figures"),
    chance=Hook(f"{M}.report_types:chance_bands"),
    can_show=Hook(f"{M}.can_show:can_show"),
    compare=Hook(f"{M}.compare:compare_inventory"),
    report_model=Hook(f"{M}.report_types:InventoryReport"),
    answers=Hook(f"{M}.answers:answers"),
    samples=Hook(f"{M}.samples:samples"),
    persona_plan=Hook(f"{M}.shared_personas:persona_plan"),
    external_validity=Hook(f"{M}.external_validity:external_validity"),
    readers=READERS,
    families=(FAMILY,),
    importers=("persona-llm", "chatgpt-behavioral"), run_import=Hook(f"{M}.cli:import_command"),
    prepare_import=Hook(f"{M}.cli:prepare_import"),
    bundled_imports=(BundledImport("persona-llm", "persona_llm", Hook(f"{M}.importer:load_bundled")),
                     BundledImport("chatgpt-behavioral", "chatgpt_behavioral", Hook(f"{M}.behavioral:load_bundled"))),
    published=Published("../analysis/methods/inventory/published.json", Hook(f"{M}.published:rows")),
    headlines=(
        Headline("inventory_shaping", "Inventory: shaping ρ ↑", null=lambda band, entry: band.get("shaping")),
        Headline("inventory_alpha", "Inventory: α ↑", null=lambda band, entry: band.get("alpha")),
    ),
)
