"""The seam's own requests (``_compat/requests.py``): one pinned version each, the same bytes on
aiokafka 0.12, 0.13 and 0.14 (golden bytes written from Kafka's message specs, not from aiokafka),
and the response fields the seam reads are where it reads them on each release."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from aiokafka.protocol import admin, fetch, metadata, offset
from aiokafka.protocol.types import Array, Schema

from staticconsumer._compat import requests
from staticconsumer._compat.wire import AiokafkaRequest
from staticconsumer.protocol import PinnedRequest


def _string(value: str) -> bytes:
    return struct.pack(">h", len(value)) + value.encode()


def _shape(kind: Any) -> str:
    if isinstance(kind, Schema):
        fields = zip(kind.names, kind.fields, strict=True)
        return "{" + ",".join(f"{name}:{_shape(field)}" for name, field in fields) + "}"
    if isinstance(kind, Array):
        return "[" + _shape(kind.array_of) + "]"
    return kind.__name__ if isinstance(kind, type) else type(kind).__name__


CASES = {
    "ApiVersions v2": (requests.api_versions_request(), 18, 2, b""),
    "Metadata v5": (requests.metadata_request(["t"]), 3, 5,
                    struct.pack(">i", 1) + _string("t") + b"\x00"),
    "ListOffsets v3": (requests.list_offsets_request("t", 0, -2), 2, 3,
                       struct.pack(">ibi", -1, 0, 1) + _string("t")
                       + struct.pack(">iiq", 1, 0, -2)),
    "Fetch v11": (requests.fetch_request("t", 2, 7, max_bytes=100), 1, 11,
                  struct.pack(">iiiibiii", -1, 0, 1, 100, 0, 0, -1, 1) + _string("t")
                  + struct.pack(">iiiqqi", 1, 2, -1, 7, -1, 100) + struct.pack(">i", 0)
                  + _string("")),
    "CreateTopics v3": (requests.create_topics_request("t", partitions=1, replication_factor=3,
                                                       configs={"a": "b"}, timeout_ms=500), 19, 3,
                        struct.pack(">i", 1) + _string("t") + struct.pack(">ihii", 1, 3, 0, 1)
                        + _string("a") + _string("b") + struct.pack(">ib", 500, 0)),
    "DescribeConfigs v2": (requests.describe_configs_request([(4, "1", ["k"])]), 32, 2,
                           struct.pack(">ib", 1, 4) + _string("1") + struct.pack(">i", 1)
                           + _string("k") + b"\x00"),
    "CreateAcls v1": (requests.create_acls_request((2, "t", 3, "User:a", "*", 3, 3)), 30, 1,
                      struct.pack(">ib", 1, 2) + _string("t") + struct.pack(">b", 3)
                      + _string("User:a") + _string("*") + struct.pack(">bb", 3, 3)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_request_is_one_pinned_version_with_the_same_bytes(name: str) -> None:
    request, api_key, version, body = CASES[name]
    assert isinstance(request, AiokafkaRequest) and isinstance(request.pinned, PinnedRequest)
    assert (request.API_KEY, request.API_VERSION) == (api_key, version)
    assert request.encode() == body
    # what aiokafka 0.12's connection reads off the request itself
    assert request.RESPONSE_TYPE is request.pinned.struct.RESPONSE_TYPE
    assert request.build_request_header(3, "c").encode() == struct.pack(
        ">hhih", api_key, version, 3, 1) + b"c"  # fmt: skip


#: The response fields the seam reads, by position or name, in the response of each version
#: (aiokafka reads ApiVersions v2's answer with its v1 struct: the same fields).
RESPONSES = {
    admin.ApiVersionResponse_v1: "{error_code:Int16,api_versions:[{api_key:Int16,"
    "min_version:Int16,max_version:Int16}],throttle_time_ms:Int32}",
    metadata.MetadataResponse_v5: "{throttle_time_ms:Int32,brokers:[{node_id:Int32,host:String,"
    "port:Int32,rack:String}],cluster_id:String,controller_id:Int32,topics:[{error_code:Int16,"
    "topic:String,is_internal:Boolean,partitions:[{error_code:Int16,partition:Int32,"
    "leader:Int32,replicas:[Int32],isr:[Int32],offline_replicas:[Int32]}]}]}",
    offset.OffsetResponse_v3: "{throttle_time_ms:Int32,topics:[{topic:String,partitions:"
    "[{partition:Int32,error_code:Int16,timestamp:Int64,offset:Int64}]}]}",
    fetch.FetchResponse_v11: "{throttle_time_ms:Int32,error_code:Int16,session_id:Int32,"
    "topics:[{topics:String,partitions:[{partition:Int32,error_code:Int16,highwater_offset:Int64,"
    "last_stable_offset:Int64,log_start_offset:Int64,aborted_transactions:[{producer_id:Int64,"
    "first_offset:Int64}],preferred_read_replica:Int32,message_set:Bytes}]}]}",
    admin.CreateTopicsResponse_v3: "{throttle_time_ms:Int32,topic_errors:[{topic:String,"
    "error_code:Int16,error_message:String}]}",
    admin.CreateAclsResponse_v1: "{throttle_time_ms:Int32,creation_responses:[{error_code:Int16,"
    "error_message:String}]}",
    admin.DescribeConfigsResponse_v2: "{throttle_time_ms:Int32,resources:[{error_code:Int16,"
    "error_message:String,resource_type:Int8,resource_name:String,config_entries:["
    "{config_names:String,config_value:String,read_only:Boolean,config_source:Int8,"
    "is_sensitive:Boolean,config_synonyms:[{config_name:String,config_value:String,"
    "config_source:Int8}]}]}]}",
}


@pytest.mark.parametrize("response", list(RESPONSES), ids=lambda r: r.__name__)
def test_each_response_has_the_fields_the_seam_reads(response: Any) -> None:
    assert _shape(response.SCHEMA) == RESPONSES[response]


def test_each_request_answers_with_its_response_type() -> None:
    answers = {name: request.RESPONSE_TYPE for name, (request, *_) in CASES.items()}
    assert set(answers.values()) == set(RESPONSES)
