"""`appliance db backup` and `appliance db restore`.

A backup is taken with SQLite's online backup API, so it is consistent while
the service is answering calls. It is written under a temporary name (mode
0600) and renamed into place only when complete and checked, then switched to
a single self-contained file (journal_mode DELETE). Backups named
`appliance-YYYYmmdd-HHMMSS.db` in the backup folder are rotated: the newest
`[data] backups_kept` stay.

Replacing the database with a new one (`appliance db init --replace`) refuses
while the service runs (a call in progress would go on writing to a file that
is no longer the database) and always keeps the old one first as
`before-replace-YYYYmmdd-HHMMSS.db` in the backup folder (never rotated).

A restore refuses while the service runs (it holds the database open),
checks the backup with `PRAGMA integrity_check` first, keeps the current
database as `<name>.before-restore`, and gives the restored file the data
folder's owner so the service can write it.

The shared PostgreSQL store is not backed up from an appliance: it is the database server's to back up
(pg_dump, or the server's own base backups and WAL archive: docs/it-admin.md). With it configured, `db backup`
says so (`NotHere`, not an error: the nightly timer goes on to retention) and `db restore` refuses.
"""

from __future__ import annotations

import os
import re
import sqlite3
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..settings import Settings
from ..store.database import SCHEMA_VERSION
from . import service_process

BACKUP_PATTERN = re.compile(r"^appliance-\d{8}-\d{6}(-\d+)?\.db$")
BEFORE_RESTORE = ".before-restore"


class BackupError(RuntimeError):
    """A backup or restore could not be done; the message names the file and the fix."""


class NotHere(BackupError):
    """The configured database is the shared PostgreSQL store: its server backs it up, not this box."""


POSTGRES_BACKUPS = ("the clinic database is the shared PostgreSQL store ([data] database): it is backed up on its "
                    "server (pg_dump, or base backups and WAL archiving), not by each appliance; see "
                    "docs/it-admin.md, \"The shared PostgreSQL store\"")


@dataclass(frozen=True)
class BackupResult:
    path: Path
    size: int
    removed: tuple[Path, ...]   # older backups rotated out


