"""What is particular to writing PDF: the one seam to ReportLab's internals
(`reportlab_internals`), marked content and the logical structure (`tagging`), the tagged
profiles' structure tree, XMP and output intent (`structure_tree`), and link annotations
(`links`)."""
