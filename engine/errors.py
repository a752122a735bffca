"""Errors the engine raises. Each carries a stable code so the service can map it to HTTP."""

from __future__ import annotations


class EngineError(Exception):
    """Base class: a problem with a design or its inputs, never a bug in the engine."""

    code = "VALIDATION_ERROR"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ActionError(EngineError):
    """One action of a batch failed; the batch as a whole is void (spec 4.3)."""

    def __init__(self, index: int, action_type: str, reason: str):
        super().__init__(f"actions[{index}] ({action_type}) failed: {reason}")
        self.index = index
        self.action_type = action_type
        self.reason = reason


class ValueBindingError(EngineError):
    """A generation value is for an unknown variable or has the wrong type for it."""

    def __init__(self, variable: str, reason: str):
        super().__init__(f"variable '{variable}': {reason}")
        self.variable = variable


class RenderError(EngineError):
    """The design could not be drawn (an image ref that cannot be resolved, say)."""


class LimitExceeded(EngineError):
    """The document would be larger than the caller allows (pages, bytes): refused, not drawn."""
