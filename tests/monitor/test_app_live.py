"""Live calls in the app, driven headless by the recorded stream."""

from contextlib import asynccontextmanager

from appliance.monitor.screens.call_screen import CallScreen
from appliance.monitor.widgets.status_line import StatusLine
from appliance.monitor.widgets.transcript_view import TranscriptView

from .conftest import feed, make_app, run, settle
from .recorded_stream import until


def cell(app, row, column) -> str:
    return str(app.query_one("#live-table").get_cell(row, column))


def send(app, events):
    for event in events:
        app.receive("event", event)


def test_live_rows_appear_and_update_as_events_arrive(seeded_db, stream):
    first_turns = until(stream, lambda e: e.kind == "turn" and e.call_id == "call-2")
    identified = until(stream, lambda e: e.kind == "turn" and e.call_id == "call-1" and e.fields["seq"] == 3)

    async def scenario():
        app = make_app(seeded_db, now=stream[0].ts + 75)
        async with app.run_test(size=(100, 30)) as pilot:
            feed(app, first_turns)
            table = app.query_one("#live-table")
            assert await settle(pilot, lambda: table.row_count == 2)
            assert cell(app, "call-1", "who") == "0491 570 006" and cell(app, "call-1", "state") == "greeting"
            assert cell(app, "call-1", "time") == "1:15"
            assert cell(app, "call-1", "said").startswith("R: Thank you for calling")
            assert "2 calls in progress" in str(app.query_one(StatusLine).render())
            send(app, identified[len(first_turns):])
            assert await settle(pilot, lambda: cell(app, "call-1", "who") == "Sarah Johnson")
            assert cell(app, "call-1", "state") == "ask_location"
            assert cell(app, "call-1", "latency") == "3.0 ms"
            send(app, stream[len(identified):])                 # call-1 ends
            assert await settle(pilot, lambda: table.row_count == 1)
            assert cell(app, "call-2", "who") == "Tom Morgan"

    run(scenario())


@asynccontextmanager
async def identified_call_on_the_board(seeded_db, stream):
    """The app with call-1 live on the board up to its identified turn: (app, pilot, events left to send)."""
    part = until(stream, lambda e: e.kind == "turn" and e.call_id == "call-1" and e.fields["seq"] == 3)
    app = make_app(seeded_db, now=stream[0].ts + 75)
    async with app.run_test(size=(100, 40)) as pilot:
        feed(app, part)
        assert await settle(pilot, lambda: app.query_one("#live-table").row_count >= 1)
        yield app, pilot, stream[len(part):]


def test_enter_opens_the_live_transcript_which_follows_the_call(seeded_db, stream):
    async def scenario():
        async with identified_call_on_the_board(seeded_db, stream) as (app, pilot, rest):
            await pilot.press("enter")
            assert await settle(pilot, lambda: isinstance(app.screen, CallScreen))
            assert app.screen.call_id == "call-1"
            text = str(app.screen.query_one("#transcript-body").render())
            assert "#3 caller: the fourth of March" in text
            assert "✓ GetPatientDetails: ok" in text and "→ ask_location" in text
            send(app, rest)

            def body() -> str:
                return str(app.screen.query_one("#transcript-body").render())

            assert await settle(pilot, lambda: "■ call ended: booked" in body())
            assert "CreateAppointment: ok" in body()
            view = app.screen.query_one(TranscriptView)                  # it followed the call to its end
            assert await settle(pilot, lambda: view.max_scroll_y > 0 and view.scroll_y >= view.max_scroll_y)
            heading = str(app.screen.query_one("#call-heading").render())
            assert "ENDED: booked" in heading
            assert app.screen.check_action("transfer", ()) is False       # nothing to transfer any more
            await pilot.press("escape")
            assert await settle(pilot, lambda: not isinstance(app.screen, CallScreen))

    run(scenario())


