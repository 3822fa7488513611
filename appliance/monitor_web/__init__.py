"""The front desk's monitor in a browser: `appliance monitor --serve` (docs/monitor.md, "In a browser").

`web_server.py` is the aiohttp application in front of textual-serve (sign-in, sessions, HTTPS, the
addresses it listens on); `session_app.py` the monitor process each signed-in person gets;
`staff_accounts.py` the staff password file (`appliance staff`); `web_sessions.py` and `sign_in_guard.py`
how long a session lasts and how often a sign-in may fail.
"""