def default_backup_path(settings: Settings, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    folder = settings.backup_dir
    candidate = folder / f"appliance-{stamp}.db"
    n = 1
    while candidate.exists():
        candidate = folder / f"appliance-{stamp}-{n}.db"
        n += 1
    return candidate


def backup_database(settings: Settings, *, database: Path | None = None, to: Path | None = None,
                    now: datetime | None = None) -> BackupResult:
    """Copy the live database to `to` (default: a timestamped file in the backup folder), then rotate."""
    if database is None and settings.uses_postgres:
        raise NotHere(POSTGRES_BACKUPS)
    source = Path(database or settings.paths.database)
    if not source.is_file():
        raise BackupError(f"{source}: no database to back up (create it with: appliance db init --clinic FILE)")
    target = Path(to) if to is not None else default_backup_path(settings, now)
    if target.exists():
        raise BackupError(f"{target}: already exists; choose another --to file or move it away")
    _make_private_folder(target.parent)
    _copy_database(source, target, journal_mode="DELETE")
    removed: tuple[Path, ...] = ()
    if to is None:
        removed = rotate_backups(target.parent, settings.data.backups_kept)
    return BackupResult(target, target.stat().st_size, removed)


def backup_before_replacing(settings: Settings, database: Path, *, force: bool = False,
                            now: datetime | None = None) -> Path:
    """Before `database` is replaced by a new one: refuse while the service runs (unless `force`), then keep a
    copy in the backup folder; where it was kept."""
    running = service_process.service_running()
    if running and not force:
        raise BackupError(f"the phone service is running ({running}): a call in progress would lose what it writes. "
                          "Stop it first with `sudo systemctl stop appliance`, then run this again "
                          "(or add --force)")
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    target = settings.backup_dir / f"before-replace-{stamp}.db"
    n = 1
    while target.exists():
        target = settings.backup_dir / f"before-replace-{stamp}-{n}.db"
        n += 1
    return backup_database(settings, database=database, to=target).path


def rotate_backups(folder: Path, keep: int) -> tuple[Path, ...]:
    """Delete the oldest timestamped backups in `folder` so that `keep` remain; other files are left alone."""
    backups = sorted(p for p in folder.iterdir() if p.is_file() and BACKUP_PATTERN.match(p.name))
    old = backups[:-keep] if keep > 0 else backups
    for path in old:
        path.unlink(missing_ok=True)
    return tuple(old)


def list_backups(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and BACKUP_PATTERN.match(p.name))


def check_backup(path: Path) -> None:
    """Raise BackupError unless `path` is an intact appliance database this version can use."""
    if not path.is_file():
        raise BackupError(f"{path}: no such backup file")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise BackupError(f"{path}: cannot be opened: {exc}") from None
    try:
        problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
        if problems != ["ok"]:
            raise BackupError(f"{path}: failed the integrity check ({'; '.join(problems[:3])}): "
                              "choose another backup")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = {"schema_version", "calls", "turns", "clinic"} - tables
        if missing:
            raise BackupError(f"{path}: not an appliance database (no {', '.join(sorted(missing))} table)")
        version = conn.execute("SELECT max(version) FROM schema_version").fetchone()[0]
        if version is not None and version > SCHEMA_VERSION:
            raise BackupError(f"{path}: made by a newer appliance (schema {version}, this one reads "
                              f"{SCHEMA_VERSION}): update the software first")
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{path}: not a readable SQLite database: {exc}") from None
    finally:
        conn.close()


def restore_database(settings: Settings, backup: Path, *, database: Path | None = None,
                     force: bool = False) -> Path | None:
    """Replace the database with `backup`; returns where the old database was kept (None if there was none)."""
    if database is None and settings.uses_postgres:
        raise BackupError(POSTGRES_BACKUPS + "; restore it there (pg_restore)")
    target = Path(database or settings.paths.database)
    backup = Path(backup)
    running = service_process.service_running()
    if running and not force:
        raise BackupError(f"the phone service is running ({running}): stop it first with "
                          "`sudo systemctl stop appliance`, restore, then start it again (or use --force)")
    check_backup(backup)
    if backup.resolve() == target.resolve():
        raise BackupError(f"{backup}: that is the database itself; choose a backup file")
    _make_private_folder(target.parent)
    kept = None
    if target.exists():
        kept = target.with_name(target.name + BEFORE_RESTORE)
        _checkpoint(target)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{kept}{suffix}").unlink(missing_ok=True)
        os.replace(target, kept)
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)   # a stale WAL would be replayed into the restored file
    _copy_database(backup, target, journal_mode="WAL")
    _give_to_folder_owner(target)
    return kept


def _checkpoint(path: Path) -> None:
    """Fold the WAL into the main file so that moving the file moves every committed change."""
    try:
        conn = sqlite3.connect(path, timeout=5)
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    except sqlite3.Error:
        pass   # a damaged database is kept as it is


def _copy_database(source: Path, target: Path, *, journal_mode: str) -> None:
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")   # mode 0600
    os.close(fd)
    temporary = Path(name)
    try:
        src = sqlite3.connect(source, timeout=10)   # not read-only: a WAL database needs its -shm
        try:
            dst = sqlite3.connect(temporary)
            try:
                src.backup(dst)
                dst.execute(f"PRAGMA journal_mode = {journal_mode}")
                result = dst.execute("PRAGMA quick_check").fetchone()[0]
                if result != "ok":
                    raise BackupError(f"{source}: the copy failed its check ({result}); the database may be damaged")
            finally:
                dst.close()
        finally:
            src.close()
        os.chmod(temporary, 0o600)
        os.replace(temporary, target)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot copy {source} to {target}: {exc}") from None
    finally:
        for leftover in (temporary, Path(f"{temporary}-wal"), Path(f"{temporary}-shm"),
                         Path(f"{temporary}-journal")):
            leftover.unlink(missing_ok=True)


def _make_private_folder(folder: Path) -> None:
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o700)
        _give_to_folder_owner(folder)


def _give_to_folder_owner(path: Path) -> None:
    """Run as root, a new file gets the owner of the folder it is in (the appliance user)."""
    if os.geteuid() != 0:
        return
    parent = path.parent.stat()
    if path.stat().st_uid != parent.st_uid or path.stat().st_gid != parent.st_gid:
        os.chown(path, parent.st_uid, parent.st_gid)
