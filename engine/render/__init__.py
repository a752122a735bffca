"""Rendering: a design tree (plus values) to pages, PDF bytes and PNG.

`layout` places every element on its sheets (tables that grow, text that flows);
`document` draws those sheets into a PDF, and rasterises that PDF for previews
(`render_png`); `form_cache` keeps what a design draws the same for every row as compiled
forms; `options` is the frozen value that picks the drawing paths.
"""
