"""`python -m tabletop.cli ...`: the `tabletop` command."""
import sys

from tabletop.cli import main

sys.exit(main())
