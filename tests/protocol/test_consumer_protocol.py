"""ConsumerProtocolSubscription / ConsumerProtocolAssignment against Java's bytes (golden.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from staticconsumer.errors import ProtocolError
from staticconsumer.protocol import (
    ASSIGNMENT_VERSION,
    NO_GENERATION,
    SUBSCRIPTION_VERSION,
    ApiKey,
    Assignment,
    Subscription,
    TopicPartitions,
    decode_assignment,
    decode_subscription,
    encode_assignment,
    encode_subscription,
    group_partitions,
    group_partitions_as_listed,
    parse_sync_group,
    response_class,
)

from . import golden

OWNED = (TopicPartitions("orders", (0, 1)), TopicPartitions("payments", (2,)))
FULL_SUBSCRIPTION = Subscription(
    topics=("orders", "payments"),
    user_data=b"\xca\xfe",
    owned_partitions=OWNED,
    generation_id=3,
    rack_id="rack-a",
)
EMPTY_SUBSCRIPTION = Subscription(topics=("orders", "payments"))
FULL_ASSIGNMENT = Assignment(partitions=OWNED, user_data=b"\xbe\xef")
EMPTY_ASSIGNMENT = Assignment(partitions=())


def full_subscription_as_of(version: int) -> Subscription:
    """What a version-``version`` subscription carries of FULL_SUBSCRIPTION."""
    return Subscription(
        topics=FULL_SUBSCRIPTION.topics,
        user_data=FULL_SUBSCRIPTION.user_data,
        owned_partitions=OWNED if version >= 1 else (),
        generation_id=3 if version >= 2 else NO_GENERATION,
        rack_id="rack-a" if version >= 3 else None,
    )


VERSIONS = range(SUBSCRIPTION_VERSION + 1)


@pytest.mark.parametrize("version", VERSIONS)
def test_subscription_encodes_to_golden(version: int) -> None:
    assert encode_subscription(FULL_SUBSCRIPTION, version) == golden.SUBSCRIPTION[version]
    assert encode_subscription(EMPTY_SUBSCRIPTION, version) == golden.SUBSCRIPTION_EMPTY[version]


@pytest.mark.parametrize("version", VERSIONS)
def test_subscription_decodes_from_golden(version: int) -> None:
    assert decode_subscription(golden.SUBSCRIPTION[version]) == full_subscription_as_of(version)
    assert decode_subscription(golden.SUBSCRIPTION_EMPTY[version]) == EMPTY_SUBSCRIPTION


@pytest.mark.parametrize("version", range(ASSIGNMENT_VERSION + 1))
def test_assignment_golden_both_ways(version: int) -> None:
    assert encode_assignment(FULL_ASSIGNMENT, version) == golden.ASSIGNMENT[version]
    assert encode_assignment(EMPTY_ASSIGNMENT, version) == golden.ASSIGNMENT_EMPTY[version]
    # The version read is kept (issue 41: a member's assignor gets it with its assignment).
    assert decode_assignment(golden.ASSIGNMENT[version]) == replace(
        FULL_ASSIGNMENT, version=version
    )
    assert decode_assignment(golden.ASSIGNMENT_EMPTY[version]) == replace(
        EMPTY_ASSIGNMENT, version=version
    )
    assert (
        encode_assignment(replace(FULL_ASSIGNMENT, version=version)) == golden.ASSIGNMENT[version]
    )


@pytest.mark.parametrize("version", sorted(golden.SYNC_GROUP_RESPONSE_USER_DATA))
def test_a_java_leaders_assignment_with_user_data_reads_from_a_sync_group_answer(
    version: int,
) -> None:
    """What a member gets from SyncGroup when the leader's assignor planned user data for it
    (Java's ConsumerProtocol.serializeAssignment): its partitions, its own user data, v3."""
    data = golden.SYNC_GROUP_RESPONSE_USER_DATA[version]
    answer = parse_sync_group(response_class(ApiKey.SYNC_GROUP, version).decode(data))
    assert answer.error_code == 0
    assert decode_assignment(answer.assignment) == Assignment(
        partitions=OWNED, user_data=b"for svc-1", version=ASSIGNMENT_VERSION
    )


def test_default_versions_are_the_newest() -> None:
    assert encode_subscription(FULL_SUBSCRIPTION) == golden.SUBSCRIPTION[3]
    assert encode_assignment(FULL_ASSIGNMENT) == golden.ASSIGNMENT[3]


def test_newer_version_is_read_as_the_newest_known_and_trailing_bytes_ignored() -> None:
    # A hypothetical v4 appends fields after the v3 ones.
    future = b"\x00\x04" + golden.SUBSCRIPTION[3][2:] + b"\x00\x00\x00\x2a new field"
    assert decode_subscription(future) == FULL_SUBSCRIPTION
    future_assignment = b"\x00\x07" + golden.ASSIGNMENT[3][2:] + b"\xff\xff"
    assert decode_assignment(future_assignment) == replace(FULL_ASSIGNMENT, version=7)


def test_negative_version_is_refused() -> None:
    with pytest.raises(ProtocolError, match="unsupported ConsumerProtocolSubscription version -1"):
        decode_subscription(b"\xff\xff" + golden.SUBSCRIPTION[0][2:])
    with pytest.raises(ProtocolError, match="unsupported ConsumerProtocolAssignment version"):
        decode_assignment(b"\x80\x00" + golden.ASSIGNMENT[0][2:])


@pytest.mark.parametrize("cut", [0, 1, 3, 7, 12])
def test_truncated_bytes_raise_protocol_error(cut: int) -> None:
    with pytest.raises(ProtocolError, match="malformed ConsumerProtocolSubscription"):
        decode_subscription(golden.SUBSCRIPTION[3][:cut])
    with pytest.raises(ProtocolError, match="malformed ConsumerProtocolAssignment"):
        decode_assignment(golden.ASSIGNMENT[3][:cut])


def test_null_topics_raise_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="topics array is null"):
        decode_subscription(b"\x00\x00" + b"\xff\xff\xff\xff" + b"\xff\xff\xff\xff")


