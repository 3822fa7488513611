"""One browser session's monitor: the process textual-serve starts for each signed-in person.

    APPLIANCE_WEB_STAFF=alice python -m appliance.monitor_web.session_app --db PATH --socket PATH [--flow FILE]
    APPLIANCE_WEB_STAFF=alice python -m appliance.monitor_web.session_app --shared-store --socket PATH

`--shared-store`: the database is the shared PostgreSQL store the settings name ([data] database or
database_file), read here so that its address, which may hold a password, is never on a command line.

It is the same `MonitorApp` as `appliance monitor`, acting for the staff account the web server signed in
(`APPLIANCE_WEB_STAFF`, set by the server for this process only). The service believes that name only from
the service's own user, which the web server runs as; anyone else who sets it is refused (monitor_server).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

STAFF_ENV = "APPLIANCE_WEB_STAFF"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="appliance.monitor_web.session_app")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", type=Path)
    where.add_argument("--shared-store", action="store_true", help="the PostgreSQL store the settings name")
    parser.add_argument("--db-given", action="store_true", help="keep this database even if the service names another")
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--flow", type=Path, default=None)
    args = parser.parse_args(argv)
    staff = os.environ.get(STAFF_ENV, "")
    if not staff:
        print(f"{STAFF_ENV} is not set: this process is started by `appliance monitor --serve` for a signed-in "
              "member of staff", file=sys.stderr)
        return 2

    from ..engine.flow import FlowError, load_flow
    from ..monitor import MonitorApp
    from .. import paths

    try:
        flow = load_flow(args.flow or paths.flow_path())
    except (FlowError, OSError):
        flow = None       # the State machine screen says no flow is loaded; the rest works
    database: str | Path = args.db
    if args.shared_store:
        from ..settings import ConfigError, load_settings

        try:
            database = str(load_settings(warn=False).database_target())
        except ConfigError as exc:
            print(exc, file=sys.stderr)
            return 2
    MonitorApp(db_path=database, db_given=args.db_given or args.shared_store, socket_path=args.socket, flow=flow,
               staff_account=staff).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
