"""faust workers as static group members (KIP-345): ``docs/faust.md``.

Change one line of a faust app::

    from staticconsumer.faust import StaticApp       # was: import faust; faust.App

    app = StaticApp("orders", broker="kafka://kafka:9092", store="rocksdb://")

Each worker is a :class:`~staticconsumer.StaticConsumer` with a stable ``group.instance.id``
(``StaticApp(instance_id=...)``, faust's ``consumer_group_instance_id``, or
``InstanceId.from_env()``: a StatefulSet pod name); tables keep their actives and standbys by
instance id (:class:`TableAssignor`, faust's own assignment format); a worker fenced by a
duplicate exits with status 1. Needs the ``faust`` extra (``pip install
'staticconsumer[faust]'``); every faust name beyond its documented API is read in ``_seam``
alone.
"""

from __future__ import annotations

from ._app import StaticApp
from ._assignor import TableAssignor

__all__ = ["StaticApp", "TableAssignor"]
