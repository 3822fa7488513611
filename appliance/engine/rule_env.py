"""What every rule and tool may read besides the call: the clinic's catalogue, its public facts and region,
and the flow's options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..domain import ANYONE, Catalog, ClinicProfile, Region
from .context import CallContext


@dataclass(frozen=True)
class RuleEnv:
    catalog: Catalog
    profile: ClinicProfile
    options: dict[str, Any]
    region: Region


def possible_locations(ctx: CallContext, catalog: Catalog) -> list[str]:
    """Sites where someone suitable offers the wanted service, in clinic order."""
    ids = []
    for loc in catalog.locations:
        for p in catalog.practitioners:
            if ctx.service_id in p.services and loc.id in p.locations and (
                ctx.practitioner_id in (None, ANYONE) or ctx.practitioner_id == p.id
            ):
                ids.append(loc.id)
                break
    return ids
