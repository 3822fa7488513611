"""What the service does with a staff action that came over the monitor socket.

Callback actions change the clinic database through `ClinicStore`; the same
function serves the monitor when the service is not running. Live-call
actions go to the controls the call's phone line registered
(`control_call`); a call with none (the text demo, a call already over) is
refused with a reason the monitor shows.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..store.clinic_store import CallbackAlreadyDone, CallbackNotFound, ClinicStore, clip_text
from ..store.database import MAX_TEXT_CHARS
from ..store.backend import database_present, is_postgres
from ..store.database import open_database
from .diary_commands import apply_diary_command
from .messages import (ADD_CALLBACK_NOTE, CALLBACK_ACTIONS, DIARY_ACTIONS, END_CALL, LISTEN_IN, MARK_CALLBACK_DONE,
                       TAKE_OVER, TRANSFER_NOW, CommandResult, StaffCommand)

log = logging.getLogger("appliance.events")

# The service registers one; it is called on the server's command thread and returns the result.
CommandHandler = Callable[[StaffCommand], CommandResult]


def apply_callback_command(store: ClinicStore, command: StaffCommand, *, user: str) -> CommandResult:
    """Mark a callback request done, or add a note to it, as `user`."""
    callback_id = command.callback_id or ""
    rows = store.db.conn.execute("SELECT status, note FROM callback_requests WHERE id = ?", [callback_id]).fetchall()
    if not rows:
        return CommandResult(False, f"no callback request {callback_id}", command.id)
    status, old_note = rows[0]
    note = (command.note or "").strip() or None
    if command.action == MARK_CALLBACK_DONE:
        combined = _add_note(old_note, note, user) if note else old_note
        try:
            store.mark_callback_done(callback_id, done_by=user, note=combined)
        except CallbackAlreadyDone:
            return CommandResult(False, f"callback {callback_id} was already done", command.id)
        except CallbackNotFound:
            return CommandResult(False, f"no callback request {callback_id}", command.id)
        return CommandResult(True, f"callback {callback_id} marked done by {user}", command.id)
    if command.action == ADD_CALLBACK_NOTE:
        conn = store.db.conn
        with conn:
            conn.execute("UPDATE callback_requests SET note = ? WHERE id = ?", [_add_note(old_note, note, user), callback_id])
        return CommandResult(True, f"note added to callback {callback_id}", command.id)
    return CommandResult(False, f"{command.action} is not a callback action", command.id)


def apply_database_command(store: ClinicStore, command: StaffCommand, *, user: str) -> CommandResult:
    """A callback or diary action, which the database alone serves (the service, or the monitor without it)."""
    if command.action in DIARY_ACTIONS:
        return apply_diary_command(store, command, user=user)
    return apply_callback_command(store, command, user=user)


def _add_note(old: str | None, new: str | None, user: str) -> str | None:
    if not new:
        return old
    line = f"{user}: {new}"
    return clip_text(f"{old}\n{line}" if old else line, 2 * MAX_TEXT_CHARS)


@dataclass
class CallControls:
    """What the phone line does for staff; each is called with the acting OS user."""
    transfer_now: Callable[[str], None] | None = None
    end_call: Callable[[str], None] | None = None
    listen_in: Callable[[str], None] | None = None
    take_over: Callable[[str], None] | None = None


# a live-call action: (what it is called in a refusal, what the result says once started)
_CALL_WORDS = {TRANSFER_NOW: ("transfer", "transfer to the front desk started"), END_CALL: ("end", "call ended"),
               LISTEN_IN: ("listen in to", "listen-in started (the front desk's phone rings)"),
               TAKE_OVER: ("take over", "take-over started (the front desk's phone joins)")}


class StaffCommandHandler:
    """The service's handler: callbacks in the database at `db_path`, live calls through registered controls."""

    def __init__(self, db_path: str | Path | None, *, on_diary_change: Callable[[], object] | None = None):
        self.db_path = db_path if db_path is None or is_postgres(db_path) else Path(db_path)
        self.on_diary_change = on_diary_change
        self._calls: dict[str, CallControls] = {}
        self._lock = threading.Lock()
        self._local = threading.local()

    def control_call(self, call_id: str, *, transfer_now: Callable[[str], None] | None = None,
                     end_call: Callable[[str], None] | None = None, listen_in: Callable[[str], None] | None = None,
                     take_over: Callable[[str], None] | None = None) -> None:
        """The phone line says how to transfer, end, listen in to or take over this call (called when the call
        starts); each is called with the OS user who asked."""
        with self._lock:
            self._calls[call_id] = CallControls(transfer_now, end_call, listen_in, take_over)

    def release_call(self, call_id: str) -> None:
        with self._lock:
            self._calls.pop(call_id, None)

    def _store(self) -> ClinicStore:
        store = getattr(self._local, "store", None)
        if store is None:
            if not database_present(self.db_path):
                raise FileNotFoundError(f"no appliance database at {self.db_path}")
            store = self._local.store = ClinicStore(open_database(self.db_path))
        return store

    def __call__(self, command: StaffCommand) -> CommandResult:
        if command.action in CALLBACK_ACTIONS + DIARY_ACTIONS:
            try:
                result = apply_database_command(self._store(), command, user=command.user)
            except FileNotFoundError as exc:
                return CommandResult(False, str(exc), command.id)
            if result.ok and command.action in DIARY_ACTIONS and self.on_diary_change is not None:
                self.on_diary_change()
            return result
        with self._lock:
            controls = self._calls.get(command.call_id or "")
        act = getattr(controls, command.action, None) if controls is not None else None
        what, done = _CALL_WORDS[command.action]
        if act is None:
            return CommandResult(False, f"call {command.call_id} has no phone line here to {what} "
                                        "(it has ended, or it is a text demo)", command.id)
        act(command.user)
        return CommandResult(True, f"call {command.call_id}: {done} by {command.user}", command.id)

