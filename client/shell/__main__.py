"""``python -m relate.shell``: the same as the ``relate`` command."""
import sys

from .main import main

sys.exit(main())
