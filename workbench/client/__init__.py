"""How every face of the workbench reaches the service: one `Client` over two transports
(`api`: in-process or REST), the `connection` that picks one, and what the notebook API and
the CLI both do with it: `rows` of values from DataFrames, `batches` followed to the end
with `progress`, and the `finishing` options of a generation in Python's terms."""
