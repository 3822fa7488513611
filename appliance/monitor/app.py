"""`appliance monitor`: the front desk's screen (Textual).

Live calls come from the service's call events over the monitor socket; the
other screens read the appliance database, so they work when the service is
not running (and the status line says so plainly). With the shared PostgreSQL
store the database screens read the whole group's calls, and with [monitor]
services one monitor follows the live calls of several boxes
(watched_services.py), each row naming its box. Staff actions go to the
service, or straight to the database for callbacks when it is not running;
each is recorded with the OS user, or in the browser (`appliance monitor
--serve`, appliance/monitor_web) with the staff account signed in there.
"""

from __future__ import annotations

import asyncio
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Callable
from zoneinfo import ZoneInfo

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import DataTable, Footer, TabbedContent, TabPane

from ..engine.flow import Flow
from ..events.messages import CALL_ACTIONS, CallEvent, StaffCommand
from ..events.monitor_client import MonitorClient, os_user
from ..store.backend import DATABASE_ERRORS, database_name, is_postgres
from .attention_items import FAILED_DAYS, failed_calls, handed_off, open_callbacks, unheard_bookings
from .call_history import load_call, search_calls
from .call_reviews import REVIEW_DAYS, calls_to_review, review_counts, review_of, reviews_for
from .call_timeline import CallTimeline
from .database_access import Connection, DatabaseUnavailable, open_for_monitor
from .day_summary import day_summary
from .flow_observations import observe_flow
from .live_board import LiveBoard
from .screens.call_screen import CallScreen
from .screens.confirm_prompt import ConfirmPrompt
from .screens.text_prompt import TextPrompt
from .staff_actions import StaffActions
from .watched_services import ServiceLink, describe_failure, socket_link
from .widgets.attention_view import AttentionView
from .widgets.diary_view import DiaryView
from .widgets.history_view import DateNotUnderstood, HistoryView, parse_day
from .widgets.live_calls_view import LiveCallsView
from .widgets.open_call import OpenCall
from .widgets.review_view import ReviewView
from .widgets.state_machine_view import StateMachineView
from .widgets.status_line import StatusLine
from .widgets.today_view import TodayView

SCREENS = Binding.Group("Screens", compact=True)
TABS = (("live", "1 Live calls"), ("attention", "2 Needs attention"), ("today", "3 Today"),
        ("history", "4 History"), ("flow", "5 State machine"), ("diary", "6 Diary"))
REVIEW_TAB = ("review", "7 Review")      # calls with review flags (call_review)
# what staff are asked before a live-call action
CALL_QUESTIONS = {
    "transfer_now": "Transfer the call from {who} to the front desk now?",
    "end_call": "End the call from {who} now?",
    "listen_in": "Ring the front desk's phone to listen in to the call from {who} (muted)?",
    "take_over": "Take over the call from {who}? The front desk's phone joins and the receptionist stops.",
}


