"""``python -m examples.streams_app``: see ``app.py``."""

import sys

from .app import main

sys.exit(main())
