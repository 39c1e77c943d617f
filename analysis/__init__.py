"""RoleScope analysis library: LLM path, runs store and the persona-evaluation methods.

Nothing in this package imports streamlit; the app (``app/main.py``, ``app/``, ``pages/``) is a thin view on it.
"""

__version__ = "0.1.0"
