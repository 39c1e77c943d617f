"""The inventory reply reader as ``python -m analysis parse inventory-option`` offers it: the session's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing import Literal

from pydantic import ConfigDict, Field, create_model

from analysis.methods.base import Reader, Reading
from analysis.methods.inventory.parse import number_from_text
from analysis.methods.inventory.prompts import option_of_number

#: The IPIP-NEO response labels, the reader's default scale when a line gives none.
IPIP_LABELS = ("Very Inaccurate", "Moderately Inaccurate", "Neither Accurate Nor Inaccurate", "Moderately Accurate",
               "Very Accurate")


def read_option(reply: str, finish_reason: str | None, context: Mapping[str, Any]) -> Reading:
    """The canonical option index (0 = the scale's first label) a text reply gives, for the labels and order in
    ``context``."""
    labels = list(context.get("labels") or IPIP_LABELS)
    order = context.get("order") or "ascending"
    if order not in ("ascending", "descending"):
        return Reading(False, None, f"order '{order}': ascending or descending")
    read = number_from_text(reply, labels, order, finish_reason)
    if not read.valid:
        return Reading(False, None, read.reason)
    return Reading(True, option_of_number(read.number, len(labels), order), None)


#: The scale's labels in ascending order (2 to 26, or none: the IPIP-NEO's) and the order the options were numbered in.
CONTEXT = create_model("InventoryContext", __config__=ConfigDict(extra="ignore"),
                       labels=(list[str] | None, Field(None, min_length=2, max_length=26)),
                       order=(Literal["ascending", "descending"], "ascending"))

READERS = (Reader("inventory-option", "the option (0 = the scale's first label, e.g. 'Very inaccurate') a reply rates an "
                  "inventory item with; context: labels (ascending) and order (ascending|descending)", read_option,
                  defaults={"labels": None, "order": "ascending"}, context=CONTEXT),)
