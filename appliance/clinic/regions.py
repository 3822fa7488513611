"""The region table: what differs between countries (config/regions.yaml).

A clinic's region is its explicit `region`, else the entry listing its
timezone, else its phone number's country. A country the table does not list
gets the `default` entry with its own phone numbering. Errors name the file
and the key.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .. import paths
from ..domain import Region
from ..yaml_files import read_yaml


class RegionTableError(ValueError):
    """The region table could not be read or is wrong."""


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    timezones: tuple[str, ...] = ()
    date_order: Literal["DMY", "MDY"] = "DMY"
    phone_region: str | None = None
    currency_symbol: str = "$"
    crisis_number: str | None = None
    billing_terms: tuple[str, ...] = ()
    words: dict[str, str] = Field(default_factory=dict)
    clipped_endings: tuple[str, ...] = ()
    town_centre: dict[Literal["names", "said"], tuple[str, ...]] = Field(default_factory=dict)


class RegionTable:
    def __init__(self, entries: dict[str, _Entry]):
        if "default" not in entries:
            raise RegionTableError("the region table needs a `default` entry")
        self._entries = entries
        self._by_timezone = {tz: code for code, entry in entries.items() for tz in entry.timezones}

    def codes(self) -> list[str]:
        return sorted(code for code in self._entries if code != "default")

    def region(self, code: str) -> Region:
        """The region for an ISO country code (the `default` entry, with that country's numbering, if unlisted)."""
        code = (code or "").upper()
        entry = self._entries.get(code) or self._entries["default"]
        return Region(
            code=code or "ZZ",
            date_order=entry.date_order,
            phone_region=entry.phone_region or code or "ZZ",
            currency_symbol=entry.currency_symbol,
            crisis_number=entry.crisis_number,
            billing_terms=tuple(term.lower() for term in entry.billing_terms),
            words=tuple(sorted((k.lower(), v.lower()) for k, v in entry.words.items())),
            clipped_endings=tuple(e.lower() for e in entry.clipped_endings),
            town_centre_names=tuple(w.lower() for w in entry.town_centre.get("names", ())),
            town_centre_said=tuple(w.lower() for w in entry.town_centre.get("said", ())),
        )

    def code_for(self, *, explicit: str | None, timezone: str | None, phone_country: str | None) -> str:
        if explicit:
            return explicit.upper()
        if timezone and timezone in self._by_timezone:
            return self._by_timezone[timezone]
        return (phone_country or "ZZ").upper()

    def knows(self, code: str) -> bool:
        return code.upper() in self._entries


def read_region_table(path: str | Path) -> RegionTable:
    path = Path(path)
    data = read_yaml(path, what="the region table", error=RegionTableError)
    if not isinstance(data, dict):
        raise RegionTableError(f"{path}: expected a mapping of country codes to entries")
    entries: dict[str, _Entry] = {}
    for code, body in data.items():
        try:
            entries[str(code)] = _Entry.model_validate(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in (code, *first["loc"]))
            raise RegionTableError(f"{path}: {where}: {first['msg']}") from None
    try:
        return RegionTable(entries)
    except RegionTableError as exc:
        raise RegionTableError(f"{path}: {exc}") from None


@lru_cache(maxsize=4)
def _table_at(path: str) -> RegionTable:
    return read_region_table(path)


def region_table() -> RegionTable:
    """The appliance's region table (`paths.regions_path()`), read once."""
    return _table_at(str(paths.regions_path()))


def region_for(code: str) -> Region:
    return region_table().region(code)
