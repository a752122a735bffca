"""`python -m workbench.cli`: the same as the `docbench` command."""

import sys

from .commands import main

sys.exit(main())
