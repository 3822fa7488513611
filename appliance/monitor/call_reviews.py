"""Calls' summaries and review flags as the monitor reads them: what the store kept with each call, or, for a
call still in progress (or one recorded before summaries were kept), built from its record now."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta

from ..call_review import FLAG_KINDS, ReviewFlag, flags_from_text, read_call, review_flags, summarise
from ..call_review.call_record import catalogue_names
from ..store.backend import DATABASE_ERRORS
from .call_history import CallSummary, calls_where
from .database_access import Connection, rows

REVIEW_DAYS = 7


@dataclass(frozen=True)
class CallReview:
    call_id: str
    summary: str
    flags: tuple[ReviewFlag, ...] = ()

    @property
    def kinds(self) -> list[str]:
        return list(dict.fromkeys(flag.kind for flag in self.flags))


@dataclass(frozen=True)
class ReviewRow:
    """One call on the Review list."""
    call: CallSummary
    review: CallReview


@dataclass
class ReviewCounts:
    calls: int = 0                                         # calls with at least one flag
    by_kind: dict[str, int] = field(default_factory=dict)  # calls per flag kind, in FLAG_KINDS order


def _stored(conn: Connection, where: str, params: list) -> list[dict]:
    try:
        return rows(conn, f"SELECT id, started_at, caller_id, outcome, summary, review_flags FROM calls WHERE {where}",
                    params)
    except DATABASE_ERRORS:     # a database from before summaries were kept: build every one
        return [{**row, "summary": None, "review_flags": None} for row in rows(
            conn, f"SELECT id, started_at, caller_id, outcome FROM calls WHERE {where}", params)]


def _review(conn: Connection, row: dict, names: dict[str, str] | None) -> CallReview:
    if row.get("summary") is not None and row.get("review_flags") is not None:
        return CallReview(row["id"], row["summary"], tuple(flags_from_text(row["review_flags"])))
    call = read_call(conn, row["id"], names=names)
    if call is None:
        return CallReview(row["id"], "")
    return CallReview(row["id"], summarise(call).text(), tuple(review_flags(call)))


def review_of(conn: Connection, call_id: str) -> CallReview | None:
    found = _stored(conn, "id = ?", [call_id])
    return _review(conn, found[0], None) if found else None


def reviews_for(conn: Connection, call_ids: list[str]) -> dict[str, CallReview]:
    if not call_ids:
        return {}
    marks = ", ".join("?" for _ in call_ids)
    names = catalogue_names(conn)
    return {row["id"]: _review(conn, row, names) for row in _stored(conn, f"id IN ({marks})", list(call_ids))}


def calls_to_review(conn: Connection, day: date, *, days: int = REVIEW_DAYS,
                    limit: int = 500) -> list[ReviewRow]:
    """Calls with review flags that started on `day` or the `days` - 1 days before it, newest first."""
    start, end = (day - timedelta(days=days - 1)).isoformat(), (day + timedelta(days=1)).isoformat()
    calls = calls_where(conn, "calls.started_at >= ? AND calls.started_at < ?", [start, end], limit=limit)
    reviews = reviews_for(conn, [call.id for call in calls])
    return [ReviewRow(call, reviews[call.id]) for call in calls if call.id in reviews and reviews[call.id].flags]


def review_counts(conn: Connection, day: date) -> ReviewCounts:
    """How many of `day`'s calls have each kind of flag."""
    counts = ReviewCounts()
    by_kind: Counter[str] = Counter()
    for row in calls_to_review(conn, day, days=1):
        counts.calls += 1
        by_kind.update(row.review.kinds)
    counts.by_kind = {kind: by_kind[kind] for kind in FLAG_KINDS if by_kind[kind]}
    return counts
