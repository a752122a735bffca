"""docbench's document engine: pure and deterministic, no HTTP, database, clock or network.

from engine import new_design, apply, render_pdf
tree = new_design(size="A4")
tree, results = apply(tree, [{"type": "add_element", "args": {...}}])
pdf = render_pdf(tree, {"name": "Ada"})
"""

from __future__ import annotations

from . import actions, fonts
from .actions import apply, catalog
from .design.tree import SCHEMA_VERSION, DesignTree, new_design
from .design.variables import apply_values, check_values, describe_variables, list_variables
from .elements import ELEMENT_TYPES
from .errors import ActionError, EngineError, LimitExceeded, RenderError, ValueBindingError
from .finishing.attachments import Attachment
from .finishing.einvoice import EInvoice
from .finishing.encryption import Encryption
from .finishing.options import Finishing
from .finishing.watermark import Watermark
from .media import icons
from .media.images import ImageError, Resolver
from .render.document import PageNotFound, Profile, rasterize, render_pdf, render_png, render_sheet_png, sheets_of_png
from .render.options import RenderOptions

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
    "render_sheet_png",
    "sheets_of_png",
]
