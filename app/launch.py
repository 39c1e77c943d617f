"""Start the dashboard: ``python -m app.launch [streamlit options]`` is ``streamlit run app/main.py``, quicker to first
paint.

Once the server listens, a background thread pays Streamlit's one-off first-page costs and imports the page list
(``warm_imports``), while the browser is still loading Streamlit's scripts (about 1 s). The entry script then draws
the page's heading before it imports pandas and the app's modules.

The app's own imports (pandas, plotly, the ``app`` modules, every method: about 1 s of CPU) are not warmed: on two
cores that competed with the browser loading its scripts and held the first script run back by 0.2-0.3 s, so the
heading painted later than with the imports in the script run (``bench/bench_app.py``: 1.09-1.12x bare Streamlit
with them warmed, 0.93-0.96x without). Once the first page has drawn, ``app.data.warm_samples`` builds the Samples
page's reply table in the background (this launcher sets ``ROLESCOPE_WARM=1`` for it).

``streamlit run app/main.py`` still works the same way; it is just slower to its first paint.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
from pathlib import Path
from typing import Any

APP = Path(__file__).resolve().parent / "main.py"  # the entry script
PAGE_ICON = "🎭"  # main.py's st.set_page_config(page_icon=...)
#: Imported ahead of the first script run: what the entry script needs before the page's heading (the page list). The
#: rest (pandas and up) is imported by the script run, after the heading: see the module's docstring.
WARM_MODULES = ("app.nav",)


def warm_streamlit_first_calls() -> None:
    """Pay, off the first script run, two one-off costs Streamlit has on its first page (~0.1 s together here).

    - ``st.set_page_config(page_icon=<emoji>)`` imports ``streamlit.emojis``, which compiles a regex of every emoji.
    - The first element sent calls ``delta_generator._maybe_print_use_warning``, whose ``env_util.is_repl`` runs
      ``inspect.stack()`` over the script thread's deep stack (reading every frame's source file). Called here
      first, on this thread's short stack, it finds the runtime running and only sets its once-only flag.
    """
    from streamlit import delta_generator, runtime, string_util

    string_util.is_emoji(PAGE_ICON)
    warn_once = getattr(delta_generator, "_maybe_print_use_warning", None)  # private: skip if Streamlit renames it
    if callable(warn_once) and runtime.exists():  # without a runtime it would print its "use streamlit run" warning
        warn_once()


def warm_imports(modules: tuple[str, ...] = WARM_MODULES) -> None:
    """Import ``modules``, then ``warm_streamlit_first_calls``; a failure here is left for the script run to
    report where the user sees it."""
    try:
        for name in modules:
            importlib.import_module(name)
        from app.methods import views

        views()  # every method's pages (the navigation), without the methods' analysis code
        warm_streamlit_first_calls()
    except Exception:  # noqa: BLE001 - the page's own code raises it again, in the browser
        return


def _warm_after_server_start() -> None:
    """Run ``warm_imports`` in a thread once the server listens (before that it would slow the start itself)."""
    from streamlit.web import bootstrap

    original = getattr(bootstrap, "_on_server_start", None)
    if original is None:  # a Streamlit without the hook: warm at once
        threading.Thread(target=warm_imports, name="rolescope-warm", daemon=True).start()
        return

    def on_server_start(server: Any) -> None:
        original(server)
        threading.Thread(target=warm_imports, name="rolescope-warm", daemon=True).start()

    bootstrap._on_server_start = on_server_start


def main(argv: list[str] | None = None) -> Any:
    """``streamlit run app/main.py ARGV`` (click exits the process when the server stops)."""
    from streamlit.web import cli

    os.environ["ROLESCOPE_WARM"] = "1"  # app.data.warm_samples: build the reply table after the first page drew
    _warm_after_server_start()
    args = ["run", str(APP), *(sys.argv[1:] if argv is None else argv)]
    return cli.main(args=args, prog_name="streamlit")


if __name__ == "__main__":
    main()
