"""Call events: the records the engine writes, published live to the front-desk monitors.

`messages.py` holds the wire types; `publisher.py` is the engine's record sink
that also publishes; `event_bus.py` fans events out without waiting;
`monitor_server.py` serves them on a local Unix socket with a replay;
`monitor_client.py` is the monitor's end; staff actions are handled in
`staff_commands.py` and recorded in `staff_action_log.py`.
"""

from .event_bus import EventBus
from .messages import CallEvent, CommandResult, StaffCommand
from .monitor_client import MonitorClient, os_user
from .monitor_server import MonitorServer
from .publisher import CallEventPublisher
from .serving import MonitorFeed, live_demo_player, serve_for_demo, serve_monitors
from .socket_file import MonitorSocketError, monitor_socket_path
from .staff_action_log import StaffActionLog
from .staff_commands import StaffCommandHandler

__all__ = [
    "CallEvent", "CallEventPublisher", "CommandResult", "EventBus", "MonitorClient", "MonitorFeed", "MonitorServer",
    "MonitorSocketError", "StaffActionLog", "StaffCommand", "StaffCommandHandler", "live_demo_player",
    "monitor_socket_path", "os_user", "serve_for_demo", "serve_monitors",
]
