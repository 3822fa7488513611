"""Each practitioner's diary as an iCalendar feed, written under the data folder on every change."""

from .feeds import CalendarFeeds, calendar_folder, practitioner_calendar, write_feeds

__all__ = ["CalendarFeeds", "calendar_folder", "practitioner_calendar", "write_feeds"]
