"""Starting the monitor socket for a running service or for the demo.

The service:

    feed = serve_monitors(db_path)                # binds <data>/monitor.sock (mode 0660)
    feed.handler.control_call(call_id, transfer_now=..., end_call=..., listen_in=..., take_over=...)   # per call
    engine = Engine(..., recorder=feed.publisher_for(CallRecorder(db)))

The text demo (`appliance demo --text`):

    publisher = serve_for_demo(db_path)
    play_scenario(..., player=live_demo_player(player, publisher, turn_delay=1.0))
    publisher.close(linger=1.0)
"""

from __future__ import annotations

import logging
import ssl
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..calendars import CalendarFeeds
from ..store.backend import is_postgres, redacted
from .diary_follower import DiaryFollower
from .event_bus import EventBus
from .monitor_server import MonitorServer
from .publisher import CallEventPublisher
from .socket_file import MonitorSocketError, monitor_socket_path
from .staff_action_log import StaffActionLog
from .staff_commands import StaffCommandHandler

log = logging.getLogger("appliance.events")


@dataclass
class MonitorFeed:
    bus: EventBus
    server: MonitorServer
    handler: StaffCommandHandler
    follower: DiaryFollower | None = None     # keeps the practitioners' calendar feeds up to date

    def publisher_for(self, recorder: Any) -> CallEventPublisher:
        return CallEventPublisher(recorder, self.bus)

    def close(self) -> None:
        if self.follower is not None:
            self.follower.close()
        self.server.close()


def serve_monitors(db_path: str | Path, *, socket_path: str | Path | None = None, calendars: str | Path | None = None,
                   tls: tuple[str, int, ssl.SSLContext] | None = None) -> MonitorFeed:
    """Bind the monitor socket and serve it; raises MonitorSocketError (naming the path) if it cannot.

    `db_path`: the SQLite file, or the shared store's postgresql:// address (the monitors are then told only
    its name without a password: they read the store their own settings name). `calendars`: the calendar
    feeds' folder (default beside the file). `tls`: also serve remote monitors (monitor_tls.py)."""
    bus = EventBus()
    feeds = CalendarFeeds(db_path, folder=calendars)
    handler = StaffCommandHandler(db_path, on_diary_change=feeds.refresh)
    shown = redacted(db_path) if is_postgres(db_path) else Path(db_path).resolve()
    server = MonitorServer(bus, socket_path or monitor_socket_path(), handler=handler,
                           action_log=StaffActionLog(db_path), database=shown, tls=tls)
    server.start()
    return MonitorFeed(bus, server, handler, DiaryFollower(bus, feeds.refresh).start())


def serve_for_demo(db_path: str | Path, *, socket_path: str | Path | None = None) -> CallEventPublisher:
    """A publisher for the demo call; `appliance monitor` in another terminal shows the call live.

    If the socket cannot be served (another process has it, the folder is read-only)
    the demo still plays: the publisher then only records."""
    try:
        feed = serve_monitors(db_path, socket_path=socket_path)
    except MonitorSocketError as exc:
        log.warning("the monitor will not show this demo call: %s", exc)
        return CallEventPublisher(None, None)
    return CallEventPublisher(None, feed.bus, on_close=feed.close)


Player = Callable[[Any, str], Any]


def live_demo_player(player: Player, publisher: CallEventPublisher, *, turn_delay: float = 0.0) -> Player:
    """Wrap the demo's player: publish the call (catching up on the greeting), pause before each caller turn."""

    def play(engine: Any, line: str) -> Any:
        publisher.watch(engine)
        if turn_delay > 0:
            time.sleep(turn_delay)
        return player(engine, line)

    return play