def test_encoding_refuses_unknown_versions() -> None:
    with pytest.raises(ValueError, match="version must be 0-3, got 4"):
        encode_subscription(FULL_SUBSCRIPTION, 4)
    with pytest.raises(ValueError, match="version must be 0-3, got -1"):
        encode_assignment(FULL_ASSIGNMENT, -1)


def test_grouping_as_listed_keeps_the_plans_order_and_drops_repeats() -> None:
    pairs = [("u", 3), ("t", 2), ("u", 0), ("t", 2), ("u", 1)]
    assert group_partitions_as_listed(pairs) == (
        TopicPartitions("u", (3, 0, 1)),
        TopicPartitions("t", (2,)),
    )
    listed = Assignment(partitions=group_partitions_as_listed(pairs))
    assert decode_assignment(encode_assignment(listed)).topic_partitions == (
        ("u", 3), ("u", 0), ("u", 1), ("t", 2),
    )  # fmt: skip


def test_flat_views_and_grouping() -> None:
    pairs = (("orders", 0), ("orders", 1), ("payments", 2))
    assert FULL_SUBSCRIPTION.owned == pairs
    assert FULL_ASSIGNMENT.topic_partitions == pairs
    assert group_partitions([("payments", 2), ("orders", 1), ("orders", 0), ("orders", 1)]) == OWNED


topics = st.text(alphabet="abcxyz._-0123456789", min_size=1, max_size=12)
partitions = st.tuples(topics, st.lists(st.integers(0, 2**31 - 1), max_size=4).map(tuple)).map(
    lambda tp: TopicPartitions(*tp)
)
subscriptions = st.builds(
    Subscription,
    topics=st.lists(topics, max_size=4).map(tuple),
    user_data=st.none() | st.binary(max_size=16),
    owned_partitions=st.lists(partitions, max_size=3).map(tuple),
    generation_id=st.integers(-1, 2**31 - 1),
    rack_id=st.none() | st.text(max_size=8),
)
assignments = st.builds(
    Assignment,
    partitions=st.lists(partitions, max_size=3).map(tuple),
    user_data=st.none() | st.binary(max_size=16),
    version=st.integers(0, ASSIGNMENT_VERSION),
)


@given(subscriptions)
def test_subscription_round_trips(subscription: Subscription) -> None:
    assert decode_subscription(encode_subscription(subscription)) == subscription


@given(assignments, st.integers(0, ASSIGNMENT_VERSION))
def test_assignment_round_trips(assignment: Assignment, version: int) -> None:
    assert decode_assignment(encode_assignment(assignment, version)) == replace(
        assignment, version=version
    )
    assert decode_assignment(encode_assignment(assignment)) == assignment
