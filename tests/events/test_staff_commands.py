"""The service's handler: callbacks in the clinic database, live calls through their line's controls."""

from appliance.events import StaffCommand, StaffCommandHandler


def open_callback(clinic, name="Maria Rossi"):
    return clinic.store.add_callback_request(call_id=None, patient_id=None, name=name, phone="0491 570 158",
                                             reason="invoice")


def test_marking_a_callback_done_writes_the_clinic_database_with_who_did_it(clinic):
    callback_id = open_callback(clinic)
    handler = StaffCommandHandler(clinic.db_path)
    result = handler(StaffCommand("mark_callback_done", "alice", callback_id=callback_id, note="left a voicemail"))
    assert result.ok and "alice" in result.message
    (row,) = clinic.store.callback_requests(None)
    assert (row["status"], row["done_by"], row["note"]) == ("done", "alice", "alice: left a voicemail")
    again = handler(StaffCommand("mark_callback_done", "bob", callback_id=callback_id))
    assert not again.ok and "already done" in again.message


def test_a_note_keeps_the_callback_open_and_marking_done_keeps_the_note(clinic):
    callback_id = open_callback(clinic)
    handler = StaffCommandHandler(clinic.db_path)
    assert handler(StaffCommand("add_callback_note", "alice", callback_id=callback_id, note="no answer")).ok
    assert clinic.store.callback_requests("open")[0]["note"] == "alice: no answer"
    assert handler(StaffCommand("mark_callback_done", "bob", callback_id=callback_id)).ok
    (row,) = clinic.store.callback_requests(None)
    assert row["note"] == "alice: no answer" and row["done_by"] == "bob"


def test_an_unknown_callback_is_refused(clinic):
    result = StaffCommandHandler(clinic.db_path)(StaffCommand("mark_callback_done", "alice", callback_id="cb-nope"))
    assert not result.ok and "cb-nope" in result.message


def test_live_call_actions_go_to_the_controls_the_line_registered(clinic):
    done = []
    handler = StaffCommandHandler(clinic.db_path)
    handler.control_call("call-1", transfer_now=lambda user: done.append(("transfer", user)),
                         end_call=lambda user: done.append(("end", user)))
    assert handler(StaffCommand("transfer_now", "alice", call_id="call-1")).ok
    assert handler(StaffCommand("end_call", "alice", call_id="call-1")).ok
    assert done == [("transfer", "alice"), ("end", "alice")]      # the line is told who did it
    handler.release_call("call-1")
    refused = handler(StaffCommand("end_call", "alice", call_id="call-1"))
    assert not refused.ok and "no phone line" in refused.message


def test_listen_in_and_take_over_go_to_the_line_and_a_line_without_them_refuses(clinic):
    done = []
    handler = StaffCommandHandler(clinic.db_path)
    handler.control_call("call-1", listen_in=lambda user: done.append(("listen", user)),
                         take_over=lambda user: done.append(("take", user)))
    listened = handler(StaffCommand("listen_in", "alice", call_id="call-1"))
    assert listened.ok and listened.message == ("call call-1: listen-in started (the front desk's phone rings) by alice")
    assert handler(StaffCommand("take_over", "alice", call_id="call-1")).ok
    assert done == [("listen", "alice"), ("take", "alice")]
    refused = handler(StaffCommand("transfer_now", "alice", call_id="call-1"))    # this line offers no transfer
    assert not refused.ok and "no phone line here to transfer" in refused.message
