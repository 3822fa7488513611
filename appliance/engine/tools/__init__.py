"""The clinic tools: one module per tool (its arguments, guard, read-back and result), the registry that
names them, and the runner that calls them behind their guards. See base.py."""

from .base import GuardRefusal, Ledger, Tool, ToolEnv, ToolKind
from .registry import CALL_ENDING_TOOLS, READ_BACKS, TOOLS, WRITE_TOOLS
from .runner import ToolRunner, json_safe

__all__ = ["CALL_ENDING_TOOLS", "GuardRefusal", "Ledger", "READ_BACKS", "TOOLS", "Tool", "ToolEnv", "ToolKind",
           "ToolRunner", "WRITE_TOOLS", "json_safe"]
