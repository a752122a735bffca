"""The notebook API, a face: what `import workbench` gives an analyst (`workspace`: designs,
previews, PDFs from data), building designs in code (`authoring`), the editor inline in
Jupyter (`inline`) and Factur-X XML from a row (`einvoice`)."""
