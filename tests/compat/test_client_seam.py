"""The aiokafka seam over aiokafka's real subscription state (no broker): what a revocation
stops handing out, and what a new assignment keeps of the partitions that stay."""

from __future__ import annotations

import asyncio

from aiokafka.consumer.subscription_state import SubscriptionState
from aiokafka.structs import OffsetAndMetadata, TopicPartition

from staticconsumer._compat import ClientSeam

T = "t"


def seam_holding(*partitions: int) -> tuple[ClientSeam, SubscriptionState]:
    subscription = SubscriptionState()
    subscription.subscribe({T})
    seam = ClientSeam(client=None, subscription=subscription)
    assignment = seam.assign((T, p) for p in partitions)
    for p in partitions:
        assignment.state_value(TopicPartition(T, p)).seek(10 * p + 5)
    return seam, subscription


async def test_pending_revocation_stops_handing_out_but_keeps_the_position_to_commit() -> None:
    seam, _ = seam_holding(0, 1)
    seam.mark_pending_revocation([(T, 0)])
    assignment = seam.assignment()
    assert assignment.state_value(TopicPartition(T, 0)).paused, "the fetcher drops its records"
    assert not assignment.state_value(TopicPartition(T, 1)).paused, "what stays keeps going"
    assert seam.consumed_offsets([(T, 0)]) == {TopicPartition(T, 0): OffsetAndMetadata(5, "")}


async def test_a_partition_revoked_and_assigned_again_is_not_left_paused() -> None:
    seam, _ = seam_holding(0, 1)
    seam.mark_pending_revocation([(T, 0)])
    assignment = seam.assign([(T, 0), (T, 1)])  # KIP-848: revoked, then back in the target
    assert not assignment.state_value(TopicPartition(T, 0)).paused
    assert assignment.state_value(TopicPartition(T, 0)).position == 5


async def test_a_kept_partition_keeps_its_position_and_the_applications_pause() -> None:
    seam, subscription = seam_holding(0, 1, 2)
    subscription.pause(TopicPartition(T, 1))  # consumer.pause()
    seam.mark_pending_revocation([(T, 0)])
    assignment = seam.assign([(T, 1), (T, 2), (T, 3)])
    assert {tp.partition for tp in subscription.paused_partitions()} == {1}, (
        "Java's cooperative rebalance keeps a retained partition's pause"
    )
    assert assignment.state_value(TopicPartition(T, 2)).position == 25
    assert not assignment.state_value(TopicPartition(T, 3)).has_valid_position


async def test_the_poll_timer_starts_when_the_application_can_first_poll() -> None:
    """Issue 29: aiokafka's fetcher idle time counts from the consumer's construction, so the
    time spent in ``start()`` (a KIP-848 static member waiting up to the session timeout for
    UNRELEASED_INSTANCE_ID, a classic join, the roster barrier) counted as "no poll", and a
    member handed its partitions at the end of ``start()`` lost them at once. As Java's, the
    timer starts when the application can first poll: when ``start()`` returns."""
    subscription = SubscriptionState()
    subscription.subscribe({T})
    seam = ClientSeam(client=None, subscription=subscription)
    subscription._last_fetch_ended -= 60  # constructed a minute ago, start() still running
    assert subscription.fetcher_idle_time >= 60
    assert seam.idle_seconds() == 0.0, "the application cannot poll yet"
    seam.start_poll_timer()  # start() returns
    assert seam.idle_seconds() < 1.0
    with subscription.fetch_context():  # the application waits in getmany()
        assert seam.idle_seconds() == 0.0
    assert seam.idle_seconds() < 1.0


async def test_the_fetchers_requests_for_committed_offsets_are_answered_until_it_ends() -> None:
    """``serve_committed_offsets`` over aiokafka's real assignment: a request of the fetcher is
    answered with what ``fetch`` found, "no committed offset" for what it did not; an error
    (None) asks again; the loop ends with the assignment."""
    seam, subscription = seam_holding(0, 1)
    assignment = seam.assignment()
    tp0, tp1 = TopicPartition(T, 0), TopicPartition(T, 1)
    asked: list[list[TopicPartition]] = []
    answers: list[dict[TopicPartition, OffsetAndMetadata] | None] = [
        None,
        {tp0: OffsetAndMetadata(7, "m")},
    ]

    async def fetch(wanted: list[TopicPartition]) -> dict[TopicPartition, OffsetAndMetadata] | None:
        asked.append(sorted(wanted))
        return answers.pop(0)

    waiting = [assignment.state_value(tp).fetch_committed() for tp in (tp0, tp1)]
    serving = asyncio.create_task(seam.serve_committed_offsets(assignment, fetch, lambda: False))
    got = await asyncio.wait_for(asyncio.gather(*waiting), 5)
    assert got == [OffsetAndMetadata(7, "m"), OffsetAndMetadata(-1, "")]
    assert asked == [[tp0, tp1], [tp0, tp1]], "asked again after the error"
    subscription.unsubscribe()  # the assignment ends
    await asyncio.wait_for(serving, 5)
