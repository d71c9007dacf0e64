"""``python -m staticconsumer.streams_app``: see ``app.py``."""

import sys

from .app import main

sys.exit(main())
