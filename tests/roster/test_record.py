"""The roster value and its record format (pure: no broker)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from staticconsumer import admin
from staticconsumer.admin import GroupDescription
from staticconsumer.errors import ConfigurationError, InvalidInstanceIdError, RosterFormatError
from staticconsumer.roster import ROSTER_FORMAT_VERSION, Roster, RosterStatus

T0 = 1_732_400_000_000


def roster(*ids: str, now: int = T0, wait: int = 60_000) -> Roster:
    return Roster.create("orders", ids, now_ms=now, wait_ms=wait)


def record(**overrides: Any) -> bytes:
    document: dict[str, Any] = {
        "version": 1, "group_id": "orders", "instance_ids": {"orders-4": T0, "orders-5": T0 + 1},
        "updated_at_ms": T0 + 1, "wait_ms": 120_000,
    }  # fmt: skip
    for key, value in overrides.items():
        if value is ...:
            del document[key]
        else:
            document[key] = value
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("ids", "present", "missing"),
    [
        (("a", "b", "c"), ["a", "b", "c"], ()),
        (("a", "b", "c"), ["a"], ("b", "c")),
        (("c", "a", "b"), [], ("a", "b", "c")),
        (("a",), ["a-thread-0", None], ("a",)),  # exact match only; a dynamic member is None
        ((), ["a"], ()),
    ],
)  # fmt: skip
def test_missing_is_registered_ids_not_present_sorted(
    ids: tuple[str, ...], present: list[str | None], missing: tuple[str, ...]
) -> None:
    assert roster(*ids).missing(present) == missing


@pytest.mark.parametrize(
    ("now", "expired"), [(T0, False), (T0 + 59_999, False), (T0 + 60_000, True), (T0 + 10**9, True)]
)
def test_deadline_is_updated_plus_wait(now: int, expired: bool) -> None:
    r = roster("a", wait=60_000)
    assert r.deadline_ms == T0 + 60_000
    assert r.expired(now) is expired


def test_with_added_keeps_old_registration_times_and_restarts_the_wait() -> None:
    r = roster("b", "a").with_added(["c", "a"], now_ms=T0 + 5)
    assert r.registered == (("a", T0), ("b", T0), ("c", T0 + 5))
    assert r.updated_at_ms == T0 + 5
    assert r.instance_ids == ("a", "b", "c")
    assert "c" in r and "z" not in r
    assert r.registered_at_ms("c") == T0 + 5


def test_a_change_that_changes_nothing_returns_the_same_roster() -> None:
    r = roster("a", "b")
    assert r.with_added(["a"], now_ms=T0 + 9) is r
    assert r.without(["zz"], now_ms=T0 + 9) is r
    assert r.replaced(["b", "a"], now_ms=T0 + 9) is r
    assert r.with_added(["a"], now_ms=T0 + 9, wait_ms=1).updated_at_ms == T0 + 9


def test_without_and_replaced() -> None:
    r = roster("a", "b", "c")
    assert r.without(["b"], now_ms=T0 + 1).instance_ids == ("a", "c")
    replaced = r.replaced(["c", "d"], now_ms=T0 + 2, wait_ms=5)
    assert replaced.registered == (("c", T0), ("d", T0 + 2))
    assert (replaced.updated_at_ms, replaced.wait_ms) == (T0 + 2, 5)
    assert r.replaced([], now_ms=T0 + 3).instance_ids == ()


def test_status_reports_registered_missing_and_expiry() -> None:
    status = roster("a", "b").status(["a"], now_ms=T0 + 60_000)
    assert status.to_dict() == {
        "registered": [
            {"group_instance_id": "a", "registered_at_ms": T0},
            {"group_instance_id": "b", "registered_at_ms": T0},
        ],
        "missing": ["b"], "updated_at_ms": T0, "wait_ms": 60_000,
        "deadline_ms": T0 + 60_000, "expired": True,
    }  # fmt: skip


def test_the_status_is_one_class_under_each_public_name() -> None:
    # Defined below roster/ and _admin/ (staticconsumer._roster_status): what Roster.status()
    # returns is what admin.describe_group()'s GroupDescription.roster holds.
    status = roster("a").status([], now_ms=T0)
    assert type(status) is RosterStatus is admin.RosterStatus
    assert GroupDescription("g", "Stable", "consumer", "range", (), roster=status).roster is status


def test_json_round_trip_is_versioned() -> None:
    r = roster("orders-4", "orders-5").with_added(["orders-6"], now_ms=T0 + 7)
    document = json.loads(r.to_json())
    assert document["version"] == ROSTER_FORMAT_VERSION == 1
    assert document["instance_ids"] == {"orders-4": T0, "orders-5": T0, "orders-6": T0 + 7}
    assert Roster.from_json(r.to_json(), group_id="orders") == r


@pytest.mark.parametrize(
    ("ids", "error", "words"),
    [
        ("abc", ConfigurationError, "list of group.instance.id"),
        (["a", "a"], ConfigurationError, "more than once"),
        (["bad id"], InvalidInstanceIdError, "instance_ids"),
        (["."], InvalidInstanceIdError, "'.' or '..'"),
        (["x" * 250], InvalidInstanceIdError, "at most 249"),
        ([7], InvalidInstanceIdError, "must be a str"),
    ],
)  # fmt: skip
def test_instance_ids_are_validated_as_instance_id_validates_them(
    ids: Any, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        Roster.create("orders", ids, now_ms=T0)
    with pytest.raises(error, match=words):
        roster("a").with_added(ids, now_ms=T0)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"group_id": ""}, "group_id"),
        ({"wait_ms": -1}, "wait_ms"),
        ({"wait_ms": True}, "wait_ms"),
        ({"updated_at_ms": 1.5}, "updated_at_ms"),
        ({"registered": (("a", -1),)}, "registered_at_ms of a"),
    ],
)  # fmt: skip
def test_fields_are_validated(kwargs: dict[str, Any], words: str) -> None:
    fields: dict[str, Any] = {"group_id": "g", "registered": (), "updated_at_ms": 0, "wait_ms": 0}
    with pytest.raises(ConfigurationError, match=words):
        Roster(**{**fields, **kwargs})


@pytest.mark.parametrize(
    ("data", "words", "version"),
    [
        (b"not json", "not UTF-8 JSON", None),
        (b"\xff\xfe", "not UTF-8 JSON", None),
        (b"[1]", "JSON object", None),
        (record(version=2), "version 2 is not one", 2),
        (record(version=0), "version 0 is not one", 0),
        (record(version="1"), "'version' must be a int", None),
        (record(version=...), "'version' must be a int", None),
        (record(group_id="other"), "names group 'other'", 1),
        (record(instance_ids=["a"]), "'instance_ids' must be a dict", 1),
        (record(instance_ids={"bad id": T0}), "instance_ids", 1),
        (record(instance_ids={"a": "soon"}), "registered_at_ms of a", 1),
        (record(updated_at_ms=None), "'updated_at_ms'", 1),
        (record(wait_ms=-5), "wait_ms", 1),
    ],
)  # fmt: skip
def test_unreadable_records_raise_a_typed_error(
    data: bytes, words: str, version: int | None
) -> None:
    with pytest.raises(RosterFormatError, match=words) as caught:
        Roster.from_json(data, group_id="orders")
    assert caught.value.version == version


def test_a_good_record_decodes() -> None:
    r = Roster.from_json(record(), group_id="orders")
    assert r.registered == (("orders-4", T0), ("orders-5", T0 + 1))
    assert (r.updated_at_ms, r.wait_ms, r.deadline_ms) == (T0 + 1, 120_000, T0 + 120_001)
