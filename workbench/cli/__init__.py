"""`docbench`, the command line, a face: serve, manage workspaces, keys and credits, and
generate PDFs from data (`commands`)."""

from .commands import main

__all__ = ["main"]
