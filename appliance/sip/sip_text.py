"""Reading a header out of a SIP message's text (pjsua2 hands requests and responses over as text).

    header_value(invite_text, "Call-ID")     # "a84b4c76e66710@pc33.atlanta.com" ("" when absent)
    dialog_tag(invite_text, "From")          # the tag parameter of From (or To)

Compact header names (RFC 3261 §7.3.3: "i" for Call-ID, "f" for From, "t" for To) are read too.
"""

from __future__ import annotations

import re

COMPACT = {"call-id": "i", "from": "f", "to": "t", "via": "v", "contact": "m"}


def header_value(message: str, name: str) -> str:
    """The first `name` header's value, stripped ("" when the message has none)."""
    names = re.escape(name) + (f"|{COMPACT[name.lower()]}" if name.lower() in COMPACT else "")
    match = re.search(rf"^(?:{names})[ \t]*:(.*)$", message, re.M | re.I)
    return match[1].strip() if match else ""


def dialog_tag(message: str, header: str) -> str:
    """The tag parameter of the From or To header ("" when there is none)."""
    value = header_value(message, header)
    params = value.rsplit(">", 1)[-1] if ">" in value else value
    tag = re.search(r";\s*tag\s*=\s*([^;,\s]+)", params, re.I)
    return tag[1] if tag else ""
