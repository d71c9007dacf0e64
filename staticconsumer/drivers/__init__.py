"""Drivers: the asyncio side of group membership.

One :class:`Driver` (``driver.py``) runs the coordination loop for either group protocol. It
*holds* a membership engine (:mod:`staticconsumer.membership`, sans-IO: it decides everything),
a sender for its group protocol and two components; nothing here is a base class:

- ``driver``: the :class:`Driver` (the common actions, the one fatal path, errors for the
  application's next poll, the loop, close) and the :class:`Sender` contract, both typed by
  the sender's actions (``Driver[ClassicSenderAction]``, ``Driver[ConsumerGroupSenderAction]``);
- ``classic``: the JoinGroup/SyncGroup sender and the leader's assignment step (KIP-345 static
  membership, KIP-429 cooperative), and :func:`classic_driver`;
- ``consumer_group``: the KIP-848 sender (ConsumerGroupHeartbeat, topic ids, takeover), and
  :func:`consumer_group_driver`;
- ``streams_group``: the KIP-1071 sender (StreamsGroupHeartbeat, the tasks handed to the
  application, task offsets), and :func:`streams_group_driver`;
- ``offsets``: commits and committed-offset fetches, for both;
- ``handover``: partitions to and from the application (commit on revoke, the listener);
- ``fence_diagnosis``: who holds our instance id, and the session-timeout diagnosis.

Every aiokafka touch goes through :mod:`staticconsumer._compat`. Internal: nothing here is
public API.
"""

from .classic import classic_driver
from .consumer_group import consumer_group_driver
from .driver import AnyDriver, Driver, FatalCallback, Sender
from .streams_group import StreamsGroupSender, TaskOffsetsProvider, streams_group_driver

__all__ = [
    "AnyDriver",
    "Driver",
    "FatalCallback",
    "Sender",
    "StreamsGroupSender",
    "TaskOffsetsProvider",
    "classic_driver",
    "consumer_group_driver",
    "streams_group_driver",
]
