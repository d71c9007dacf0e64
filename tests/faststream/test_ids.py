"""The instance-id scheme (``_ids``): a table of subscribers and the ids they get."""

from __future__ import annotations

import pytest

from staticconsumer.errors import ConfigurationError, InvalidInstanceIdError
from staticconsumer.faststream import SubscriberKey, derive_key
from staticconsumer.faststream._ids import MAX_LENGTH, Declared, mapping_line, plan_members


def _d(group: str | None, *topics: str, given: str | None = None, workers: int = 1) -> Declared:
    return Declared(f"{group}/{','.join(topics)}", group, topics, given, workers)


@pytest.mark.parametrize(
    ("declared", "want", "how"),
    [
        (_d("billing", "orders"), "orders-0-billing-orders", "derived"),
        (_d("audit", "b", "a"), "orders-0-audit-a.b", "derived"),  # topics sorted
        (_d("mail", "orders", given=SubscriberKey("mailer")), "orders-0-mailer", "key"),
        (_d("mail", "orders", given="exactly-this"), "exactly-this", "given"),
    ],
)  # fmt: skip
def test_each_subscriber_gets_its_id(declared: Declared, want: str, how: str) -> None:
    (member,) = plan_members("orders-0", [declared])
    assert (member.group_instance_id, member.how) == (want, how)


@pytest.mark.parametrize(
    ("declared", "want", "how"),
    [
        (_d("ship", "orders", workers=3), ["orders-0-ship-orders-1", "orders-0-ship-orders-2",
                                           "orders-0-ship-orders-3"], "derived"),
        (_d("ship", "o", given=SubscriberKey("k"), workers=2), ["orders-0-k-1", "orders-0-k-2"],
         "key"),
        (_d("ship", "o", given="whole", workers=2), ["whole-1", "whole-2"], "given"),
    ],
)  # fmt: skip
def test_each_worker_gets_its_id(declared: Declared, want: list[str], how: str) -> None:
    members = plan_members("orders-0", [declared])
    assert [m.group_instance_id for m in members] == want
    assert [m.worker for m in members] == list(range(1, len(want) + 1))
    assert {m.how for m in members} == {how}


def test_a_worker_id_taken_by_another_subscriber_is_refused_naming_both() -> None:
    with pytest.raises(ConfigurationError, match=r"g/t worker 1/2 and g/t-1 would share"):
        plan_members("svc-0", [_d("g", "t", workers=2), _d("g", "t-1")])


def test_a_long_worker_id_is_cut_with_room_for_its_number() -> None:
    members = plan_members("b" * 200, [_d("g" * 60, "t", workers=12)])
    assert all(len(m.group_instance_id) <= MAX_LENGTH for m in members)
    assert len({m.group_instance_id for m in members}) == 12
    assert members[11].group_instance_id.endswith("-12")


def test_a_group_with_characters_kafka_refuses_gets_a_stable_digest() -> None:
    key = derive_key("team a/billing", ["orders"])
    assert key.startswith("team_a_billing-orders-") and len(key.rsplit("-", 1)[1]) == 8
    assert key == derive_key("team a/billing", ["orders"])  # the same in every process
    assert key != derive_key("team a:billing", ["orders"])  # not only the cleaned-up text


def test_a_long_id_is_cut_to_kafkas_limit_and_stays_unique() -> None:
    base = "b" * 200
    one, two = plan_members(base, [_d("g" * 60, "t1"), _d("g" * 60, "t2")])
    assert len(one.group_instance_id) <= MAX_LENGTH and len(two.group_instance_id) <= MAX_LENGTH
    assert one.group_instance_id != two.group_instance_id


def test_two_subscribers_sharing_an_id_are_refused_naming_both() -> None:
    with pytest.raises(ConfigurationError, match=r"g/a and g/b would share .*SubscriberKey"):
        plan_members("svc-0", [_d("g", "a", given=SubscriberKey("k")),
                               _d("g", "b", given=SubscriberKey("k"))])  # fmt: skip


def test_a_subscriber_without_a_group_has_no_id() -> None:
    assert plan_members("svc-0", [_d(None, "orders-0")]) == ()
    with pytest.raises(ConfigurationError, match="needs group_id"):
        plan_members("svc-0", [_d(None, "orders-0", given="x")])


@pytest.mark.parametrize("bad", ["", "a b", ".", "x" * 250])
def test_an_invalid_base_or_key_is_refused(bad: str) -> None:
    with pytest.raises(InvalidInstanceIdError):
        plan_members(bad, [_d("g", "t")])
    with pytest.raises(InvalidInstanceIdError):
        SubscriberKey(bad)


def test_the_mapping_is_one_line() -> None:
    members = plan_members("svc-0", [_d("g", "a"), _d("g", "b", given=SubscriberKey("k"))])
    line = mapping_line("svc-0", members)
    assert "\n" not in line
    assert line == (
        "static members of base id svc-0: svc-0-g-a <- g/a (derived); svc-0-k <- g/b (key)"
    )


def test_the_public_names_are_sorted_and_resolve() -> None:
    import staticconsumer.faststream as face

    assert face.__all__ == sorted(face.__all__, key=lambda n: (not n.isupper(), n))
    assert all(getattr(face, name) is not None for name in face.__all__)
