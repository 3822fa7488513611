"""Today, History and State machine in the app, from the seeded database: the SQLite file, then the shared
PostgreSQL store (Today's numbers on both: test_database_views.py)."""

from appliance.monitor.screens.call_screen import CallScreen
from appliance.monitor.widgets.day_chart import chart_lines

from .conftest import make_app, run, settle


def cells(table, key) -> list[str]:
    return [str(value) for value in table.get_row(key)]


def test_state_machine_tables_show_the_right_counts(seeded_store, flow):
    async def scenario():
        app = make_app(seeded_store)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("5")
            states = app.query_one("#states")
            assert cells(states, "greeting")[2:4] == ["12", "10"]
            assert cells(states, "ask_spelling")[2:] == ["—", "—", "-", "never observed"]
            assert cells(states, "booking_in_progress")[1:3] == ["?", "1"]
            assert cells(states, "booking_in_progress")[-1] == "⚑ NOT IN FLOW"
            summary = str(app.query_one("#flow-summary").render())
            assert "⚑ 1 not in flow" in summary and f"Last 10 calls: 34 of {len(flow.states)} states observed" in summary
            await pilot.press("o")
            assert await settle(pilot, lambda: app.focused is not None and app.focused.id == "tools")
            assert cells(app.query_one("#tools"), "CreateAppointment")[1:7] == ["3", "1", "1", "1", "0", "67%"]
            await pilot.press("g")
            triggers = app.query_one("#triggers")
            rows = [cells(triggers, key.value)[:2] for key in triggers.rows]
            assert ["booking_request/medium", "1"] in rows and len(rows) == 18
            assert "▸ g Triggers" in str(app.query_one("#flow-summary").render())

    run(scenario())


def test_history_search_and_opening_a_past_call(seeded_store):
    async def scenario():
        app = make_app(seeded_store)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("4")
            table = app.query_one("#history-table")
            assert table.row_count == 10
            await pilot.press("slash", "tab", "tab")                     # date → outcome → caller
            await pilot.press(*"johnson")
            assert await settle(pilot, lambda: table.row_count == 1)
            await pilot.press("enter")                                    # to the list
            await pilot.press("enter")                                    # open it
            assert await settle(pilot, lambda: isinstance(app.screen, CallScreen))
            assert not app.screen.live
            text = str(app.screen.query_one("#transcript-body").render())
            assert text.startswith("state path: lookup_caller → greeting → task_router")
            assert "✓ CreateAppointment: ok" in text and "■ call ended: booked" in text
            assert app.screen.check_action("transfer", ()) is False
            await pilot.press("escape", "slash")
            await pilot.press("ctrl+a", *"2026-11-23")
            await pilot.press("tab", "tab", "ctrl+u")
            assert await settle(pilot, lambda: table.row_count == 1)
            await pilot.press("escape", "slash", *"xx")
            assert await settle(pilot, lambda: "use YYYY-MM-DD" in str(app.query_one("#history-count").render()))

    run(scenario())


def test_today_shows_the_numbers_and_steps_through_days(seeded_db):
    async def scenario():
        app = make_app(seeded_db)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("3")
            numbers = str(app.query_one("#today-numbers").render())
            assert "Tuesday 24 November 2026 (today)" in str(app.query_one("#today-title").render())
            assert "Bookings" in numbers
            await pilot.press("left_square_bracket")
            assert "(yesterday)" in str(app.query_one("#today-title").render())
            assert "Turn latency: average" in str(app.query_one("#today-latency").render())
            await pilot.press("left_square_bracket", "0")
            assert "(today)" in str(app.query_one("#today-title").render())

    run(scenario())


def test_the_day_chart_reads_without_colour():
    lines = chart_lines({9: 2, 10: 1}, height=2)
    assert lines[0].startswith(" 2 │") and "██" in lines[0]
    assert lines[-1].split()[0] == "07"
    assert len({len(line) for line in lines[:-1]}) == 1
