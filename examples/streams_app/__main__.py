"""``python -m examples.streams_app``: runs :mod:`staticconsumer.streams_app` (its ``app.py``)."""

import sys

from staticconsumer.streams_app.app import main

sys.exit(main())
