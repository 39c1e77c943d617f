"""Selections that survive page switches and live in the URL (``st.query_params``).

Each bound widget has a key that is also its query parameter. On the first render of a
session the widget starts from the URL (if the value is valid), else from the value kept
earlier in this session, else from the default; after rendering, the current value is written
back to the URL, so any view can be bookmarked or shared and restored as it was.

A field that names a file takes a ``link_filter`` (``app.links``): a value that arrives from the query string and is
not one this session wrote there itself (the user's own typing, published after rendering) passes that filter first;
what it refuses is not used, and the field says so in one warning line until the user types something.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from app.markdown import plain

_KEEP = "_url_keep"
_REFUSED = "_url_refused"  # key -> (the value the field took instead, the refused parts)
_ABSENT = "_url_absent"  # key -> the link's value this page's options do not have (shown once, then dropped)


def _kept() -> dict[str, Any]:
    if _KEEP not in st.session_state:
        st.session_state[_KEEP] = {}
    return st.session_state[_KEEP]


def _refused() -> dict[str, tuple[Any, list[str]]]:
    if _REFUSED not in st.session_state:
        st.session_state[_REFUSED] = {}
    return st.session_state[_REFUSED]


def _absent() -> dict[str, list[str]]:
    if _ABSENT not in st.session_state:
        st.session_state[_ABSENT] = {}
    return st.session_state[_ABSENT]


def _initial(key: str, valid: Callable[[Any], bool], parse: Callable[[Any], Any], default: Any,
             link_filter: Callable[[Any], tuple[Any, list[str]]] | None = None) -> Any:
    kept = _kept().get(key)
    if key in st.query_params:
        raw = st.query_params.get_all(key)
        try:
            value = parse(raw)
        except (ValueError, TypeError):
            value = None
        if value is None or not valid(value):
            _absent()[key] = raw  # the link names what this page does not have: said beside the widget
        if value is not None and valid(value) and link_filter is not None and value != kept:
            value, refused = link_filter(value)  # from the link, not this session's own value
            if refused:
                instead = value if value is not None else kept if kept is not None and valid(kept) else default
                _refused()[key] = (instead, refused)
        if value is not None and valid(value):
            return value
    if kept is not None and valid(kept):
        return kept
    return default


def _prepare(key: str, valid: Callable[[Any], bool], parse: Callable[[Any], Any], default: Any,
             link_filter: Callable[[Any], tuple[Any, list[str]]] | None = None) -> None:
    """Set the widget's session value before it is drawn: its current value when valid, else the URL /
    kept / default one. Always assigned, so a widget of another page that shares the key (same selection,
    other options) starts from the shared value instead of its first option."""
    current = st.session_state.get(key)
    st.session_state[key] = (current if current is not None and valid(current)
                             else _initial(key, valid, parse, default, link_filter))


def _publish(key: str, value: Any, to_url: Callable[[Any], str | list[str]]) -> None:
    _kept()[key] = value
    encoded = to_url(value)
    if st.query_params.get_all(key) != (encoded if isinstance(encoded, list) else [encoded]):
        st.query_params[key] = encoded


def _say_absent(key: str, label: str, value: Any, container: Any, format_func: Callable[[Any], str] = str) -> None:
    """One line beside a widget whose link value this page does not have, naming what it shows instead."""
    raw = _absent().pop(key, None)
    if raw:
        asked = ", ".join(f"'{plain(r)}'" for r in raw)
        shown = ", ".join(plain(format_func(v)) for v in value) if isinstance(value, list) else plain(format_func(value))
        (container or st).caption(f":orange[**Not here**]: {plain(label)} {asked} (from the link) is not on this page; "
                                  f"showing {shown or 'none'} instead.")


def selectbox(label: str, options: Sequence[Any], *, key: str, default: Any = None, container: Any = None,
              format_func: Callable[[Any], str] = str, help: str | None = None) -> Any:
    """A selectbox bound to query parameter ``key`` (options compared as strings in the URL)."""
    options = list(options)
    if not options:
        return None
    by_text = {str(o): o for o in options}
    default = default if default in options else options[0]
    _prepare(key, lambda v: v in options, lambda raw: by_text.get(raw[-1]), default)
    value = (container or st).selectbox(label, options, key=key, format_func=format_func, help=help)
    _say_absent(key, label, value, container, format_func)
    _publish(key, value, str)
    return value


def segmented(label: str, options: Sequence[str], *, key: str, default: str | None = None, container: Any = None,
              format_func: Callable[[Any], str] = str, help: str | None = None, disabled: bool = False) -> str | None:
    """A single-choice segmented control bound to ``key`` (never empty: falls back to the default)."""
    options = list(options)
    if not options:
        return None
    default = default if default in options else options[0]
    _prepare(key, lambda v: v in options, lambda raw: raw[-1] if raw[-1] in options else None, default)
    value = (container or st).segmented_control(label, options, key=key, format_func=format_func, help=help,
                                                selection_mode="single", disabled=disabled)
    if value is None:  # the user clicked the selected segment again
        value = default
    _say_absent(key, label, value, container, format_func)
    _publish(key, value, str)
    return value


def multiselect(label: str, options: Sequence[Any], *, key: str, default: Sequence[Any] | None = None,
                container: Any = None, format_func: Callable[[Any], str] = str, help: str | None = None,
                max_selections: int | None = None, accept_new_options: bool = False) -> list[Any]:
    """A multiselect bound to ``key`` (repeated query parameter); with ``accept_new_options`` typed text options
    (strings) are kept, in the URL too."""
    options = list(options)
    if accept_new_options:
        extra = [*(st.session_state.get(key) or []), *st.query_params.get_all(key)]
        options += [x for x in dict.fromkeys(extra) if isinstance(x, str) and x.strip() and x not in options]
    by_text = {str(o): o for o in options}
    default = [d for d in (options if default is None else default) if d in options]

    def parse(raw: list[str]) -> list[Any] | None:
        chosen = [by_text[r] for r in raw if r in by_text]
        return chosen or None

    _prepare(key, lambda v: isinstance(v, list) and all(x in options for x in v), parse, default)
    value = (container or st).multiselect(label, options, key=key, format_func=format_func, help=help,
                                          max_selections=max_selections, accept_new_options=accept_new_options)
    _say_absent(key, label, value, container, format_func)
    _publish(key, value, lambda v: [str(x) for x in v])
    return value


def toggle(label: str, *, key: str, default: bool = False, container: Any = None, help: str | None = None) -> bool:
    """A toggle bound to ``key`` ('1' / '0' in the URL)."""
    _prepare(key, lambda v: isinstance(v, bool), lambda raw: {"1": True, "0": False}.get(raw[-1]), default)
    value = (container or st).toggle(label, key=key, help=help)
    _publish(key, value, lambda v: "1" if v else "0")
    return value


def text_input(label: str, *, key: str, default: str = "", container: Any = None, help: str | None = None,
               placeholder: str | None = None,
               link_filter: Callable[[str], tuple[str | None, list[str]]] | None = None) -> str:
    """A text input bound to ``key`` (never for secrets: the value is in the URL). A field naming files gives
    ``link_filter`` (``app.links.one_path`` / ``comma_paths``): what it refuses of a value from a link is ignored."""
    _prepare(key, lambda v: isinstance(v, str), lambda raw: raw[-1], default, link_filter)
    box = container or st
    value = box.text_input(label, key=key, help=help, placeholder=placeholder)
    refused = _refused().get(key)
    if refused is not None:
        if value == refused[0]:
            from app import links

            box.warning(f"{links.WARNING} ({', '.join(plain(r) for r in refused[1])})", icon="⚠️")
        else:  # the user typed: their value is theirs
            _refused().pop(key, None)
    _publish(key, value, str)
    return value


def number_input(label: str, min_value: int, max_value: int, default: int, *, key: str, container: Any = None,
                 help: str | None = None, disabled: bool = False) -> int:
    """An integer input bound to ``key`` (values outside [min, max] in the URL fall back to the default)."""
    _prepare(key, lambda v: isinstance(v, int) and min_value <= v <= max_value, lambda raw: int(raw[-1]), default)
    value = (container or st).number_input(label, min_value, max_value, key=key, help=help, disabled=disabled)
    _publish(key, int(value), str)
    return int(value)
