"""What a read-back puts to the caller, stated exactly as the write's guard checks it.

A confirm state reads back a summary; the caller's yes confirms this token and
nothing else. If the caller's words changed anything the token depends on, the
yes no longer matches and the summary is read again. Each read-back belongs to
one tool (`Tool.read_back`), which says what its token is.
"""

from __future__ import annotations

from .context import CallContext
from .tools.registry import READ_BACKS


def pending_confirmation(kind: str, ctx: CallContext) -> tuple | None:
    """The exact thing a read-back of `kind` puts to the caller, as the guard will check it."""
    tool = READ_BACKS.get(kind)
    return tool.pending(ctx) if tool is not None else None


def on_confirmed(token: tuple, ctx: CallContext) -> None:
    """What a yes settles beyond the ledger (its read-back's tool says)."""
    tool = READ_BACKS.get(token[0])
    if tool is not None:
        tool.on_confirmed(token, ctx)
