"""Drivers: the asyncio side of group membership, one module per group protocol.

A driver performs what its membership engine (:mod:`staticconsumer.membership`, sans-IO) asks,
over aiokafka's connections (through :mod:`staticconsumer._compat`, the only reader of aiokafka
privates), and feeds the answers back. It holds no policy: when to join, heartbeat, re-join, give
up or fail is the engine's.

- ``classic``: the JoinGroup/SyncGroup member (KIP-345 static membership, KIP-429 cooperative).
- ``consumer_group``: the KIP-848 member (``group_protocol="consumer"``).
- ``offsets``: commits and committed-offset fetches, for both.
- ``fence_diagnosis``: who holds our instance id, and the session-timeout diagnosis.

Internal: nothing here is public API.
"""
