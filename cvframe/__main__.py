"""``python -m cvframe``: the command line of :mod:`cvframe.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
