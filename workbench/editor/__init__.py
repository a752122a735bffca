"""The canvas editor: the same component in the web workbench and inline in Jupyter."""

from .editor import Editor
from .session import DesignSession

__all__ = ["DesignSession", "Editor"]
