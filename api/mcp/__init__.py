"""The MCP face: every REST operation as a tool for AI agents (decisions.md, "MCP")."""

from .handler import McpHandler
from .sessions import Sessions
from .tools import ToolSet

__all__ = ["McpHandler", "Sessions", "ToolSet"]