def test_events_for_a_call_screen_not_yet_drawn_wait_for_it(seeded_db, stream):
    """Enter pushes the call's screen; events can reach it before Textual has composed it (seen on a busy box)."""
    async def scenario():
        async with identified_call_on_the_board(seeded_db, stream) as (app, pilot, rest):
            app.open_call("call-1")
            screen = app.screen_stack[-1]
            assert isinstance(screen, CallScreen) and not screen.is_mounted
            send(app, rest)                      # refreshes the undrawn screen: must not raise
            screen.refresh_heading()
            assert await settle(pilot, lambda: screen.is_mounted)
            assert await settle(pilot, lambda: "■ call ended: booked" in str(screen.query_one("#transcript-body").render()))

    run(scenario())


def test_without_the_service_the_monitor_says_so_and_still_shows_history(seeded_db):
    async def scenario():
        app = make_app(seeded_db, connect=True, retry_seconds=0.05)
        async with app.run_test(size=(100, 30)) as pilot:
            assert await settle(pilot, lambda: "SERVICE NOT RUNNING" in str(app.query_one(StatusLine).render()))
            assert "not running" in str(app.query_one("#live-message").render())
            await pilot.press("4")
            assert await settle(pilot, lambda: app.query_one("#history-table").row_count == 10)

    run(scenario())


def test_a_monitor_connecting_mid_call_shows_the_turns_so_far(seeded_db, stream, tmp_path):
    """Through the real socket: the service has published half the call before the monitor starts."""
    import tempfile
    from pathlib import Path

    from appliance.events import EventBus, MonitorServer

    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    bus = EventBus()
    part = until(stream, lambda e: e.kind == "turn" and e.call_id == "call-1" and e.fields["seq"] == 3)
    for event in part:
        bus.publish(event.kind, event.call_id, event.fields)

    async def scenario():
        with MonitorServer(bus, folder / "m.sock"):
            app = make_app(seeded_db, socket_path=folder / "m.sock", connect=True, now=1e12)
            async with app.run_test(size=(100, 40)) as pilot:
                # the replay arrives in pieces: wait for the part that names the patient
                assert await settle(pilot, lambda: app.connected and app.query_one("#live-table").row_count == 2
                                    and cell(app, "call-1", "who") == "Sarah Johnson"), cell(app, "call-1", "who")
                await pilot.press("enter")
                assert await settle(pilot, lambda: isinstance(app.screen, CallScreen))
                text = str(app.screen.query_one(TranscriptView).body.render())
                assert "#1 caller: Hi, I'd like to book" in text and "#3 receptionist" in text
                for event in stream[len(part):]:
                    bus.publish(event.kind, event.call_id, event.fields)
                for _ in range(50):
                    await pilot.pause(0.05)
                    if "call ended" in str(app.screen.query_one(TranscriptView).body.render()):
                        break
                assert "■ call ended: booked" in str(app.screen.query_one(TranscriptView).body.render())
        folder.rmdir()

    run(scenario())


def test_what_callers_say_is_shown_as_text_never_as_markup(seeded_db):
    from appliance.events.messages import CallEvent

    async def scenario():
        app = make_app(seeded_db, now=10.0)
        async with app.run_test(size=(100, 30)) as pilot:
            feed(app, [CallEvent("call_started", "c", {"caller_id": "[bold]0400[/]"}, seq=1, ts=1.0),
                       CallEvent("turn", "c", {"seq": 1, "caller_text": "[/red] my [link=x]name[/link]",
                                               "agent_text": "ok", "state": "greeting"}, seq=2, ts=2.0)])
            await pilot.pause()
            assert cell(app, "c", "who") == "[bold]0400[/]"
            await pilot.press("enter")
            assert await settle(pilot, lambda: isinstance(app.screen, CallScreen))
            assert "caller: [/red] my [link=x]name[/link]" in str(app.screen.query_one("#transcript-body").render())

    run(scenario())


def test_a_tick_while_the_app_closes_does_not_raise(seeded_db, stream):
    """The once-a-second tick can fire after the main screen's views are torn down, as the app closes."""
    from appliance.monitor.widgets.attention_view import AttentionView

    async def scenario():
        async with identified_call_on_the_board(seeded_db, stream) as (app, pilot, rest):
            await app.screen_stack[0].query_one(AttentionView).remove()
            app._mark_dirty()
            app.tick()                           # must not raise: the app would die with it

    run(scenario())
