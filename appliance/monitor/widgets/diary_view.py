"""Diary: a day's appointments, a column per practitioner and location, a row per 15 minutes.

Staff block and unblock time, cancel, move and book from here. Every change is
a staff command (`App.perform`): through the service when it runs, else
straight to the database, with the store's guards either way.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.widgets import DataTable, Static

from ...events.messages import BLOCK_TIME, BOOK_APPOINTMENT, CANCEL_APPOINTMENT, MOVE_APPOINTMENT, UNBLOCK_TIME
from ...store.backend import DATABASE_ERRORS
from ..database_access import Connection
from ..diary_day import STEP, DiaryColumn, DiaryDay, clinic_store, diary_day
from ..diary_input import NotUnderstood, minute_text, read_range
from ..screens.confirm_prompt import ConfirmPrompt
from ..screens.form_prompt import FormPrompt

BY_PHONE = "☎"
UNHEARD = "?"
BLOCKED = "░"
CLASH = "⚠"
LEGEND = (f"{BY_PHONE} by phone  {UNHEARD} not yet confirmed aloud  {BLOCKED} blocked  "
          f"{CLASH} booked in a block")
TIME_WIDTH = 5
MIN_WIDTH = 12          # a column's text; narrower screens scroll sideways (the time column stays)


def short_name(first_name: str, last_name: str) -> str:
    return f"{first_name[:1]}. {last_name}" if first_name else last_name


def cell_text(diary: DiaryDay, column: DiaryColumn, row: datetime) -> Text:
    """What one column shows in one 15-minute row: words and symbols first, colour only as a help."""
    entry = diary.entry_at(column, row)
    if entry is not None:
        a = entry.appointment
        first_row = a.start >= row or row == diary.rows[0]
        if not first_row:
            second = row - STEP <= a.start < row
            text = Text("│ " + diary.service_names.get(a.service_id, a.service_id) if second else "│",
                        style="dim")
            return text
        marks = (BY_PHONE if entry.by_phone else "") + (UNHEARD if entry.confirmed_aloud is False else "") + (
            CLASH if diary.in_block(entry) else "")
        text = Text()
        if marks:
            text.append(marks + " ", style="bold yellow" if UNHEARD in marks or CLASH in marks else "bold")
        text.append(short_name(entry.first_name, entry.last_name), style="bold")
        return text
    block = diary.block_at(column, row)
    if block is not None:
        starts_here = block.start >= row or row == diary.rows[0]
        label = (block.reason or ("closed" if block.practitioner_id is None else "blocked")) if starts_here else ""
        return Text(f"{BLOCKED}{BLOCKED} {label}".rstrip(), style="italic")
    if not diary.is_open(row):
        return Text("·", style="dim")
    return Text("")


class DiaryView(Vertical):
    BINDINGS = [
        Binding("left_square_bracket", "day(-1)", "Day-"),
        Binding("right_square_bracket", "day(1)", "Day+"),
        Binding("left_curly_bracket", "day(-7)", "Week-"),
        Binding("right_curly_bracket", "day(7)", "Week+"),
        Binding("0", "day(0)", "Today"),
        Binding("n", "book", "Book"),
        Binding("m", "move", "Move"),
        Binding("x", "cancel_appointment", "Cancel"),
        Binding("b", "block", "Block"),
        Binding("u", "unblock", "Unblock"),
        Binding("h", "close_clinic", "Holiday"),
        Binding("escape", "stop_moving", "Stop moving", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.day: date | None = None         # None: today
        self.diary: DiaryDay | None = None
        self.moving = None                   # the DiaryEntry being moved, until it is placed
        self._conn: Connection | None = None
        self._today: date | None = None
        self._drawn_width = -1

    def compose(self) -> ComposeResult:
        yield Static(id="diary-title", classes="section-title")
        yield Static(Text(LEGEND), id="diary-legend", classes="notice")
        yield DataTable(id="diary-table", cursor_type="cell", zebra_stripes=False, header_height=2,
                        fixed_columns=1)

    # ------------------------------------------------------------ drawing

    def show(self, conn: Connection | None, today: date) -> None:
        """Draw the day shown from the database (the app calls this on every refresh)."""
        self._conn, self._today = conn, today
        if conn is None:
            return
        try:
            diary = diary_day(clinic_store(conn), self.day or today)
            if diary == self.diary and self._drawn_width == self.size.width:
                return           # nothing changed: keep the table (and where it is scrolled to) as it is
            self.diary = diary
        except DATABASE_ERRORS as exc:   # a database from before the diary: the service upgrades it
            self.diary = None
            self.query_one("#diary-title", Static).update(
                Text(f"The diary cannot be read yet ({exc}): start the service once to upgrade the database."))
            return
        self._draw()

    def _draw(self) -> None:
        diary, table = self.diary, self.query_one("#diary-table", DataTable)
        if diary is None:
            return
        self._show_title()
        self._drawn_width = self.size.width
        keep = table.cursor_coordinate if table.row_count else None
        table.clear(columns=True)
        width = self._column_width(len(diary.columns))
        table.add_column(Text("time"), width=TIME_WIDTH, key="time")
        for column in diary.columns:
            label = Text(f"{column.practitioner[:width]}\n{column.location[:width]}")
            table.add_column(label, width=width, key=f"{column.practitioner_id}@{column.location_id}")
        for row in diary.rows:
            cells = [cell_text(diary, column, row) for column in diary.columns]
            table.add_row(Text(f"{row:%H:%M}", style="bold" if row.minute == 0 else "dim"), *cells,
                          key=row.isoformat())
        if keep is not None and keep.row < table.row_count and keep.column < len(table.columns):
            table.cursor_coordinate = keep
        elif table.row_count and len(table.columns) > 1:
            table.cursor_coordinate = Coordinate(0, 1)

    def _column_width(self, columns: int) -> int:
        if not columns:
            return MIN_WIDTH
        padding = 2 * self.query_one("#diary-table", DataTable).cell_padding
        available = (self.size.width or 80) - (TIME_WIDTH + padding) - 2     # the vertical scrollbar
        return max(MIN_WIDTH, available // columns - padding)

    def _show_title(self) -> None:
        diary, today = self.diary, self._today
        which = " (today)" if diary.day == today else ""
        line = Text(f"{diary.day:%A %d %B %Y}{which} · {len(diary.entries)} booked")
        if diary.note:
            line.append(f" · {diary.note}")
        if self.moving is not None:
            a = self.moving.appointment
            line = Text(f"Moving {short_name(self.moving.first_name, self.moving.last_name)} "
                        f"({a.start:%a %d %b %H:%M}): pick the new time, Enter or m to place it, Esc to stop",
                        style="bold reverse")
        self.query_one("#diary-title", Static).update(line)

    def on_resize(self) -> None:
        if self.diary is not None:
            self._draw()

    # ------------------------------------------------------------ where the cursor is

    def selected(self) -> tuple[DiaryColumn | None, datetime | None]:
        table, diary = self.query_one("#diary-table", DataTable), self.diary
        if diary is None or not table.row_count:
            return None, None
        row, column = table.cursor_coordinate
        moment = diary.rows[row] if 0 <= row < len(diary.rows) else None
        chosen = diary.columns[column - 1] if 1 <= column <= len(diary.columns) else None
        return chosen, moment

    def _need_column(self) -> tuple[DiaryColumn, datetime] | None:
        column, moment = self.selected()
        if column is None or moment is None:
            self.notify("Move to a practitioner's column first.", severity="warning")
            return None
        return column, moment

    def _perform(self, action: str, details: dict[str, str]) -> None:
        app = self.app
        app.perform(app.staff.command(action, details=details))

    # ------------------------------------------------------------ keys

    def action_day(self, step: int) -> None:
        today = self._today or date.today()
        self.day = None if step == 0 else (self.day or today) + timedelta(days=step)
        self.show(self._conn, today)

    def action_block(self, whole_clinic: bool = False) -> None:
        chosen = self._need_column() if not whole_clinic else (None, self.selected()[1])
        if chosen is None:
            return
        column, moment = chosen
        day = self.diary.day
        if whole_clinic:
            title = f"Close the whole clinic (a public holiday): from and to, dates or times; {day:%a %d %b} shown"
            start, end = day.isoformat(), day.isoformat()
        else:
            title = (f"Block {column.practitioner} (leave, a meeting): from and to, as HH:MM on "
                     f"{day:%a %d %b}, or YYYY-MM-DD [HH:MM]")
            moment = moment or datetime.combine(day, datetime.min.time())
            start, end = f"{moment:%H:%M}", f"{moment + timedelta(hours=1):%H:%M}"
        fields = [("start", "From", start), ("end", "To", end),
                  ("reason", "Reason (shown in the diary)", "public holiday" if whole_clinic else "")]

        def answered(values: dict[str, str] | None) -> None:
            if values is None:
                return
            try:
                begins, ends = read_range(values["start"], values["end"], day)
            except NotUnderstood as exc:
                self.notify(f"Not done: {exc}", severity="error", markup=False)
                return
            details = {"start": minute_text(begins), "end": minute_text(ends), "reason": values["reason"]}
            if column is not None:
                details["practitioner"] = column.practitioner_id
            self._perform(BLOCK_TIME, details)

        self.app.push_screen(FormPrompt(title, fields), answered)

    def action_close_clinic(self) -> None:
        self.action_block(whole_clinic=True)

    def action_unblock(self) -> None:
        column, moment = self.selected()
        block = None
        if moment is not None and self.diary is not None:
            candidates = [b for b in self.diary.blocks if b.start < moment + STEP and moment < b.end
                          and (column is None or b.practitioner_id in (None, column.practitioner_id))]
            block = candidates[0] if candidates else None
        if block is None:
            self.notify("No block here to remove.", severity="warning")
            return
        whose = "the whole clinic" if block.practitioner_id is None else (column.practitioner if column else
                                                                          block.practitioner_id)
        question = (f"Remove the block on {whose}, {block.start:%a %d %b %H:%M} to {block.end:%a %d %b %H:%M}"
                    + (f" ({block.reason})" if block.reason else "") + "?")
        self._confirm(question, UNBLOCK_TIME, {"block_id": block.id})

    def action_cancel_appointment(self) -> None:
        entry = self._entry_here()
        if entry is None:
            return
        a = entry.appointment
        self._confirm(f"Cancel {short_name(entry.first_name, entry.last_name)}'s "
                      f"{self.diary.service_names.get(a.service_id, a.service_id)} at {a.start:%a %d %b %H:%M}?",
                      CANCEL_APPOINTMENT, {"appointment_id": a.id})

    def action_move(self) -> None:
        if self.moving is not None:
            self.place()
            return
        entry = self._entry_here()
        if entry is None:
            return
        self.moving = entry
        self._show_title()

    def action_stop_moving(self) -> None:
        if self.moving is not None:
            self.moving = None
            self._show_title()

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        event.stop()
        if self.moving is not None:
            self.place()

    def place(self) -> None:
        chosen = self._need_column()
        if chosen is None:
            return
        column, moment = chosen
        entry, self.moving = self.moving, None
        self._show_title()
        a = entry.appointment
        question = (f"Move {short_name(entry.first_name, entry.last_name)}'s "
                    f"{self.diary.service_names.get(a.service_id, a.service_id)} from {a.start:%a %d %b %H:%M} to "
                    f"{moment:%a %d %b %H:%M} with {column.practitioner} at {column.location}?")
        self._confirm(question, MOVE_APPOINTMENT, {"appointment_id": a.id, "start": minute_text(moment),
                                                   "practitioner": column.practitioner_id,
                                                   "location": column.location_id})

    def action_book(self) -> None:
        chosen = self._need_column()
        if chosen is None:
            return
        column, moment = chosen
        services = ", ".join(column.services)
        title = f"Book with {column.practitioner} at {column.location}, {moment:%a %d %b %H:%M}"
        fields = [("name", "Patient's first and last name", ""), ("dob", "Date of birth (YYYY-MM-DD)", ""),
                  ("service", f"Service ({services})", column.services[0] if column.services else "")]

        def answered(values: dict[str, str] | None) -> None:
            if values is None:
                return
            self._perform(BOOK_APPOINTMENT, {**values, "practitioner": column.practitioner_id,
                                             "location": column.location_id, "start": minute_text(moment)})

        self.app.push_screen(FormPrompt(title, fields), answered)

    def _entry_here(self):
        column, moment = self.selected()
        entry = self.diary.entry_at(column, moment) if column is not None and moment is not None else None
        if entry is None:
            self.notify("No appointment here: move to one first.", severity="warning")
        return entry

    def _confirm(self, question: str, action: str, details: dict[str, str]) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._perform(action, details)

        self.app.push_screen(ConfirmPrompt(question), answered)
