"""The staff password file: argon2 hashes, mode 0600, names checked, a damaged line named."""

from __future__ import annotations

import stat

import pytest

from appliance.monitor_web.staff_accounts import AccountError, StaffAccounts

from .conftest import PASSWORD


def test_a_right_password_signs_in_and_a_wrong_one_or_an_unknown_name_does_not(accounts):
    assert accounts.check("alice", PASSWORD).name == "alice"
    assert accounts.check("alice", PASSWORD.upper()) is None
    assert accounts.check("alice", "") is None
    assert accounts.check("carol", PASSWORD) is None
    assert accounts.check("../etc", PASSWORD) is None


def test_the_file_holds_hashes_only_and_only_the_owner_may_read_it(accounts):
    text = accounts.path.read_text()
    assert PASSWORD not in text
    assert "alice:$argon2id$" in text and "bob:$argon2id$" in text
    assert stat.S_IMODE(accounts.path.stat().st_mode) == 0o600


def test_a_password_change_takes_the_new_one_only(accounts):
    accounts.set_password("alice", "a brand new passphrase")
    fresh = StaffAccounts(accounts.path)           # another process (the web server) reads it again
    assert fresh.check("alice", PASSWORD) is None
    assert fresh.check("alice", "a brand new passphrase") is not None
    assert fresh.check("bob", PASSWORD + " too") is not None


def test_a_removed_account_cannot_sign_in_and_others_stay(accounts):
    accounts.remove("alice")
    assert accounts.check("alice", PASSWORD) is None
    assert sorted(StaffAccounts(accounts.path).accounts()) == ["bob"]


@pytest.mark.parametrize("name", ["", "Alice", "al ice", "1alice", "a" * 33, "alice:x", "al/ice"])
def test_names_outside_the_rule_are_refused(accounts, name):
    with pytest.raises(AccountError, match="not a staff account name"):
        accounts.add(name, PASSWORD)


def test_short_passwords_duplicates_and_unknown_names_are_refused_with_the_reason(accounts):
    with pytest.raises(AccountError, match="at least 10 characters"):
        accounts.add("carol", "short")
    with pytest.raises(AccountError, match="alice already has an account"):
        accounts.add("alice", PASSWORD)
    with pytest.raises(AccountError, match="no staff account 'carol'"):
        accounts.set_password("carol", PASSWORD)
    with pytest.raises(AccountError, match="no staff account 'carol'"):
        accounts.remove("carol")
    assert sorted(accounts.accounts()) == ["alice", "bob"]


def test_a_damaged_line_is_named_rather_than_failing_every_sign_in_quietly(accounts):
    accounts.path.write_text(accounts.path.read_text() + "carol plaintext-password\n")
    with pytest.raises(AccountError, match=r"staff-accounts, line 4: not a staff account"):
        StaffAccounts(accounts.path).check("alice", PASSWORD)


def test_no_file_yet_means_no_accounts(tmp_path):
    assert StaffAccounts(tmp_path / "staff-accounts").accounts() == {}
    with pytest.raises(AccountError, match="no such folder"):
        StaffAccounts(tmp_path / "missing" / "staff-accounts").add("alice", PASSWORD)
