"""A row-cursor table whose last column takes the width that is left, and whose Enter says what it does."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable


class RowTable(DataTable):
    """`columns`: (label, key, width) with one width None: that column fills the rest of the table's width."""

    BINDINGS = [Binding("enter", "select_cursor", "Open")]

    def __init__(self, columns: tuple[tuple[str, str, int | None], ...], *, min_flex: int = 12, **kwargs) -> None:
        kwargs.setdefault("cursor_type", "row")
        kwargs.setdefault("zebra_stripes", True)
        super().__init__(**kwargs)
        self.spec = columns
        self.min_flex = min_flex
        for label, key, width in columns:
            self.add_column(label, key=key, width=width or min_flex)

    @property
    def flex_key(self) -> str | None:
        return next((key for _label, key, width in self.spec if width is None), None)

    def flex_width(self) -> int:
        """Width of the filling column for the table's current size."""
        fixed = sum(width for _label, _key, width in self.spec if width is not None)
        padding = 2 * self.cell_padding * len(self.spec)
        available = (self.size.width or 80) - fixed - padding - 2   # room for the vertical scrollbar
        return max(self.min_flex, available)

    def on_resize(self) -> None:
        key = self.flex_key
        if key is None:
            return
        column = self.columns.get(key)   # type: ignore[call-overload]
        width = self.flex_width()
        if column is not None and column.width != width:
            column.width = width
            self.refresh(layout=True)

    def keys(self) -> list[str]:
        return [row.value for row in self.rows]

    def highlighted_key(self) -> str | None:
        keys = self.keys()
        return keys[self.cursor_row] if keys and 0 <= self.cursor_row < len(keys) else None


def fit(text: str | None, width: int) -> Text:
    """One line of at most `width` characters (an ellipsis marks a cut), never read as markup."""
    text = " ".join((text or "").split()) or "-"
    return Text(text if len(text) <= width else text[: max(0, width - 1)] + "…")


class ReadOnlyTable(RowTable):
    """A RowTable whose rows open nothing (the footer does not offer Enter)."""

    BINDINGS = [Binding("enter", "select_cursor", "Select", show=False)]
