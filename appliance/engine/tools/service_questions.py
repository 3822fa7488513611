"""GetServicesAndPricing and GetAppointmentTypes: what the clinic offers, for a caller's question about it."""

from __future__ import annotations

from ..context import CallContext
from ..rule_env import RuleEnv
from .base import Tool, ToolEnv, ToolKind


class _ServiceQuestion(Tool):
    kind = ToolKind.READ

    def arguments(self, ctx: CallContext, env: RuleEnv) -> dict:
        return {"service_ids": list(ctx.question_service_ids)}

    @staticmethod
    def _services(env: ToolEnv, service_ids: list[str] | None):
        return [s for s in env.store.catalog().services if not service_ids or s.id in service_ids]


class GetServicesAndPricing(_ServiceQuestion):
    name = "GetServicesAndPricing"

    def call(self, env: ToolEnv, *, service_ids: list[str] | None = None) -> dict:
        return {"services": [{"id": s.id, "name": s.name, "minutes": s.minutes, "price": s.price}
                             for s in self._services(env, service_ids)]}


class GetAppointmentTypes(_ServiceQuestion):
    name = "GetAppointmentTypes"

    def call(self, env: ToolEnv, *, service_ids: list[str] | None = None) -> dict:
        return {"types": [{"id": s.id, "name": s.name, "minutes": s.minutes, "description": s.description}
                          for s in self._services(env, service_ids)]}