class MonitorApp(App):
    CSS_PATH = "monitor.tcss"
    ENABLE_COMMAND_PALETTE = False
    TITLE = "Front desk monitor"
    BINDINGS = [
        *(Binding(str(n), f"show_tab('{tab}')", label.split(" ", 1)[1], group=SCREENS)
          for n, (tab, label) in enumerate(TABS, start=1)),
        Binding("7", f"show_tab('{REVIEW_TAB[0]}')", "Review", group=SCREENS),
        Binding("r", "reload", "Refresh"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, *, db_path: str | Path | None, socket_path: str | Path | None = None, flow: Flow | None = None,
                 db_given: bool = True, user: str | None = None, staff_account: str | None = None,
                 connect: bool = True, services: list[ServiceLink] | None = None,
                 clock: Callable[[], float] = time.time, today: Callable[[], date] | None = None,
                 retry_seconds: float = 2.0):
        """`db_path`: the SQLite file, or the shared store's postgresql:// address. `services`: the services to
        watch ([monitor] services); none given, the one at `socket_path`."""
        super().__init__()
        self.db_path: str | Path | None = db_path if db_path is None or is_postgres(db_path) else Path(db_path)
        self.db_given = db_given
        self.socket_path = Path(socket_path) if socket_path is not None else None
        if not services:
            if socket_path is None:
                raise ValueError("the monitor needs a service to watch: a socket path or [monitor] services")
            services = [socket_link(socket_path)]
        self.links = list(services)
        self.flow = flow
        # who is at the keyboard: the staff account signed in to the browser monitor, else the OS user
        self.user = staff_account or user or os_user()
        self.follow_service = connect
        self.clock = clock
        self._today = today
        self.retry_seconds = retry_seconds
        self.db: Connection | None = None
        self.db_problem: str | None = None
        self.day: date | None = None          # the day Today shows; None follows the calendar
        self._db_dirty = False
        self.staff = StaffActions(user=user or os_user(), staff=staff_account, client=self.client_for,
                                  db_path=lambda: self.db_path)

    # ------------------------------------------------------------ the services watched

    @property
    def group(self) -> bool:
        """Several services watched: rows name their box."""
        return len(self.links) > 1

    @property
    def board(self) -> LiveBoard:
        """The first service's board (the only one on a single box)."""
        return self.links[0].board

    @property
    def client(self) -> MonitorClient | None:
        return self.links[0].client

    @property
    def connected(self) -> bool:
        """At least one service is connected."""
        return any(link.connected for link in self.links)

    def link_of_call(self, call_id: str | None) -> ServiceLink | None:
        """The service the call is on: the one where it is in progress, else one that showed it ending."""
        for link in self.links:
            call = link.board.get(call_id or "")
            if call is not None and not call.ended:
                return link
        return next((link for link in self.links if link.board.get(call_id or "") is not None), None)

    def client_for(self, command: StaffCommand) -> MonitorClient | None:
        """Where a staff command goes: a live call's to the service it is on; a callback or diary action to any
        connected service (on the shared store they all write the same database), else None (the database)."""
        if command.action in CALL_ACTIONS:
            link = self.link_of_call(command.call_id)
            return link.client if link is not None else None
        return next((link.client for link in self.links if link.connected and link.client is not None), None)

    def live_calls(self) -> list[CallTimeline]:
        return [call for link in self.links for call in link.board.in_progress()]

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with TabbedContent(initial="live", id="tabs"):
            with TabPane(TABS[0][1], id="live"):
                yield LiveCallsView(id="live-view", boxes=self.group)
            with TabPane(TABS[1][1], id="attention"):
                yield AttentionView(id="attention-view")
            with TabPane(TABS[2][1], id="today"):
                yield TodayView(id="today-view")
            with TabPane(TABS[3][1], id="history"):
                yield HistoryView(id="history-view")
            with TabPane(TABS[4][1], id="flow"):
                yield StateMachineView(id="flow-view")
            with TabPane(TABS[5][1], id="diary"):
                yield DiaryView(id="diary-view")
            with TabPane(REVIEW_TAB[1], id=REVIEW_TAB[0]):
                yield ReviewView(id="review-view")
        yield Footer()

    def on_mount(self) -> None:
        self.open_database()
        self.refresh_database_views()
        self.show_live()
        self.query_one("#live-table", DataTable).focus()
        self.set_interval(1.0, self.tick)
        self.set_interval(30.0, self._mark_dirty)
        if self.follow_service:
            for i, link in enumerate(self.links):
                self.run_worker(self.listen(link), group=f"socket-{i}", exclusive=True)

    # ------------------------------------------------------------ time

    def today(self) -> date:
        if self._today is not None:
            return self._today()
        zone = None
        if self.db is not None:
            try:
                row = self.db.execute("SELECT timezone FROM clinic WHERE id = 1").fetchone()
                zone = ZoneInfo(row[0]) if row else None
            except Exception:
                zone = None
        return datetime.now(zone).date()

    def tick(self) -> None:
        if self.live_calls():
            self.show_live()
            if isinstance(self.screen, CallScreen) and self.screen.live:
                try:
                    self.screen.refresh_heading()
                except NoMatches:   # a tick while the app closes: the transcript's widgets are already gone
                    pass
        # the database's views live on the main screen: while a call's screen is on top they wait (a query
        # would look on the top screen and find none of them)
        if self._db_dirty and self.screen is self.screen_stack[0]:
            self._db_dirty = False
            try:
                self.refresh_database_views()
            except NoMatches:   # a tick while the app closes: the main screen's views are already gone
                pass

    def _mark_dirty(self) -> None:
        self._db_dirty = True

    # ------------------------------------------------------------ the database

    def open_database(self, path: str | Path | None = None) -> None:
        if path is not None:
            self.db_path = path
        if self.db is not None:
            self.db.close()
            self.db = None
        if self.db_path is None:
            self.db_problem = "no database given"
            return
        try:
            self.db = open_for_monitor(self.db_path)
            self.db_problem = None
        except DatabaseUnavailable as exc:
            self.db_problem = str(exc)

    def refresh_database_views(self) -> None:
        if self.db is None:
            self.open_database()   # it may have been created since (the demo builds its own)
        self.show_status()
        if self.db is None:
            self.query_one(HistoryView).show([], note=self.db_problem or "no database")
            return
        try:
            day = self.day or self.today()
            today = self.today()
            handoffs, failed = handed_off(self.db, today), failed_calls(self.db, today)
            summaries = {call_id: review.summary
                         for call_id, review in reviews_for(self.db, [c.id for c in handoffs + failed]).items()}
            self.query_one(AttentionView).show(open_callbacks(self.db), handoffs, failed, failed_days=FAILED_DAYS,
                                               unheard=unheard_bookings(self.db, today), summaries=summaries)
            self.query_one(TodayView).show(day_summary(self.db, day), today=today, review=review_counts(self.db, day))
            self.query_one(ReviewView).show(calls_to_review(self.db, today), days=REVIEW_DAYS)
            self.run_search(self.query_one(HistoryView).criteria())
            flow_name = Path(self.flow.source).name if self.flow is not None else "no flow loaded"
            self.query_one(StateMachineView).show(observe_flow(self.db, self.flow), flow_name=flow_name)
            self.query_one(DiaryView).show(self.db, today)
        except DATABASE_ERRORS as exc:
            self.db_problem = f"cannot read {database_name(self.db_path)}: {exc}"
            self.show_status()

    def run_search(self, criteria: HistoryView.Search) -> None:
        if self.db is None:
            return
        view = self.query_one(HistoryView)
        try:
            day = parse_day(criteria.day_text, self.today())
        except DateNotUnderstood as exc:
            view.show([], note=str(exc))
            return
        calls = search_calls(self.db, day=day, outcome=criteria.outcome, caller=criteria.caller)
        view.show(calls, reviews=reviews_for(self.db, [call.id for call in calls]))

    # ------------------------------------------------------------ the live side

    def show_status(self) -> None:
        try:
            line = self.query_one(StatusLine)
        except NoMatches:   # a tick or an event while the app closes: its widgets are already gone
            return
        line.show(connected=self.connected, calls=len(self.live_calls()),
                  database=database_name(self.db_path) if self.db_path is not None else "", user=self.user,
                  problem=self.db_problem, services=[(link.label, link.connected) for link in self.links]
                  if self.group else None)

    def show_live(self) -> None:
        try:
            view = self.query_one(LiveCallsView)
        except NoMatches:   # as above
            return
        boxes = {call.call_id: link.label for link in self.links for call in link.board.in_progress()}
        offline = [(link.label, link.where, link.problem) for link in self.links if not link.connected]
        view.show(self.live_calls(), self.clock(), connected=self.connected, offline=offline,
                  boxes=boxes if self.group else None)

    def set_connected(self, connected: bool, link: ServiceLink | None = None) -> None:
        link = link or self.links[0]
        if connected == link.connected:
            return
        link.connected = connected
        if connected:
            link.problem = None
        else:
            shown = isinstance(self.screen, CallScreen) and self.screen.live and not self.screen.call.ended
            if shown and link.board.get(self.screen.call_id) is self.screen.call:
                self.screen.call.extra.append("! ended while this monitor was not connected (see History)")
                self.screen.call.ended = True
                self.screen.refresh_call()
            link.board.reset(None)
            self._db_dirty = True
        self.show_status()
        self.show_live()

    async def listen(self, link: ServiceLink | None = None) -> None:
        """Connect to the service, follow its events, reconnect when it goes away (each service on its own)."""
        link = link or self.links[0]
        while True:
            try:
                client = await link.connect()
            except (OSError, asyncio.TimeoutError) as exc:
                problem = describe_failure(exc)
                if problem != link.problem:
                    link.problem = problem
                    self.show_live()
                self.set_connected(False, link)
                await asyncio.sleep(self.retry_seconds)
                continue
            link.client = client
            try:
                await client.run(lambda kind, payload: self.receive(kind, payload, link))
            except Exception as exc:   # a message this monitor cannot show must not close it
                self.log.error(f"monitor: dropped the connection after {type(exc).__name__}: {exc}")
                self.notify(f"Lost the live feed of {link.label} ({type(exc).__name__}); reconnecting.",
                            severity="error", markup=False)
            finally:
                link.client = None
                await client.close()
            self.set_connected(False, link)
            await asyncio.sleep(min(self.retry_seconds, 0.5))

    def receive(self, kind: str, payload: Any, link: ServiceLink | None = None) -> None:
        """One message from a service (the tests feed recorded ones here too)."""
        link = link or self.links[0]
        if kind == "hello":
            link.board.reset(payload.get("server"))
            link.board.begin_replay()
            database = payload.get("database")
            # the service's file, freshly (the demo rebuilds its own); never the shared store's address, which
            # comes without its password (this desk's own settings name that), nor one of a group's boxes' files
            if database and not self.db_given and not self.group and not is_postgres(database):
                self.open_database(Path(database))
                self._db_dirty = True
            self.set_connected(True, link)
        elif kind == "replay_done":
            link.board.end_replay()
            self.show_live()
            self.show_status()
        elif kind == "event":
            self.apply_event(payload, link)

    def apply_event(self, event: CallEvent, link: ServiceLink | None = None) -> None:
        call_id = (link or self.links[0]).board.apply(event)
        if call_id is None:
            return
        if event.kind == "call_ended":
            self._db_dirty = True
        self.show_live()
        self.show_status()
        if isinstance(self.screen, CallScreen) and self.screen.call_id == call_id:
            self.screen.refresh_call()

    # ------------------------------------------------------------ navigation

    def action_show_tab(self, tab: str) -> None:
        if isinstance(self.screen, CallScreen):
            self.pop_screen()
        self.query_one(TabbedContent).active = tab
        self._focus_tab(tab)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._focus_tab(event.pane.id or "")

    def _focus_tab(self, tab: str) -> None:
        focus = {"live": "#live-table", "attention": "#callbacks-table", "today": "#today-view",
                 "history": "#history-table", "diary": "#diary-table",
                 REVIEW_TAB[0]: "#review-table"}.get(tab)
        if tab == "flow":
            self.query_one(StateMachineView).focus_table()
        elif focus:
            self.query_one(focus).focus()

    def action_reload(self) -> None:
        self.open_database()
        self.refresh_database_views()
        self.notify("Reloaded from the database.", timeout=2)

    def open_call(self, call_id: str) -> None:
        owner = self.link_of_call(call_id)
        live = owner.board.get(call_id) if owner is not None else None
        if live is not None and not live.ended:
            self.push_screen(CallScreen(live, live=True, now=self.clock))
            return
        recorded = load_call(self.db, call_id) if self.db is not None else None
        if recorded is None:
            self.notify(f"Call {call_id} is not in the database.", severity="warning", markup=False)
            return
        self.push_screen(CallScreen(recorded, live=False, review=review_of(self.db, call_id)))

    def on_open_call(self, message: OpenCall) -> None:
        self.open_call(message.call_id)

    def on_history_view_search(self, message: HistoryView.Search) -> None:
        self.run_search(message)

    def on_today_view_change_day(self, message: TodayView.ChangeDay) -> None:
        today = self.today()
        self.day = None if message.step == 0 else (self.day or today) + timedelta(days=message.step)
        if self.db is not None:
            self.query_one(TodayView).show(day_summary(self.db, self.day or today), today=today,
                                           review=review_counts(self.db, self.day or today))

    # ------------------------------------------------------------ staff actions

    def on_live_calls_view_call_action(self, message: LiveCallsView.CallAction) -> None:
        self.ask_call_action(message.action, message.call_id)

    def ask_call_action(self, action: str, call_id: str) -> None:
        owner = self.link_of_call(call_id)
        call = owner.board.get(call_id) if owner is not None else None
        who = call.who if call is not None else call_id
        if self.group and owner is not None:
            who = f"{who} (on {owner.label})"
        question = CALL_QUESTIONS[action].format(who=who)

        def answered(yes: bool | None) -> None:
            if yes:
                self.perform(self.staff.command(action, call_id=call_id))

        self.push_screen(ConfirmPrompt(question), answered)

    def on_attention_view_callback_action(self, message: AttentionView.CallbackAction) -> None:
        callback = message.callback
        who = callback.get("name") or callback.get("phone") or callback["id"]
        if message.action == "mark_callback_done":
            question = f"Mark the callback for {who} done. Note (optional):"
            prompt = TextPrompt(question, placeholder="e.g. called back, booked Thursday")
        else:
            prompt = TextPrompt(f"Note for the callback for {who}:", required=True)

        def answered(note: str | None) -> None:
            if note is None:
                return
            self.perform(self.staff.command(message.action, callback_id=callback["id"], note=note or None))

        self.push_screen(prompt, answered)

    def perform(self, command: StaffCommand) -> None:
        async def run() -> None:
            try:
                result = await self.staff.perform(command)
            except Exception as exc:   # e.g. the database is locked: say so, keep the monitor up
                self.notify(f"Not done: {command.describe()} failed ({type(exc).__name__}: {exc})",
                            severity="error", timeout=10, markup=False)
                return
            self.notify(("Done: " if result.ok else "Not done: ") + result.message,
                        severity="information" if result.ok else "error", timeout=6, markup=False)
            self.refresh_database_views()

        self.run_worker(run(), group="actions")


def run_monitor(**kwargs: Any) -> None:
    MonitorApp(**kwargs).run()
