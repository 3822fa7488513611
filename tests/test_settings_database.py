"""[data] database and database_file: PostgreSQL is chosen by its address, or by a file only its owner can read;
without either, the SQLite file is the database as before."""

from pathlib import Path

import pytest

from appliance.settings import ConfigError, load_settings

ADDRESS = "postgresql://appliance@db.clinic.lan/appliance"


def settings_with(tmp_path: Path, text: str):
    path = tmp_path / "appliance.toml"
    path.write_text(text)
    return load_settings(path, warn=False)


def dsn_file(tmp_path: Path, text: str, mode: int) -> Path:
    path = tmp_path / "database.dsn"
    path.write_text(text)
    path.chmod(mode)
    return path


def test_without_either_key_the_sqlite_file_is_the_database(tmp_path):
    settings = settings_with(tmp_path, "[paths]\ndata_dir = 'data'\n")
    assert not settings.uses_postgres
    assert settings.database_target() == tmp_path / "data" / "appliance.db"


def test_an_address_selects_postgresql(tmp_path):
    settings = settings_with(tmp_path, f"[data]\ndatabase = '{ADDRESS}'\n")
    assert settings.uses_postgres and settings.database_target() == ADDRESS
    assert settings.warnings() == []


def test_a_file_path_in_database_is_refused_naming_the_key(tmp_path):
    with pytest.raises(ConfigError, match=r"data\.database: must be a PostgreSQL address.*\[paths\] database"):
        settings_with(tmp_path, "[data]\ndatabase = '/var/lib/appliance/appliance.db'\n")


def test_an_address_with_a_password_in_the_settings_file_draws_a_warning(tmp_path):
    settings = settings_with(tmp_path, "[data]\ndatabase = 'postgresql://appliance:secret@db/appliance'\n")
    (warning,) = settings.warnings()
    assert warning.key == "data.database" and "database_file" in warning.fix
    assert "secret" not in str(warning)


def test_a_private_dsn_file_gives_its_address(tmp_path):
    dsn_file(tmp_path, f"# the shared store\n\n{ADDRESS.replace('@', ':pw@')}\n", 0o600)
    settings = settings_with(tmp_path, "[data]\ndatabase_file = 'database.dsn'\n")    # relative to the file
    assert settings.uses_postgres
    assert settings.database_target() == ADDRESS.replace("@", ":pw@")


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660])
def test_a_dsn_file_others_may_read_is_refused(tmp_path, mode):
    path = dsn_file(tmp_path, ADDRESS, mode)
    settings = settings_with(tmp_path, f"[data]\ndatabase_file = '{path}'\n")
    with pytest.raises(ConfigError, match=rf"{path} \(\[data\] database_file\): readable by others.*chmod 600"):
        settings.database_target()


def test_a_missing_or_empty_dsn_file_is_named(tmp_path):
    settings = settings_with(tmp_path, "[data]\ndatabase_file = 'nowhere.dsn'\n")
    with pytest.raises(ConfigError, match=r"nowhere\.dsn \(\[data\] database_file\): no such file"):
        settings.database_target()
    dsn_file(tmp_path, "# nothing yet\n", 0o600)
    settings = settings_with(tmp_path, "[data]\ndatabase_file = 'database.dsn'\n")
    with pytest.raises(ConfigError, match="holds no address"):
        settings.database_target()
    dsn_file(tmp_path, "/var/lib/appliance/appliance.db\n", 0o600)
    with pytest.raises(ConfigError, match="must hold a PostgreSQL address"):
        settings.database_target()


def test_both_keys_at_once_are_refused(tmp_path):
    with pytest.raises(ConfigError, match=r"data\.database_file: set either database or database_file"):
        settings_with(tmp_path, f"[data]\ndatabase = '{ADDRESS}'\ndatabase_file = 'x.dsn'\n")
