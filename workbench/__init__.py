"""docbench's workbench: the server, the CLI, and the Python API analysts use in notebooks.

import workbench
wb = workbench.connect()          # or workbench.connect("http://127.0.0.1:5006", api_key=…)
design = wb.design("Certificate")
design.generate_many(df, out="certificates/")
"""

from .client.batches import BatchRefused, BatchResult
from .notebook.workspace import Design, Preview, Workbench, connect

__all__ = ["BatchRefused", "BatchResult", "Design", "Preview", "Workbench", "connect"]
