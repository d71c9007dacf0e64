"""Build and read ConsumerGroupDescribe (api key 69, KIP-848): a consumer group's state, group
and assignment epochs, the broker assignor, and each member with its epoch, instance id,
subscription, current assignment and target assignment. Topics come by id and name. v1 adds each
member's type (whether it speaks the consumer or the classic protocol, KIP-1099)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from staticconsumer.protocol._messages import ApiKey, build_request
from staticconsumer.protocol._wire import PinnedRequest, response_object

#: ``member_type`` of a v0 answer, which does not say.
MEMBER_TYPE_UNKNOWN = -1


@dataclass(frozen=True)
class DescribedTopicPartitions:
    topic_id: uuid.UUID
    topic_name: str
    partitions: tuple[int, ...]


@dataclass(frozen=True)
class DescribedConsumerGroupMember:
    member_id: str
    instance_id: str | None
    rack_id: str | None
    member_epoch: int
    client_id: str
    client_host: str
    subscribed_topic_names: tuple[str, ...]
    subscribed_topic_regex: str | None
    assignment: tuple[DescribedTopicPartitions, ...]
    target_assignment: tuple[DescribedTopicPartitions, ...]
    member_type: int = MEMBER_TYPE_UNKNOWN


@dataclass(frozen=True)
class DescribedConsumerGroup:
    error_code: int
    error_message: str | None
    group_id: str
    group_state: str
    group_epoch: int
    assignment_epoch: int
    assignor_name: str
    members: tuple[DescribedConsumerGroupMember, ...]
    authorized_operations: int


def build_consumer_group_describe(
    version: int, group_ids: Sequence[str], *, include_authorized_operations: bool = False
) -> PinnedRequest:
    """A ConsumerGroupDescribe request for ``group_ids``."""
    fields = {
        "group_ids": list(group_ids),
        "include_authorized_operations": include_authorized_operations,
    }
    return build_request(ApiKey.CONSUMER_GROUP_DESCRIBE, version, fields)


def _assignment(raw: Mapping[str, Any]) -> tuple[DescribedTopicPartitions, ...]:
    return tuple(
        DescribedTopicPartitions(t["topic_id"], t["topic_name"], tuple(t["partitions"]))
        for t in raw["topic_partitions"] or ()
    )


def parse_consumer_group_describe(response: Any) -> tuple[DescribedConsumerGroup, ...]:
    """Read a ConsumerGroupDescribe response of an implemented version."""
    obj = response_object(response, ApiKey.CONSUMER_GROUP_DESCRIBE, "ConsumerGroupDescribe")
    return tuple(
        DescribedConsumerGroup(
            error_code=g["error_code"], error_message=g["error_message"],
            group_id=g["group_id"], group_state=g["group_state"], group_epoch=g["group_epoch"],
            assignment_epoch=g["assignment_epoch"], assignor_name=g["assignor_name"],
            members=tuple(
                DescribedConsumerGroupMember(
                    member_id=m["member_id"], instance_id=m["instance_id"],
                    rack_id=m["rack_id"], member_epoch=m["member_epoch"],
                    client_id=m["client_id"], client_host=m["client_host"],
                    subscribed_topic_names=tuple(m["subscribed_topic_names"] or ()),
                    subscribed_topic_regex=m["subscribed_topic_regex"],
                    assignment=_assignment(m["assignment"]),
                    target_assignment=_assignment(m["target_assignment"]),
                    member_type=m.get("member_type", MEMBER_TYPE_UNKNOWN),
                )
                for m in g["members"] or ()
            ),
            authorized_operations=g["authorized_operations"],
        )
        for g in obj["groups"] or ()
    )  # fmt: skip
