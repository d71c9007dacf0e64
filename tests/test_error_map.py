"""What the application sees for an authorization error (``staticconsumer._error_map``): the
topic(s) or the group it refers to, wherever the request told us (issue 29). No broker."""

from __future__ import annotations

import aiokafka.errors as Errors
import pytest

from staticconsumer._admin.coordinator import check_code
from staticconsumer._error_map import commit_error, kafka_error, security_error
from staticconsumer.errors import AuthorizationError, GroupAdminAuthorizationError
from staticconsumer.protocol import ErrorCode

WHO = "'app' via SCRAM-SHA-512"


def test_a_topic_authorization_failure_names_the_topics_the_request_named() -> None:
    error = kafka_error(ErrorCode.TOPIC_AUTHORIZATION_FAILED, group_id="g",
                        topics=("orders", "audit", "orders"))  # fmt: skip
    assert isinstance(error, Errors.TopicAuthorizationFailedError)
    assert error.args == ("audit, orders",)
    committed = commit_error(ErrorCode.TOPIC_AUTHORIZATION_FAILED, group_id="g", topics=("t",))
    assert isinstance(committed, Errors.TopicAuthorizationFailedError)
    assert committed.args == ("t",)


def test_a_group_authorization_failure_names_the_group() -> None:
    error = kafka_error(ErrorCode.GROUP_AUTHORIZATION_FAILED, group_id="orders-app",
                        topics=("t",))  # fmt: skip
    assert isinstance(error, Errors.GroupAuthorizationFailedError)
    assert error.args == ("orders-app",)


@pytest.mark.parametrize(
    ("raised", "resource", "words"),
    [
        # Ours (kafka_error above), and aiokafka's own forms: one name, or a set of names.
        (Errors.TopicAuthorizationFailedError("audit, orders"), "audit, orders",
         ("TOPIC_AUTHORIZATION_FAILED", "topic(s) audit, orders")),
        (Errors.TopicAuthorizationFailedError({"orders", "audit"}), "audit, orders",
         ("TOPIC_AUTHORIZATION_FAILED", "topic(s) audit, orders")),
        (Errors.GroupAuthorizationFailedError("orders-app"), "orders-app",
         ("GROUP_AUTHORIZATION_FAILED", "group orders-app")),
    ],
)  # fmt: skip
def test_the_security_error_names_what_it_refers_to(
    raised: Exception, resource: str, words: tuple[str, ...]
) -> None:
    error = security_error(raised, WHO)
    assert isinstance(error, AuthorizationError) and error.resource == resource
    for word in (*words, WHO):
        assert word in str(error), str(error)
    assert "{" not in str(error)


def test_an_authorization_failure_without_a_name_says_so() -> None:
    error = security_error(Errors.TopicAuthorizationFailedError(), WHO)
    assert isinstance(error, AuthorizationError)
    assert "a topic it did not name" in str(error)


def test_an_admin_call_refused_for_a_topic_acl_says_what_the_broker_said() -> None:
    """ConsumerGroupDescribe answers TOPIC_AUTHORIZATION_FAILED when the principal cannot
    describe a topic the group uses; the request named no topic, the broker's message is all
    there is to name it, so it is kept."""
    detail = "The described group uses topics that the client is not authorized to describe."
    with pytest.raises(GroupAdminAuthorizationError) as refused:
        check_code("orders-app", "ConsumerGroupDescribe", ErrorCode.TOPIC_AUTHORIZATION_FAILED,
                   detail)  # fmt: skip
    text = str(refused.value)
    assert "a topic group 'orders-app' uses" in text and detail in text
    assert refused.value.error_name == "TOPIC_AUTHORIZATION_FAILED"
