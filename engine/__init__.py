"""docbench's document engine: pure and deterministic, no HTTP, database, clock or network.

from engine import new_design, apply, render_pdf
tree = new_design(size="A4")
tree, results = apply(tree, [{"type": "add_element", "args": {...}}])
pdf = render_pdf(tree, {"name": "Ada"})
"""

from __future__ import annotations

from . import actions, fonts, icons
from .actions import apply, catalog
from .attachments import Attachment
from .einvoice import EInvoice
from .elements import ELEMENT_TYPES
from .encryption import Encryption
from .errors import ActionError, EngineError, LimitExceeded, RenderError, ValueBindingError
from .finishing import Finishing
from .images import ImageError, Resolver
from .render import PageNotFound, Profile, rasterize, render_pdf, render_png
from .render_options import RenderOptions
from .tree import SCHEMA_VERSION, DesignTree, new_design
from .variables import apply_values, check_values, describe_variables, list_variables
from .watermark import Watermark

Design = DesignTree

__all__ = [
    "ELEMENT_TYPES",
    "SCHEMA_VERSION",
    "ActionError",
    "Attachment",
    "Design",
    "DesignTree",
    "EInvoice",
    "Encryption",
    "EngineError",
    "Finishing",
    "ImageError",
    "LimitExceeded",
    "PageNotFound",
    "Profile",
    "RenderError",
    "RenderOptions",
    "Resolver",
    "ValueBindingError",
    "Watermark",
    "actions",
    "apply",
    "apply_values",
    "catalog",
    "check_values",
    "describe_variables",
    "list_variables",
    "fonts",
    "icons",
    "new_design",
    "rasterize",
    "render_pdf",
    "render_png",
]
