"""The front desk's screen: `appliance monitor` (Textual).

`app.py` is the app; `widgets/` holds one widget per file and `screens/` the
screens pushed over the tabs; `monitor.tcss` the styles. The models have no
Textual in them: `live_board.py` and `call_timeline.py` fold call events,
`call_history.py`, `day_summary.py`, `attention_items.py` and
`flow_observations.py` read the database.
"""

from .app import MonitorApp, run_monitor

__all__ = ["MonitorApp", "run_monitor"]
