"""The Review list, the summaries and the paths in the app, from the seeded day with calls to review added
(review_calls.py): Textual's pilot presses the keys the front desk would."""

from appliance.monitor.screens.call_screen import CallScreen

from .conftest import make_app, run, settle


def cells(table, key) -> list[str]:
    return [str(value) for value in table.get_row(key)]


def shows(cell: str, full: str) -> bool:
    """The cell is the text, or its start cut to the column with an ellipsis."""
    return cell == full or (cell.endswith("…") and full.startswith(cell[:-1]))


def text_of(app, selector) -> str:
    return str(app.query_one(selector).render())


def test_the_review_list_shows_each_flagged_call_with_its_reasons_and_opens_it(review_store):
    async def scenario():
        app = make_app(review_store)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("7")
            table = app.query_one("#review-table")
            assert await settle(pilot, lambda: app.focused is table)
            assert table.keys() == ["call-505", "call-504", "call-503", "call-501", "call-failed", "call-9"]
            assert "Calls to review (last 7 days): 6, newest first" in text_of(app, "#review-title")
            assert cells(table, "call-505")[2:] == ["info", "long wait, barge-in"]
            assert cells(table, "call-failed")[-1] == "guard refused, tool failed"
            detail = text_of(app, "#review-detail")
            assert "⚑ long wait: waited 4.6 s for a reply at turn 1" in detail
            assert "⚑ barge-in: the caller spoke over the receptionist 1 time (turn 2)" in detail
            assert "Asked about a price." in detail
            await pilot.press("down", "down")
            assert await settle(pilot, lambda: "checked in on a silence 2 times" in text_of(app, "#review-detail"))
            await pilot.press("down")
            assert await settle(pilot, lambda: "⚑ reprompts: not understood 3 times" in text_of(app, "#review-detail"))
            await pilot.press("enter")
            assert await settle(pilot, lambda: isinstance(app.screen, CallScreen))
            review = text_of(app.screen, "#call-review")
            assert review.startswith("Caller not identified (from 0491 570 201). Asked nothing the receptionist "
                                     "understood. Done: took a callback request.")
            assert "⚑ not understood 3 times (turns 1, 2, 3; at callback, greeting)" in review

    run(scenario())


def test_today_counts_the_calls_to_review_by_kind(review_db):
    async def scenario():
        app = make_app(review_db)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("3")
            await settle(pilot, lambda: "barge" in text_of(app, "#today-review"))
            assert text_of(app, "#today-review") == (
                "To review (7): 6 calls: reprompts 1, silence 1, asked for a person 1, name/DOB changed 1, "
                "guard refused 1, tool failed 1, long wait 1, barge-in 1")
            await pilot.press("left_square_bracket")                    # the day before: nothing to review
            assert await settle(pilot, lambda: text_of(app, "#today-review") == "To review (7): none")

    run(scenario())


def test_history_shows_each_calls_summary_and_the_highlighted_ones_in_full(review_db):
    async def scenario():
        app = make_app(review_db)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.press("4")
            table = app.query_one("#history-table")
            assert await settle(pilot, lambda: table.row_count == 14)
            assert shows(cells(table, "call-10")[-1], "George Brown, identified by name and date of birth (from "
                                                      "(02) 5550 7788). Asked to cancel.")
            await pilot.press("slash", "tab", "tab", *"johnson")
            assert await settle(pilot, lambda: table.row_count == 1)
            await pilot.press("enter")
            assert await settle(pilot, lambda: text_of(app, "#history-detail").startswith(
                "Sarah Johnson, identified by name and date of birth (from 0491 570 006). Asked to book Remedial "
                "massage and about a price. Done: booked Remedial massage with Mia Nguyen at Neutral Bay, "
                "Thu 2026-11-26 12:00"))
            await pilot.press("enter")
            assert await settle(pilot, lambda: isinstance(app.screen, CallScreen))
            assert text_of(app.screen, "#call-review").startswith("Sarah Johnson, identified")

    run(scenario())


def test_needs_attention_shows_the_summaries_of_callbacks_and_handed_off_calls(review_db):
    async def scenario():
        app = make_app(review_db)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.press("2")
            callbacks = app.query_one("#callbacks-table")
            assert await settle(pilot, lambda: callbacks.row_count == 3)
            rossi = next(key for key in callbacks.keys() if "Maria Rossi" in cells(callbacks, key)[0])
            assert shows(cells(callbacks, rossi)[-1], "caller_request: It's about my invoice · note: Summary: Maria "
                                                      "Rossi by their own account, not verified (from 0491 570 158).")
            handoffs = app.query_one("#handoffs-table")
            assert shows(cells(handoffs, "call-9")[-1], "Caller not identified (withheld number). Asked for a person.")

    run(scenario())


def test_the_state_machine_shows_the_common_paths_and_where_handed_off_calls_left(review_db):
    async def scenario():
        app = make_app(review_db)
        async with app.run_test(size=(160, 40)) as pilot:
            await pilot.press("5", "p")
            paths = app.query_one("#paths")
            assert await settle(pilot, lambda: app.focused is paths)
            first = cells(paths, paths.keys()[0])
            assert first == ["3", "info", "greeting › anything_else › goodbye"]
            assert "▸ p Paths" in text_of(app, "#flow-summary")
            await pilot.press("h")
            departures = app.query_one("#departures")
            rows = [cells(departures, key) for key in departures.keys()]
            expected = [["greeting", "callback_request (callback_terms)", "callback", "1", "callback_next"],
                        ["greeting", "human_request (human_terms)", "transferred", "1", "handoff"],
                        ["greeting", "unknown (no_rule_matched,repeated)", "callback", "1", "callback_unclear"]]
            assert len(rows) == len(expected)
            assert all(shows(cell, full) for row, want in zip(rows, expected) for cell, full in zip(row, want))

    run(scenario())
