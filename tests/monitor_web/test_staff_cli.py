"""`appliance staff add|passwd|remove|list`: the accounts in the file the settings name."""

from __future__ import annotations

import stat

import pytest
from click.testing import CliRunner

from appliance.cli import main
from appliance.monitor_web.staff_accounts import StaffAccounts


@pytest.fixture
def config(tmp_path, monkeypatch):
    path = tmp_path / "appliance.toml"
    path.write_text('[monitor_web]\nstaff_file = "accounts/staff"\n')   # relative: from the settings' folder
    (tmp_path / "accounts").mkdir()
    monkeypatch.setenv("APPLIANCE_CONFIG", str(path))
    return path


def staff(*args: str, password: str | None = None):
    return CliRunner().invoke(main, ["staff", *args], input=password)


def test_add_passwd_remove_and_list(config, tmp_path):
    accounts = StaffAccounts(tmp_path / "accounts" / "staff")
    added = staff("add", "alice", "--password-stdin", password="first password here\n")
    assert added.exit_code == 0, added.output
    assert "added alice" in added.output
    assert staff("add", "bob", password="bobs password 1\nbobs password 1\n").exit_code == 0    # asked twice
    assert stat.S_IMODE(accounts.path.stat().st_mode) == 0o600
    assert accounts.check("alice", "first password here") is not None
    assert staff("list").output.split() == ["alice", "bob"]

    changed = staff("passwd", "alice", "--password-stdin", password="second password here\n")
    assert changed.exit_code == 0, changed.output
    assert accounts.check("alice", "first password here") is None
    assert accounts.check("alice", "second password here") is not None

    removed = staff("remove", "bob")
    assert removed.exit_code == 0 and "removed bob" in removed.output
    assert staff("list").output.split() == ["alice"]


def test_mistakes_are_refused_with_the_reason_and_change_nothing(config, tmp_path):
    assert staff("add", "alice", "--password-stdin", password="first password here\n").exit_code == 0
    before = (tmp_path / "accounts" / "staff").read_text()
    for args, password, reason in [
        (("add", "Alice B"), "first password here\n", "is not a staff account name"),
        (("add", "carol", "--password-stdin"), "short\n", "at least 10 characters"),
        (("add", "alice", "--password-stdin"), "first password here\n", "alice already has an account"),
        (("passwd", "carol", "--password-stdin"), "first password here\n", "no staff account 'carol'"),
        (("remove", "carol"), None, "no staff account 'carol'"),
    ]:
        done = staff(*args, password=password)
        assert done.exit_code == 2, (args, done.output)
        assert reason in done.output, (args, done.output)
    assert staff("add", "dave", password="one password\nanother one!\n").exit_code != 0   # the two did not match
    assert (tmp_path / "accounts" / "staff").read_text() == before


def test_a_broken_settings_file_is_named(tmp_path, monkeypatch):
    path = tmp_path / "appliance.toml"
    path.write_text('[monitor_web]\nstaff_fil = "x"\n')
    monkeypatch.setenv("APPLIANCE_CONFIG", str(path))
    done = staff("list")
    assert done.exit_code == 2
    assert "monitor_web.staff_fil: unknown key" in done.output
