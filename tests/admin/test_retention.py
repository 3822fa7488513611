"""`appliance db prune`: transcripts and recordings go after their retention period; outcomes stay."""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime, timedelta

from click.testing import CliRunner

from appliance.admin.retention import prune
from appliance.cli import main
from appliance.store.database import open_database
from appliance.store.records import CallRecorder

NOW = datetime(2026, 11, 20, 9, 0)
SECRET = "my date of birth is the fourth of July nineteen eighty"
OLD_WORDS = "an old caller said zebra quartz 4417"


def record_call(db_path, call_id, started, words=SECRET):
    db = open_database(db_path)
    rec = CallRecorder(db)
    rec.call_started(call_id=call_id, clinic="Harbourside Health", caller_id="+61491570006", started_at=started)
    rec.turn(call_id=call_id, seq=1, caller_text=words, agent_text="Thanks, Alex.", state="identify",
             waiting_for="dob", trigger=("dob", "high", SECRET), at=started)
    rec.transition(call_id=call_id, turn_seq=1, from_state="identify", to_state="book", trigger=("dob", "high", SECRET),
                   at=started)
    rec.tool_call(call_id=call_id, turn_seq=1, state="identify", name="find_patient",
                  arguments={"dob": "1980-07-04"}, result_kind="ok", result={"patient": "Alex Smith"},
                  duration_ms=1.5, at=started)
    rec.call_ended(call_id=call_id, ended_at=started + timedelta(minutes=2), outcome="booked", final_state="goodbye",
                   end_action="hangup")
    db.close()


def rows(db_path, sql):
    conn = sqlite3.connect(db_path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in conn.execute(sql)]
    finally:
        conn.close()


def test_old_transcripts_are_cleared_and_outcomes_kept(settings):
    db = settings.paths.database
    record_call(db, "old", NOW - timedelta(days=91), words=OLD_WORDS)
    record_call(db, "recent", NOW - timedelta(days=89))
    report = prune(settings, now=NOW)
    assert (report.calls, report.turns, report.tool_calls) == (1, 1, 1)
    calls = {row["id"]: row for row in rows(db, "SELECT * FROM calls")}
    assert calls["old"]["outcome"] == "booked" and calls["old"]["ended_at"] and calls["old"]["final_state"] == "goodbye"
    turns = {row["call_id"]: row for row in rows(db, "SELECT * FROM turns")}
    assert turns["old"]["caller_text"] is None and turns["old"]["agent_text"] is None
    assert turns["old"]["trigger_evidence"] is None and turns["old"]["state"] == "identify"
    assert turns["recent"]["caller_text"] == SECRET
    tools = {row["call_id"]: row for row in rows(db, "SELECT * FROM tool_calls")}
    assert tools["old"]["arguments"] == "{}" and tools["old"]["result"] == "{}" and tools["old"]["name"] == "find_patient"
    assert tools["recent"]["arguments"] != "{}"
    transitions = {row["call_id"]: row for row in rows(db, "SELECT * FROM transitions")}
    assert transitions["old"]["trigger_evidence"] is None and transitions["old"]["to_state"] == "book"
    # the words are gone from the file itself, not only from the rows (secure_delete, WAL checkpointed)
    wal = db.with_name(db.name + "-wal")
    raw = db.read_bytes() + (wal.read_bytes() if wal.exists() else b"")
    assert OLD_WORDS.encode() not in raw
    assert SECRET.encode() in raw


def test_pruning_twice_changes_nothing_the_second_time(settings):
    record_call(settings.paths.database, "old", NOW - timedelta(days=200))
    assert prune(settings, now=NOW).calls == 1
    again = prune(settings, now=NOW)
    assert (again.calls, again.turns, again.tool_calls) == (0, 0, 0)


def test_dry_run_changes_nothing(settings):
    record_call(settings.paths.database, "old", NOW - timedelta(days=200))
    report = prune(settings, now=NOW, dry_run=True)
    assert report.calls == 1
    assert rows(settings.paths.database, "SELECT caller_text FROM turns")[0]["caller_text"] == SECRET


def test_the_transcript_limit_comes_from_the_settings(box):
    from appliance.settings import load_settings

    box.write_text(box.read_text() + "\n[data]\ntranscript_days = 7\n")
    settings = load_settings(box)
    record_call(settings.paths.database, "last-week", NOW - timedelta(days=8))
    assert prune(settings, now=NOW).calls == 1


def test_old_recordings_are_deleted(settings):
    folder = settings.recordings_dir / "2026-09"
    folder.mkdir(parents=True)
    recent = settings.recordings_dir / "recent.wav"
    old = folder / "old.wav"
    note = settings.recordings_dir / "README.txt"
    for path in (recent, old, note):
        path.write_bytes(b"RIFF")
    old_time = (NOW - timedelta(days=31)).timestamp()
    os.utime(old, (old_time, old_time))
    os.utime(note, (old_time, old_time))
    report = prune(settings, now=NOW)
    assert report.recordings == (old,)
    assert recent.exists() and note.exists() and not old.exists()
    assert not folder.exists()   # emptied folders go too


def test_cli_prune(settings):
    record_call(settings.paths.database, "old", datetime.now() - timedelta(days=120))
    done = CliRunner().invoke(main, ["db", "prune"])
    assert done.exit_code == 0, done.output
    assert "cleared the transcripts of 1 call(s)" in done.output
    assert "deleted 0 recording(s)" in done.output
    dry = CliRunner().invoke(main, ["db", "prune", "--dry-run"])
    assert "would clear the transcripts of 0 call(s)" in dry.output


def test_old_callback_requests_lose_the_callers_name_number_and_words(settings):
    from appliance.store.clinic_store import ClinicStore

    db = open_database(settings.paths.database)
    for when, words in ((NOW - timedelta(days=91), OLD_WORDS), (NOW - timedelta(days=1), SECRET)):
        store = ClinicStore(db, now=lambda when=when: when)
        callback = store.add_callback_request(call_id=None, patient_id=None, name="Alex Smith", phone="+61491570006",
                                              reason=f"medical_advice: {words}")
        store.mark_callback_done(callback, done_by="frontdesk", note="rang back, " + words)
    db.close()
    report = prune(settings, now=NOW)
    assert report.callbacks == 1
    old, recent = rows(settings.paths.database, "SELECT * FROM callback_requests ORDER BY created_at")
    assert (old["name"], old["phone"], old["reason"], old["note"]) == (None, None, None, None)
    assert old["status"] == "done" and old["done_by"] == "frontdesk"       # what happened stays
    assert recent["name"] == "Alex Smith" and SECRET in recent["reason"]
    raw = settings.paths.database.read_bytes()
    assert OLD_WORDS.encode() not in raw
