"""The browser monitor's staff accounts: one file of names and argon2 password hashes.

    accounts = StaffAccounts(settings.staff_file)
    accounts.add("alice", password)           # AccountError naming the problem
    accounts.check("alice", password)         # the account, or None for a wrong name or password
    accounts.set_password("alice", new); accounts.remove("alice")

The file holds one `name:hash` line per member of staff (argon2id through argon2-cffi) and is written whole
under a lock, then renamed into place, mode 0600, owned like the data folder it sits in: the service's user
alone may read it (docs/it-admin.md, "Who may see and do what"). A line that cannot be read is named with its
line number and the file is refused, rather than a sign-in quietly failing.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

NAME_PATTERN = re.compile(r"[a-z][a-z0-9._-]{0,31}")
NAME_RULE = "1 to 32 characters: lower-case letters, digits, '.', '_' or '-', starting with a letter"
MIN_PASSWORD = 10
MAX_PASSWORD = 256
FILE_MODE = 0o600

_hasher = PasswordHasher()
# checked against when the name is unknown, so a wrong name costs as long as a wrong password
_UNKNOWN_NAME_HASH = _hasher.hash("no such member of staff")


class AccountError(ValueError):
    """A staff account cannot be added, changed or read; the message says why."""


@dataclass(frozen=True)
class StaffAccount:
    name: str
    password_hash: str


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name or ""):
        raise AccountError(f"{name!r} is not a staff account name ({NAME_RULE})")
    return name


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"a password needs at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise AccountError(f"a password has at most {MAX_PASSWORD} characters")
    return password


class StaffAccounts:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._cache: tuple[tuple[int, int, int], dict[str, StaffAccount]] | None = None

    # ------------------------------------------------------------ reading

    def accounts(self) -> dict[str, StaffAccount]:
        """Every account by name ({} when the file does not exist yet); re-read only when the file changed."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            return {}
        stamp = (info.st_ino, info.st_mtime_ns, info.st_size)
        if self._cache is not None and self._cache[0] == stamp:
            return self._cache[1]
        accounts = self._parse(self.path.read_text(encoding="utf-8"))
        self._cache = (stamp, accounts)
        return accounts

    def _parse(self, text: str) -> dict[str, StaffAccount]:
        accounts: dict[str, StaffAccount] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, colon, password_hash = line.partition(":")
            if not colon or not NAME_PATTERN.fullmatch(name) or not password_hash.startswith("$argon2"):
                raise AccountError(f"{self.path}, line {number}: not a staff account (name:argon2-hash); "
                                   "mend or delete the line, or use `appliance staff`")
            accounts[name] = StaffAccount(name, password_hash)
        return accounts

    def get(self, name: str) -> StaffAccount | None:
        return self.accounts().get(name)

    def check(self, name: str, password: str) -> StaffAccount | None:
        """The account when the name and password match, else None (the same work either way)."""
        account = self.accounts().get(name) if NAME_PATTERN.fullmatch(name or "") else None
        try:
            _hasher.verify(account.password_hash if account else _UNKNOWN_NAME_HASH, password[:MAX_PASSWORD])
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return None
        return account

    # ------------------------------------------------------------ changing

    def add(self, name: str, password: str) -> StaffAccount:
        check_name(name)
        with self._editing() as accounts:
            if name in accounts:
                raise AccountError(f"{name} already has an account (to change its password: appliance staff passwd {name})")
            accounts[name] = StaffAccount(name, _hasher.hash(check_password(password)))
            return accounts[name]

    def set_password(self, name: str, password: str) -> StaffAccount:
        with self._editing() as accounts:
            if name not in accounts:
                raise AccountError(f"no staff account {name!r} in {self.path}")
            accounts[name] = StaffAccount(name, _hasher.hash(check_password(password)))
            return accounts[name]

    def remove(self, name: str) -> None:
        with self._editing() as accounts:
            if accounts.pop(name, None) is None:
                raise AccountError(f"no staff account {name!r} in {self.path}")

    @contextmanager
    def _editing(self) -> Iterator[dict[str, StaffAccount]]:
        """The accounts, read and written back under an exclusive lock (one `appliance staff` at a time)."""
        folder = self.path.parent
        if not folder.is_dir():
            raise AccountError(f"{folder}: no such folder for the staff accounts (is the appliance installed, or "
                               "[monitor_web] staff_file set?)")
        lock = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)    # the folder itself: no lock file to own
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self._cache = None
            accounts = dict(self.accounts())
            yield accounts
            self._write(accounts)
        finally:
            os.close(lock)

    def _write(self, accounts: dict[str, StaffAccount]) -> None:
        text = "# staff accounts of the browser monitor: name:argon2 hash (appliance staff add|remove|passwd)\n"
        text += "".join(f"{a.name}:{a.password_hash}\n" for a in sorted(accounts.values(), key=lambda a: a.name))
        handle, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temporary, FILE_MODE)
            _own_like_folder(Path(temporary), self.path.parent)
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        self._cache = None


def _own_like_folder(path: Path, folder: Path) -> None:
    """Root writing the file (sudo appliance staff ...) gives it to the data folder's owner, the service's user."""
    if os.geteuid() != 0:
        return
    info = folder.stat()
    os.chown(path, info.st_uid, info.st_gid)
