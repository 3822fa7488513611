"""Staff actions from the monitor: through the service when it runs, else straight to the database.

Every action carries the OS user, and in the browser monitor the staff account
signed in there (`staff`). Through the service, the service records it (as the
user the socket vouches for, or that account). Without the service only callback
and diary actions can be done: the monitor writes them through `ClinicStore`
itself (the same guards), records them with `via = "monitor"` (`"web"` for a
staff account) and rewrites the practitioners' calendar feeds. On the shared
PostgreSQL store that is the database every box books in, so its constraints
and the store's guards refuse a clash with any box's booking (and each box's
service rewrites its own feeds within the minute).

With several services (`[monitor] services`) a live call's action goes to the
service the call is on (`client(command)` picks it); a callback or diary action
to any service that is connected (they share the store), else to the database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..calendars import CalendarFeeds
from ..events.messages import CALL_ACTIONS, DIARY_ACTIONS, CommandResult, StaffCommand
from ..events.monitor_client import MonitorClient
from ..events.staff_action_log import VIA_MONITOR, VIA_WEB, StaffActionLog
from ..events.staff_commands import apply_database_command
from ..store.backend import database_present, is_postgres
from ..store.clinic_store import ClinicStore
from ..store.database import open_database


class StaffActions:
    def __init__(self, *, user: str, client: Callable[[StaffCommand], MonitorClient | None],
                 db_path: Callable[[], str | Path | None], staff: str | None = None):
        self.user = user          # the OS user of this process
        self.staff = staff        # the staff account signed in to the browser monitor, if this is one of its
        self._client = client
        self._db_path = db_path

    def command(self, action: str, *, details: dict[str, str] | None = None, **target: str | None) -> StaffCommand:
        return StaffCommand(action=action, user=self.user, details=details, staff=self.staff, **target)

    async def perform(self, command: StaffCommand) -> CommandResult:
        client = self._client(command)
        if client is not None and not client.closed:
            return await client.send(command)
        return self.perform_without_service(command)

    def perform_without_service(self, command: StaffCommand) -> CommandResult:
        if command.action in CALL_ACTIONS:
            return CommandResult(False, "the receptionist service is not running: there is no live call to "
                                        "transfer, end, listen in to or take over", command.id)
        db_path = self._db_path()
        if not database_present(db_path):
            return CommandResult(False, f"no database at {db_path}: nothing was changed", command.id)
        actor = self.staff or self.user
        db = open_database(db_path)
        try:
            result = apply_database_command(ClinicStore(db), command, user=actor)
        finally:
            db.close()
        log = StaffActionLog(db_path)
        try:
            log.record(command, result, user=actor, via=VIA_WEB if self.staff else VIA_MONITOR,
                       claimed_user=self.user if self.staff else None)
        finally:
            log.close()
        # on the shared store each box's service rewrites its own feeds within a minute (events/diary_follower.py)
        if result.ok and command.action in DIARY_ACTIONS and not is_postgres(db_path):
            CalendarFeeds(db_path).refresh()
        return result
