"""`appliance db migrate` and `appliance db init` on PostgreSQL: a box's SQLite data copied whole into the shared
store, every table's rows counted on both sides, a non-empty target refused unless replaced."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from test_durability import BOOKING, Clinic

from appliance import paths
from appliance.cli import main
from appliance.store import open_database
from appliance.store.migrate import MigrationError, migrate
from appliance.store.postgres_schema import ROWID_TABLES



@pytest.fixture
def box_file(tmp_path, flow):
    """A box's SQLite database after a booking call, a callback call and a staff block."""
    box = Clinic(tmp_path / "appliance.db", flow)
    box.call(BOOKING)
    box.call(["Can someone call me back please?", "about my invoice", "Sarah Johnson"])
    practitioner = box.rows("SELECT id FROM practitioners ORDER BY position LIMIT 1")[0][0]
    now = box.clock.now()
    box.store.add_block(practitioner_id=practitioner, start=now.replace(hour=13), end=now.replace(hour=14),
                        reason="meeting", created_by="frontdesk")
    box.db.close()
    return box.path


def rows_of(db, table):
    """The table's rows: in the order written where the store reads them so, else in a fixed order."""
    rows = list(db[table].rows)
    return rows if table in ROWID_TABLES else sorted(rows, key=repr)


def test_a_box_is_copied_with_every_count_checked_and_reads_the_same(box_file, postgres_dsn, flow):
    counts = {c.table: c for c in migrate(box_file, postgres_dsn)}
    assert all(c.ok for c in counts.values())
    for table in ("patients", "appointments", "calls", "turns", "tool_calls", "callback_requests", "diary_blocks"):
        assert counts[table].source > 0, table
    lite, pg = open_database(box_file), open_database(postgres_dsn)
    for table in counts:
        assert rows_of(pg, table) == rows_of(lite, table), table
    lite.close()
    pg.close()

    after = Clinic(postgres_dsn, flow)              # the shared store goes on from where the box left off
    after.ids._n = 1000
    engine = after.call(BOOKING)
    assert engine.outcome() == "booked"
    after.db.close()


def test_a_target_holding_data_is_refused_unless_replaced(box_file, postgres_dsn):
    migrate(box_file, postgres_dsn)
    with pytest.raises(MigrationError, match="already holds data.*--replace"):
        migrate(box_file, postgres_dsn)
    assert all(c.ok for c in migrate(box_file, postgres_dsn, replace=True))


def test_the_commands_init_and_migrate_on_postgresql(box_file, postgres_dsn):
    runner = CliRunner()
    clinic = str(paths.REPO_ROOT / "config" / "clinic.demo.yaml")
    done = runner.invoke(main, ["db", "init", "--clinic", clinic, "--db", postgres_dsn])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("built postgresql://") and "patients" in done.output
    again = runner.invoke(main, ["db", "init", "--clinic", clinic, "--db", postgres_dsn])
    assert again.exit_code == 2 and "already holds a clinic" in again.output

    refused = runner.invoke(main, ["db", "migrate", "--from", f"sqlite://{box_file}", "--to", postgres_dsn])
    assert refused.exit_code == 2 and "already holds data" in refused.output
    moved = runner.invoke(main, ["db", "migrate", "--from", f"sqlite://{box_file}", "--to", postgres_dsn,
                                 "--replace"])
    assert moved.exit_code == 0, moved.output
    lines = moved.output.splitlines()
    assert lines[0].split() == ["table", "SQLite", "PostgreSQL"]
    turns = next(line.split() for line in lines if line.startswith("turns "))
    assert turns[1] == turns[2] and int(turns[1]) > 0
    assert "every count matches" in lines[-1]


def test_a_missing_source_is_named(tmp_path, postgres_dsn):
    with pytest.raises(MigrationError, match="no such database file"):
        migrate(tmp_path / "nothing.db", postgres_dsn)
