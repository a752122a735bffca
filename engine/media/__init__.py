"""Pictures an element draws: raster images (`images`, `image_bytes`), SVG rasterised under
bounds (`svg`, `svg_work`), and the bundled outline icons (`icons`), drawn as vectors."""
