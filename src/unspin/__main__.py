"""``python -m unspin``: the same as the ``unspin`` command."""

import sys

from unspin.cli import main

sys.exit(main())
