"""One browser-history entry per page visit.

Streamlit's frontend pushes a history entry each time a script run changes ``st.query_params`` (outside a Back /
Forward navigation), and every widget bound by ``app.state`` publishes its value there: a sidebar switch to a page
with five bound widgets added six entries, so Back needed six presses to leave it. The script below, installed once
per document, turns a push that keeps the page's path (a query change) into a replace; a push to another path (a
page switch) stays a push. The first run of a freshly loaded document may publish before the script is installed; its
entries then stay (Back walks through that first page's defaults once).
"""

from __future__ import annotations

import streamlit as st

#: Installed once per document (``window.__rolescopeOneEntry``): ``history.pushState`` to the current path replaces.
ONE_ENTRY_PER_VISIT = """<script>
(() => {
  if (window.__rolescopeOneEntry) return;
  window.__rolescopeOneEntry = true;
  const history = window.history, push = history.pushState.bind(history);
  history.pushState = (state, unused, url) => {
    const target = url === undefined || url === null ? null : new URL(url, window.location.href);
    if (target === null || target.pathname === window.location.pathname) return history.replaceState(state, unused, url);
    return push(state, unused, url);
  };
})();
</script>"""


def one_entry_per_visit() -> None:
    """Install ``ONE_ENTRY_PER_VISIT`` (an element of the sidebar: it draws nothing)."""
    st.sidebar.html(ONE_ENTRY_PER_VISIT, unsafe_allow_javascript=True)
