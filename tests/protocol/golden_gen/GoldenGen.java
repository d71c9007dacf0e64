// Generates tests/protocol/golden.py: wire bytes produced by Apache Kafka's own generated message
// classes (kafka-clients), so that our codecs are checked against an independent implementation.
// Run with tests/protocol/golden_gen/run.sh; the tests themselves never need Java.

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;

public final class GoldenGen {
    private static final StringBuilder OUT = new StringBuilder();

    private static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) {
            sb.append(String.format("%02x", b));
        }
        return sb.toString();
    }

    private static byte[] body(Message message, int version) {
        ByteBuffer buffer = MessageUtil.toByteBufferAccessor(message, (short) version).buffer();
        return MessageUtil.byteBufferToArray(buffer);
    }

    private static void table(String name, Map<Integer, byte[]> byVersion) {
        OUT.append(name).append(" = {\n");
        for (Map.Entry<Integer, byte[]> e : byVersion.entrySet()) {
            OUT.append("    ").append(e.getKey()).append(": bytes.fromhex(\n");
            String h = hex(e.getValue());
            for (int i = 0; i < h.length(); i += 80) {
                OUT.append("        \"").append(h, i, Math.min(h.length(), i + 80)).append("\"\n");
            }
            if (h.isEmpty()) {
                OUT.append("        \"\"\n");
            }
            OUT.append("    ),\n");
        }
        OUT.append("}\n\n");
    }

    private static byte[] b(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    // Below v5 (KIP-345) only a member without an instance id is sent: the dynamic table has
    // v3-v4 (Kafka 2.1/2.2's newest) too.
    private static Map<Integer, byte[]> joinGroupRequest(boolean dynamic) {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = dynamic ? 3 : 5; v <= 9; v++) {
            JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
            protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                .setName("range").setMetadata(b(1, 2, 3)));
            protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                .setName("roundrobin").setMetadata(new byte[0]));
            JoinGroupRequestData data = new JoinGroupRequestData()
                .setGroupId("grp")
                .setSessionTimeoutMs(45000)
                .setRebalanceTimeoutMs(300000)
                .setMemberId(dynamic ? "" : "inst-a-1234")
                .setGroupInstanceId(dynamic ? null : "inst-a")
                .setProtocolType("consumer")
                .setProtocols(protocols);
            if (v >= 8 && !dynamic) {
                data.setReason("rebalance enforced by user");
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> joinGroupResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 3; v <= 9; v++) {
            List<JoinGroupResponseData.JoinGroupResponseMember> members = new ArrayList<>();
            members.add(new JoinGroupResponseData.JoinGroupResponseMember()
                .setMemberId("inst-a-1234").setGroupInstanceId(v >= 5 ? "inst-a" : null)
                .setMetadata(b(0, 1)));
            members.add(new JoinGroupResponseData.JoinGroupResponseMember()
                .setMemberId("dyn-5678").setGroupInstanceId(null).setMetadata(new byte[0]));
            JoinGroupResponseData data = new JoinGroupResponseData()
                .setThrottleTimeMs(7)
                .setErrorCode((short) 0)
                .setGenerationId(3)
                .setProtocolName("range")
                .setLeader("inst-a-1234")
                .setMemberId("inst-a-1234")
                .setMembers(members);
            if (v >= 7) {
                data.setProtocolType("consumer");
            }
            if (v >= 9) {
                data.setSkipAssignment(true);
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> syncGroupRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 2; v <= 5; v++) {
            SyncGroupRequestData data = new SyncGroupRequestData()
                .setGroupId("grp")
                .setGenerationId(3)
                .setMemberId("inst-a-1234")
                .setGroupInstanceId(v >= 3 ? "inst-a" : null)
                .setAssignments(List.of(
                    new SyncGroupRequestData.SyncGroupRequestAssignment()
                        .setMemberId("inst-a-1234").setAssignment(b(0, 3, 9)),
                    new SyncGroupRequestData.SyncGroupRequestAssignment()
                        .setMemberId("dyn-5678").setAssignment(new byte[0])));
            if (v >= 5) {
                data.setProtocolType("consumer").setProtocolName("range");
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> syncGroupResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 2; v <= 5; v++) {
            SyncGroupResponseData data = new SyncGroupResponseData()
                .setThrottleTimeMs(7)
                .setErrorCode((short) 82)
                .setAssignment(b(10, 11));
            if (v >= 5) {
                data.setProtocolType("consumer").setProtocolName("range");
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    // A member's SyncGroup answer carrying what a Java leader sends it: its assignment as
    // ConsumerProtocol.serializeAssignment writes it (the newest version), with the user data
    // the leader's assignor planned for this one member.
    private static Map<Integer, byte[]> syncGroupResponseWithUserData() {
        ByteBuffer planned = ConsumerProtocol.serializeAssignment(
            new ConsumerPartitionAssignor.Assignment(
                List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1),
                        new TopicPartition("payments", 2)),
                ByteBuffer.wrap("for svc-1".getBytes(StandardCharsets.UTF_8))));
        byte[] assignment = MessageUtil.byteBufferToArray(planned);
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 3; v <= 5; v++) {
            SyncGroupResponseData data = new SyncGroupResponseData()
                .setThrottleTimeMs(0)
                .setErrorCode((short) 0)
                .setAssignment(assignment);
            if (v >= 5) {
                data.setProtocolType("consumer").setProtocolName("tables");
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> heartbeatRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 2; v <= 4; v++) {
            out.put(v, body(new HeartbeatRequestData()
                .setGroupId("grp")
                .setGenerationId(3)
                .setMemberId("inst-a-1234")
                .setGroupInstanceId(v >= 3 ? "inst-a" : null), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> heartbeatResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 2; v <= 4; v++) {
            out.put(v, body(new HeartbeatResponseData()
                .setThrottleTimeMs(7).setErrorCode((short) 27), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> leaveGroupRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        out.put(2, body(new LeaveGroupRequestData().setGroupId("grp").setMemberId("dyn-5678"), 2));
        for (int v = 3; v <= 5; v++) {
            LeaveGroupRequestData.MemberIdentity a = new LeaveGroupRequestData.MemberIdentity()
                .setMemberId("inst-a-1234").setGroupInstanceId("inst-a");
            LeaveGroupRequestData.MemberIdentity c = new LeaveGroupRequestData.MemberIdentity()
                .setMemberId("").setGroupInstanceId("inst-b");
            if (v >= 5) {
                a.setReason("the consumer is being closed");
            }
            out.put(v, body(new LeaveGroupRequestData()
                .setGroupId("grp").setMembers(List.of(a, c)), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> leaveGroupResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        out.put(2, body(new LeaveGroupResponseData()
            .setThrottleTimeMs(7).setErrorCode((short) 25), 2));
        for (int v = 3; v <= 5; v++) {
            out.put(v, body(new LeaveGroupResponseData()
                .setThrottleTimeMs(7)
                .setErrorCode((short) 0)
                .setMembers(List.of(
                    new LeaveGroupResponseData.MemberResponse()
                        .setMemberId("inst-a-1234").setGroupInstanceId("inst-a")
                        .setErrorCode((short) 0),
                    new LeaveGroupResponseData.MemberResponse()
                        .setMemberId("").setGroupInstanceId("inst-b")
                        .setErrorCode((short) 25))), v));
        }
        return out;
    }

    private static OffsetCommitRequestData offsetCommitData(int v) {
        return new OffsetCommitRequestData()
            .setGroupId("grp")
            .setGenerationIdOrMemberEpoch(3)
            .setMemberId("inst-a-1234")
            .setGroupInstanceId(v >= 7 ? "inst-a" : null)
            .setTopics(List.of(
                new OffsetCommitRequestData.OffsetCommitRequestTopic()
                    .setName("orders")
                    .setPartitions(List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(0).setCommittedOffset(100)
                            .setCommittedLeaderEpoch(5).setCommittedMetadata("m"),
                        new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(1).setCommittedOffset(200)
                            .setCommittedLeaderEpoch(-1).setCommittedMetadata(null))),
                new OffsetCommitRequestData.OffsetCommitRequestTopic()
                    .setName("payments")
                    .setPartitions(List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestPartition()
                            .setPartitionIndex(2).setCommittedOffset(1L << 40)
                            .setCommittedLeaderEpoch(-1).setCommittedMetadata("")))));
    }

    private static Map<Integer, byte[]> offsetCommitRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 6; v <= 9; v++) {
            out.put(v, body(offsetCommitData(v), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> offsetCommitResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 6; v <= 9; v++) {
            out.put(v, body(new OffsetCommitResponseData()
                .setThrottleTimeMs(7)
                .setTopics(List.of(
                    new OffsetCommitResponseData.OffsetCommitResponseTopic()
                        .setName("orders")
                        .setPartitions(List.of(
                            new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(0).setErrorCode((short) 0),
                            new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(1).setErrorCode((short) 22))),
                    new OffsetCommitResponseData.OffsetCommitResponseTopic()
                        .setName("payments")
                        .setPartitions(List.of(
                            new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(2).setErrorCode((short) 82))))), v));
        }
        return out;
    }

    // OffsetFetch: v5-v7 name one group at the top, v8+ batch groups (KIP-709), v9 adds the
    // member id and epoch (KIP-848). Values: group "grp", topics orders[0,1] and payments[2].
    private static Map<Integer, byte[]> offsetFetchRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 5; v <= 9; v++) {
            if (v < 8) {
                OffsetFetchRequestData data = new OffsetFetchRequestData()
                    .setGroupId("grp")
                    .setTopics(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestTopic()
                            .setName("orders").setPartitionIndexes(List.of(0, 1)),
                        new OffsetFetchRequestData.OffsetFetchRequestTopic()
                            .setName("payments").setPartitionIndexes(List.of(2))));
                if (v >= 7) {
                    data.setRequireStable(true);
                }
                out.put(v, body(data, v));
                continue;
            }
            OffsetFetchRequestData.OffsetFetchRequestGroup group =
                new OffsetFetchRequestData.OffsetFetchRequestGroup()
                    .setGroupId("grp")
                    .setTopics(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestTopics()
                            .setName("orders").setPartitionIndexes(List.of(0, 1)),
                        new OffsetFetchRequestData.OffsetFetchRequestTopics()
                            .setName("payments").setPartitionIndexes(List.of(2))));
            if (v >= 9) {
                group.setMemberId("inst-a-1234").setMemberEpoch(7);
            }
            out.put(v, body(new OffsetFetchRequestData()
                .setGroups(List.of(group)).setRequireStable(true), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> offsetFetchResponse(boolean groupError) {
        Map<Integer, byte[]> out = new TreeMap<>();
        short topError = groupError ? (short) 14 : (short) 0;
        for (int v = 5; v <= 9; v++) {
            if (v < 8) {
                List<OffsetFetchResponseData.OffsetFetchResponseTopic> topics = groupError
                    ? List.of()
                    : List.of(
                        new OffsetFetchResponseData.OffsetFetchResponseTopic()
                            .setName("orders")
                            .setPartitions(List.of(
                                new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                    .setPartitionIndex(0).setCommittedOffset(100)
                                    .setCommittedLeaderEpoch(5).setMetadata("m")
                                    .setErrorCode((short) 0),
                                new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                    .setPartitionIndex(1).setCommittedOffset(-1)
                                    .setCommittedLeaderEpoch(-1).setMetadata(null)
                                    .setErrorCode((short) 0))),
                        new OffsetFetchResponseData.OffsetFetchResponseTopic()
                            .setName("payments")
                            .setPartitions(List.of(
                                new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                    .setPartitionIndex(2).setCommittedOffset(-1)
                                    .setCommittedLeaderEpoch(-1).setMetadata("")
                                    .setErrorCode((short) 88))));
                out.put(v, body(new OffsetFetchResponseData()
                    .setThrottleTimeMs(7).setErrorCode(topError).setTopics(topics), v));
                continue;
            }
            List<OffsetFetchResponseData.OffsetFetchResponseTopics> topics = groupError
                ? List.of()
                : List.of(
                    new OffsetFetchResponseData.OffsetFetchResponseTopics()
                        .setName("orders")
                        .setPartitions(List.of(
                            new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                .setPartitionIndex(0).setCommittedOffset(100)
                                .setCommittedLeaderEpoch(5).setMetadata("m")
                                .setErrorCode((short) 0),
                            new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                .setPartitionIndex(1).setCommittedOffset(-1)
                                .setCommittedLeaderEpoch(-1).setMetadata(null)
                                .setErrorCode((short) 0))),
                    new OffsetFetchResponseData.OffsetFetchResponseTopics()
                        .setName("payments")
                        .setPartitions(List.of(
                            new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                                .setPartitionIndex(2).setCommittedOffset(-1)
                                .setCommittedLeaderEpoch(-1).setMetadata("")
                                .setErrorCode((short) 88))));
            out.put(v, body(new OffsetFetchResponseData()
                .setThrottleTimeMs(7)
                .setGroups(List.of(new OffsetFetchResponseData.OffsetFetchResponseGroup()
                    .setGroupId("grp").setErrorCode(topError).setTopics(topics))), v));
        }
        return out;
    }

    // ConsumerGroupHeartbeat (KIP-848): a static member joining with everything set (v1 adds the
    // regex), a plain heartbeat with only the epoch, and answers with and without an assignment.
    private static final Uuid TOPIC_A = new Uuid(0x0102030405060708L, 0x090a0b0c0d0e0f10L);
    private static final Uuid TOPIC_B = new Uuid(0L, 5L);

    private static Map<Integer, byte[]> consumerGroupHeartbeatRequest(boolean full) {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            ConsumerGroupHeartbeatRequestData data = new ConsumerGroupHeartbeatRequestData()
                .setGroupId("grp").setMemberId("m-uuid-1").setMemberEpoch(full ? 0 : 7);
            if (full) {
                data.setInstanceId("inst-a").setRackId("rack-1").setRebalanceTimeoutMs(300000)
                    .setSubscribedTopicNames(List.of("orders", "payments"))
                    .setServerAssignor("uniform")
                    .setTopicPartitions(List.of(
                        new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                            .setTopicId(TOPIC_B).setPartitions(List.of(0, 2)),
                        new ConsumerGroupHeartbeatRequestData.TopicPartitions()
                            .setTopicId(TOPIC_A).setPartitions(List.of(1))));
                if (v >= 1) {
                    data.setSubscribedTopicRegex("ord.*");
                }
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> consumerGroupHeartbeatResponse(boolean assigned) {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            ConsumerGroupHeartbeatResponseData data = new ConsumerGroupHeartbeatResponseData()
                .setThrottleTimeMs(7).setErrorCode((short) 0).setMemberId("m-uuid-1")
                .setMemberEpoch(8).setHeartbeatIntervalMs(5000);
            if (assigned) {
                data.setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment()
                    .setTopicPartitions(List.of(
                        new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                            .setTopicId(TOPIC_B).setPartitions(List.of(0, 2)),
                        new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                            .setTopicId(TOPIC_A).setPartitions(List.of(1)))));
            } else {
                data.setErrorCode((short) 111).setErrorMessage("unreleased");
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    // ConsumerGroupDescribe (KIP-848): two groups asked for; the answer describes one static
    // member with an assignment and a different target assignment, and one unknown group.
    private static Map<Integer, byte[]> consumerGroupDescribeRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            out.put(v, body(new ConsumerGroupDescribeRequestData()
                .setGroupIds(List.of("grp", "other")).setIncludeAuthorizedOperations(true), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> consumerGroupDescribeResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            ConsumerGroupDescribeResponseData.Member member = new ConsumerGroupDescribeResponseData.Member()
                .setMemberId("m-uuid-1").setInstanceId("inst-a").setRackId(null).setMemberEpoch(8)
                .setClientId("cid").setClientHost("/127.0.0.1")
                .setSubscribedTopicNames(List.of("orders")).setSubscribedTopicRegex(null)
                .setAssignment(new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(List.of(
                    new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(TOPIC_A).setTopicName("orders").setPartitions(List.of(0, 1)))))
                .setTargetAssignment(new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(List.of(
                    new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(TOPIC_A).setTopicName("orders").setPartitions(List.of(1)))));
            if (v >= 1) {
                member.setMemberType((byte) 1);
            }
            out.put(v, body(new ConsumerGroupDescribeResponseData().setThrottleTimeMs(7)
                .setGroups(List.of(
                    new ConsumerGroupDescribeResponseData.DescribedGroup()
                        .setErrorCode((short) 0).setGroupId("grp").setGroupState("Stable")
                        .setGroupEpoch(9).setAssignmentEpoch(9).setAssignorName("uniform")
                        .setMembers(List.of(member)).setAuthorizedOperations(0x0f),
                    new ConsumerGroupDescribeResponseData.DescribedGroup()
                        .setErrorCode((short) 69).setErrorMessage("not a consumer group")
                        .setGroupId("other").setGroupState("").setAssignorName("")
                        .setMembers(List.of()))), v));
        }
        return out;
    }

    // StreamsGroupHeartbeat (KIP-1071; static members since Kafka 4.4): a static member joining
    // with its topology, its process id, endpoint, client tags and every task list and offset
    // set; a plain heartbeat with only the epoch; answers with tasks, statuses and endpoint
    // partitions, and an error with a status.
    private static StreamsGroupHeartbeatRequestData.TopicInfo topicInfo(String name, int partitions) {
        return new StreamsGroupHeartbeatRequestData.TopicInfo().setName(name).setPartitions(partitions)
            .setReplicationFactor((short) 3).setTopicConfigs(List.of(
                new StreamsGroupHeartbeatRequestData.KeyValue().setKey("cleanup.policy").setValue("compact")));
    }

    private static Map<Integer, byte[]> streamsGroupHeartbeatRequest(boolean full) {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            StreamsGroupHeartbeatRequestData data = new StreamsGroupHeartbeatRequestData()
                .setGroupId("app").setMemberId("m-uuid-1").setMemberEpoch(full ? 0 : 7)
                .setEndpointInformationEpoch(full ? 0 : 3);
            if (full) {
                data.setInstanceId("app-1-1").setRackId("rack-1").setRebalanceTimeoutMs(300000)
                    .setTopology(new StreamsGroupHeartbeatRequestData.Topology().setEpoch(1)
                        .setSubtopologies(List.of(new StreamsGroupHeartbeatRequestData.Subtopology()
                            .setSubtopologyId("0").setSourceTopics(List.of("orders"))
                            .setSourceTopicRegex(List.of())
                            .setStateChangelogTopics(List.of(topicInfo("app-counts-changelog", 0)))
                            .setRepartitionSinkTopics(List.of("app-by-key-repartition"))
                            .setRepartitionSourceTopics(List.of(topicInfo("app-by-key-repartition", 6)))
                            .setCopartitionGroups(List.of(new StreamsGroupHeartbeatRequestData.CopartitionGroup()
                                .setSourceTopics(List.of((short) 0)).setSourceTopicRegex(List.of())
                                .setRepartitionSourceTopics(List.of((short) 0)))))))
                    .setActiveTasks(List.of(new StreamsGroupHeartbeatRequestData.TaskIds()
                        .setSubtopologyId("0").setPartitions(List.of(0, 2))))
                    .setStandbyTasks(List.of(new StreamsGroupHeartbeatRequestData.TaskIds()
                        .setSubtopologyId("0").setPartitions(List.of(1))))
                    .setWarmupTasks(List.of())
                    .setProcessId("0f9e8d7c-6b5a-4c3d-9e1f-a2b3c4d5e6f7")
                    .setUserEndpoint(new StreamsGroupHeartbeatRequestData.Endpoint().setHost("10.0.0.7").setPort(65000))
                    .setClientTags(List.of(new StreamsGroupHeartbeatRequestData.KeyValue().setKey("zone").setValue("a")))
                    .setTaskOffsets(List.of(new StreamsGroupHeartbeatRequestData.TaskOffset()
                        .setSubtopologyId("0").setPartition(1).setOffset(4_000_000_000L)))
                    .setTaskEndOffsets(List.of(new StreamsGroupHeartbeatRequestData.TaskOffset()
                        .setSubtopologyId("0").setPartition(1).setOffset(4_000_000_123L)))
                    .setShutdownApplication(false);
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> streamsGroupHeartbeatResponse(boolean assigned) {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            StreamsGroupHeartbeatResponseData data = new StreamsGroupHeartbeatResponseData()
                .setThrottleTimeMs(7).setErrorCode((short) 0).setMemberId("m-uuid-1")
                .setMemberEpoch(8).setHeartbeatIntervalMs(5000).setTaskOffsetIntervalMs(60000)
                .setEndpointInformationEpoch(4);
            if (v == 0) {
                data.setAcceptableRecoveryLagLegacy(10000);
            } else {
                data.setAcceptableRecoveryLag(10_000_000_000L).setTopologyDescriptionRequired(assigned);
            }
            if (assigned) {
                data.setActiveTasks(List.of(new StreamsGroupHeartbeatResponseData.TaskIds()
                        .setSubtopologyId("0").setPartitions(List.of(0, 2))))
                    .setStandbyTasks(List.of(new StreamsGroupHeartbeatResponseData.TaskIds()
                        .setSubtopologyId("0").setPartitions(List.of(1))))
                    .setWarmupTasks(List.of())
                    .setStatus(List.of(new StreamsGroupHeartbeatResponseData.Status()
                        .setStatusCode((byte) 5).setStatusDetail("assignment delayed")))
                    .setPartitionsByUserEndpoint(List.of(new StreamsGroupHeartbeatResponseData.EndpointToPartitions()
                        .setUserEndpoint(new StreamsGroupHeartbeatResponseData.Endpoint().setHost("10.0.0.7").setPort(65000))
                        .setActivePartitions(List.of(new StreamsGroupHeartbeatResponseData.TopicPartition()
                            .setTopic("orders").setPartitions(List.of(0, 2))))
                        .setStandbyPartitions(List.of(new StreamsGroupHeartbeatResponseData.TopicPartition()
                            .setTopic("orders").setPartitions(List.of(1))))));
            } else {
                data.setErrorCode((short) 82).setErrorMessage("fenced")
                    .setStatus(List.of(new StreamsGroupHeartbeatResponseData.Status()
                        .setStatusCode((byte) 1).setStatusDetail("missing orders")));
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    // StreamsGroupDescribe: two groups asked for (v1: with the topology description); the answer
    // describes one static member with its tasks and offsets, and one unknown group.
    private static Map<Integer, byte[]> streamsGroupDescribeRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            StreamsGroupDescribeRequestData data = new StreamsGroupDescribeRequestData()
                .setGroupIds(List.of("app", "other")).setIncludeAuthorizedOperations(true);
            if (v >= 1) {
                data.setIncludeTopologyDescription(true);
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static StreamsGroupDescribeResponseData.TopicInfo describedTopic(String name, int partitions) {
        return new StreamsGroupDescribeResponseData.TopicInfo().setName(name).setPartitions(partitions)
            .setReplicationFactor((short) 3).setTopicConfigs(List.of());
    }

    private static StreamsGroupDescribeResponseData.Assignment tasks(int... active) {
        List<Integer> partitions = new java.util.ArrayList<>();
        for (int p : active) {
            partitions.add(p);
        }
        return new StreamsGroupDescribeResponseData.Assignment()
            .setActiveTasks(List.of(new StreamsGroupDescribeResponseData.TaskIds()
                .setSubtopologyId("0").setPartitions(partitions)))
            .setStandbyTasks(List.of()).setWarmupTasks(List.of());
    }

    private static Map<Integer, byte[]> streamsGroupDescribeResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 1; v++) {
            StreamsGroupDescribeResponseData.Member member = new StreamsGroupDescribeResponseData.Member()
                .setMemberId("m-uuid-1").setMemberEpoch(8).setInstanceId("app-1-1").setRackId(null)
                .setClientId("cid").setClientHost("/127.0.0.1").setTopologyEpoch(1)
                .setProcessId("0f9e8d7c-6b5a-4c3d-9e1f-a2b3c4d5e6f7")
                .setUserEndpoint(new StreamsGroupDescribeResponseData.Endpoint().setHost("10.0.0.7").setPort(65000))
                .setClientTags(List.of(new StreamsGroupDescribeResponseData.KeyValue().setKey("zone").setValue("a")))
                .setTaskOffsets(List.of(new StreamsGroupDescribeResponseData.TaskOffset()
                    .setSubtopologyId("0").setPartition(1).setOffset(42L)))
                .setTaskEndOffsets(List.of())
                .setAssignment(tasks(0, 2)).setTargetAssignment(tasks(0, 1, 2)).setIsClassic(false);
            StreamsGroupDescribeResponseData.DescribedGroup group = new StreamsGroupDescribeResponseData.DescribedGroup()
                .setErrorCode((short) 0).setGroupId("app").setGroupState("Stable")
                .setGroupEpoch(9).setAssignmentEpoch(9)
                .setTopology(new StreamsGroupDescribeResponseData.Topology().setEpoch(1)
                    .setSubtopologies(List.of(new StreamsGroupDescribeResponseData.Subtopology()
                        .setSubtopologyId("0").setSourceTopics(List.of("orders"))
                        .setRepartitionSinkTopics(List.of())
                        .setStateChangelogTopics(List.of(describedTopic("app-counts-changelog", 6)))
                        .setRepartitionSourceTopics(List.of()))))
                .setMembers(List.of(member)).setAuthorizedOperations(0x0f);
            if (v >= 1) {
                StreamsGroupDescribeResponseData.TopologyDescriptionNode source =
                    new StreamsGroupDescribeResponseData.TopologyDescriptionNode().setName("KSTREAM-SOURCE-0")
                        .setNodeType((byte) 0).setSourceTopics(List.of("orders")).setSinkTopic(null)
                        .setStores(List.of()).setSuccessors(List.of("KSTREAM-AGGREGATE-1"));
                StreamsGroupDescribeResponseData.TopologyDescriptionNode aggregate =
                    new StreamsGroupDescribeResponseData.TopologyDescriptionNode().setName("KSTREAM-AGGREGATE-1")
                        .setNodeType((byte) 1).setSourceTopics(List.of()).setSinkTopic(null)
                        .setStores(List.of("counts")).setSuccessors(List.of());
                group.setTopologyDescription(new StreamsGroupDescribeResponseData.TopologyDescription()
                        .setSubtopologies(List.of(new StreamsGroupDescribeResponseData.TopologyDescriptionSubtopology()
                            .setSubtopologyId("0").setNodes(List.of(source, aggregate))))
                        .setGlobalStores(List.of(new StreamsGroupDescribeResponseData.TopologyDescriptionGlobalStore()
                            .setSource(source).setProcessor(aggregate))))
                    .setTopologyDescriptionStatus((byte) 1).setAssignorName("sticky");
            }
            out.put(v, body(new StreamsGroupDescribeResponseData().setThrottleTimeMs(7).setGroups(List.of(
                group,
                new StreamsGroupDescribeResponseData.DescribedGroup()
                    .setErrorCode((short) 69).setErrorMessage("not a streams group")
                    .setGroupId("other").setGroupState("").setMembers(List.of()))), v));
        }
        return out;
    }

    // Metadata v12 and v13 (topic ids, KIP-516): two topics asked for by name; the answer names one with
    // its id and partitions (out of order) and one that does not exist (the zero id).
    private static Map<Integer, byte[]> metadataRequest() {
        MetadataRequestData data = new MetadataRequestData()
            .setAllowAutoTopicCreation(false).setIncludeTopicAuthorizedOperations(false);
        data.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("orders"));
        data.topics().add(new MetadataRequestData.MetadataRequestTopic().setName("gone"));
        return new TreeMap<>(Map.of(12, body(data, 12), 13, body(data, 13)));
    }

    // v13 adds the top-level error code (KIP-1102): REBOOTSTRAP_REQUIRED (129) in its table.
    private static Map<Integer, byte[]> metadataResponse() {
        MetadataResponseData data = new MetadataResponseData().setThrottleTimeMs(7)
            .setClusterId("cid").setControllerId(1);
        data.brokers().add(new MetadataResponseData.MetadataResponseBroker()
            .setNodeId(1).setHost("localhost").setPort(9092).setRack(null));
        MetadataResponseData.MetadataResponseTopic orders = new MetadataResponseData.MetadataResponseTopic()
            .setErrorCode((short) 0).setName("orders").setTopicId(TOPIC_A).setIsInternal(false);
        for (int p : new int[] {1, 0}) {
            orders.partitions().add(new MetadataResponseData.MetadataResponsePartition()
                .setErrorCode((short) 0).setPartitionIndex(p).setLeaderId(1).setLeaderEpoch(0)
                .setReplicaNodes(List.of(1)).setIsrNodes(List.of(1)).setOfflineReplicas(List.of()));
        }
        data.topics().add(orders);
        data.topics().add(new MetadataResponseData.MetadataResponseTopic()
            .setErrorCode((short) 3).setName("gone").setTopicId(Uuid.ZERO_UUID));
        byte[] v12 = body(data, 12);
        data.setErrorCode((short) 129);
        return new TreeMap<>(Map.of(12, v12, 13, body(data, 13)));
    }

    private static Map<Integer, byte[]> describeGroupsRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 2; v <= 6; v++) {
            out.put(v, body(new DescribeGroupsRequestData()
                .setGroups(List.of("grp", "other"))
                .setIncludeAuthorizedOperations(v >= 3), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> describeGroupsResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 2; v <= 6; v++) {
            DescribeGroupsResponseData.DescribedGroup other = new DescribeGroupsResponseData.DescribedGroup()
                .setErrorCode((short) 16)
                .setGroupId("other")
                .setGroupState("")
                .setProtocolType("")
                .setProtocolData("")
                .setMembers(List.of());
            if (v >= 6) {
                other.setErrorMessage("not the coordinator");
            }
            out.put(v, body(new DescribeGroupsResponseData()
                .setThrottleTimeMs(7)
                .setGroups(List.of(
                    new DescribeGroupsResponseData.DescribedGroup()
                        .setErrorCode((short) 0)
                        .setGroupId("grp")
                        .setGroupState("Stable")
                        .setProtocolType("consumer")
                        .setProtocolData("range")
                        .setMembers(List.of(
                            new DescribeGroupsResponseData.DescribedGroupMember()
                                .setMemberId("inst-a-1234")
                                .setGroupInstanceId(v >= 4 ? "inst-a" : null)
                                .setClientId("cid")
                                .setClientHost("/127.0.0.1")
                                .setMemberMetadata(b(0, 1))
                                .setMemberAssignment(b(0, 2)),
                            new DescribeGroupsResponseData.DescribedGroupMember()
                                .setMemberId("dyn-5678")
                                .setGroupInstanceId(null)
                                .setClientId("cid2")
                                .setClientHost("/10.0.0.2")
                                .setMemberMetadata(new byte[0])
                                .setMemberAssignment(new byte[0])))
                        .setAuthorizedOperations(v >= 3 ? 0x0f : Integer.MIN_VALUE),
                    other)), v));
        }
        return out;
    }

    private static Map<Integer, byte[]> findCoordinatorRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 1; v <= 4; v++) {
            FindCoordinatorRequestData data = new FindCoordinatorRequestData().setKeyType((byte) 0);
            if (v >= 4) {
                data.setCoordinatorKeys(List.of("grp", "other"));
            } else {
                data.setKey("grp");
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> findCoordinatorResponse() {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 1; v <= 4; v++) {
            FindCoordinatorResponseData data = new FindCoordinatorResponseData().setThrottleTimeMs(7);
            if (v >= 4) {
                data.setCoordinators(List.of(
                    new FindCoordinatorResponseData.Coordinator()
                        .setKey("grp").setNodeId(1).setHost("localhost").setPort(9092)
                        .setErrorCode((short) 0).setErrorMessage(null),
                    new FindCoordinatorResponseData.Coordinator()
                        .setKey("other").setNodeId(-1).setHost("").setPort(-1)
                        .setErrorCode((short) 15).setErrorMessage("not available")));
            } else {
                data.setErrorCode((short) 0).setErrorMessage(null)
                    .setNodeId(1).setHost("localhost").setPort(9092);
            }
            out.put(v, body(data, v));
        }
        return out;
    }

    private static Map<Integer, byte[]> subscription(boolean full) {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 3; v++) {
            ConsumerProtocolSubscription data = new ConsumerProtocolSubscription()
                .setTopics(List.of("orders", "payments"))
                .setUserData(full ? ByteBuffer.wrap(b(0xca, 0xfe)) : null);
            if (v >= 1 && full) {
                ConsumerProtocolSubscription.TopicPartitionCollection owned =
                    new ConsumerProtocolSubscription.TopicPartitionCollection();
                owned.add(new ConsumerProtocolSubscription.TopicPartition()
                    .setTopic("orders").setPartitions(List.of(0, 1)));
                owned.add(new ConsumerProtocolSubscription.TopicPartition()
                    .setTopic("payments").setPartitions(List.of(2)));
                data.setOwnedPartitions(owned);
            }
            if (v >= 2 && full) {
                data.setGenerationId(3);
            }
            if (v >= 3 && full) {
                data.setRackId("rack-a");
            }
            out.put(v, MessageUtil.toVersionPrefixedBytes((short) v, data));
        }
        return out;
    }

    private static Map<Integer, byte[]> assignment(boolean full) {
        Map<Integer, byte[]> out = new TreeMap<>();
        for (int v = 0; v <= 3; v++) {
            ConsumerProtocolAssignment.TopicPartitionCollection parts =
                new ConsumerProtocolAssignment.TopicPartitionCollection();
            if (full) {
                parts.add(new ConsumerProtocolAssignment.TopicPartition()
                    .setTopic("orders").setPartitions(List.of(0, 1)));
                parts.add(new ConsumerProtocolAssignment.TopicPartition()
                    .setTopic("payments").setPartitions(List.of(2)));
            }
            ConsumerProtocolAssignment data = new ConsumerProtocolAssignment()
                .setAssignedPartitions(parts)
                .setUserData(full ? ByteBuffer.wrap(b(0xbe, 0xef)) : null);
            out.put(v, MessageUtil.toVersionPrefixedBytes((short) v, data));
        }
        return out;
    }

    // ApiVersions v3 (KIP-584's features as tagged fields): the client's name and version; the
    // answer lists two APIs, one supported feature and two finalized ones (a feature finalized
    // at 0 is not listed by a broker), and once without any feature.
    private static Map<Integer, byte[]> apiVersionsRequest() {
        Map<Integer, byte[]> out = new TreeMap<>();
        out.put(3, body(new ApiVersionsRequestData().setClientSoftwareName("staticconsumer")
            .setClientSoftwareVersion("1.0"), 3));
        return out;
    }

    private static Map<Integer, byte[]> apiVersionsResponse(boolean withFeatures) {
        ApiVersionsResponseData.ApiVersionCollection apis = new ApiVersionsResponseData.ApiVersionCollection();
        apis.add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 18).setMinVersion((short) 0).setMaxVersion((short) 4));
        apis.add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 68).setMinVersion((short) 0).setMaxVersion((short) 1));
        ApiVersionsResponseData data = new ApiVersionsResponseData().setErrorCode((short) 0).setApiKeys(apis).setThrottleTimeMs(5);
        if (withFeatures) {
            ApiVersionsResponseData.SupportedFeatureKeyCollection supported = new ApiVersionsResponseData.SupportedFeatureKeyCollection();
            supported.add(new ApiVersionsResponseData.SupportedFeatureKey().setName("group.version")
                .setMinVersion((short) 0).setMaxVersion((short) 1));
            ApiVersionsResponseData.FinalizedFeatureKeyCollection finalized = new ApiVersionsResponseData.FinalizedFeatureKeyCollection();
            finalized.add(new ApiVersionsResponseData.FinalizedFeatureKey().setName("group.version")
                .setMaxVersionLevel((short) 1).setMinVersionLevel((short) 1));
            finalized.add(new ApiVersionsResponseData.FinalizedFeatureKey().setName("metadata.version")
                .setMaxVersionLevel((short) 29).setMinVersionLevel((short) 29));
            data.setSupportedFeatures(supported).setFinalizedFeaturesEpoch(42L).setFinalizedFeatures(finalized);
        }
        Map<Integer, byte[]> out = new TreeMap<>();
        out.put(3, body(data, 3));
        return out;
    }

    public static void main(String[] args) {
        OUT.append("\"\"\"Golden wire bytes from Apache Kafka's own message classes (kafka-clients ")
            .append(args.length > 0 ? args[0] : "?").append(").\n\n")
            .append("GENERATED by tests/protocol/golden_gen/GoldenGen.java (run tests/protocol/golden_gen/run.sh);\n")
            .append("do not edit by hand. Request and response tables hold the message body only (no size\n")
            .append("prefix, no header) per API version, written with MessageUtil.toByteBufferAccessor.\n")
            .append("Consumer-protocol tables hold version-prefixed bytes (MessageUtil.toVersionPrefixedBytes).\n")
            .append("The field values are listed in tests/protocol/test_*.py next to the expected results.\n")
            .append("\"\"\"\n\n")
            .append("# fmt: off\n\n");
        table("JOIN_GROUP_REQUEST", joinGroupRequest(false));
        table("JOIN_GROUP_REQUEST_DYNAMIC", joinGroupRequest(true));
        table("JOIN_GROUP_RESPONSE", joinGroupResponse());
        table("SYNC_GROUP_REQUEST", syncGroupRequest());
        table("SYNC_GROUP_RESPONSE", syncGroupResponse());
        table("SYNC_GROUP_RESPONSE_USER_DATA", syncGroupResponseWithUserData());
        table("HEARTBEAT_REQUEST", heartbeatRequest());
        table("HEARTBEAT_RESPONSE", heartbeatResponse());
        table("LEAVE_GROUP_REQUEST", leaveGroupRequest());
        table("LEAVE_GROUP_RESPONSE", leaveGroupResponse());
        table("OFFSET_COMMIT_REQUEST", offsetCommitRequest());
        table("OFFSET_COMMIT_RESPONSE", offsetCommitResponse());
        table("OFFSET_FETCH_REQUEST", offsetFetchRequest());
        table("OFFSET_FETCH_RESPONSE", offsetFetchResponse(false));
        table("OFFSET_FETCH_RESPONSE_GROUP_ERROR", offsetFetchResponse(true));
        table("CONSUMER_GROUP_HEARTBEAT_REQUEST", consumerGroupHeartbeatRequest(true));
        table("CONSUMER_GROUP_HEARTBEAT_REQUEST_MINIMAL", consumerGroupHeartbeatRequest(false));
        table("CONSUMER_GROUP_HEARTBEAT_RESPONSE", consumerGroupHeartbeatResponse(true));
        table("CONSUMER_GROUP_HEARTBEAT_RESPONSE_ERROR", consumerGroupHeartbeatResponse(false));
        table("CONSUMER_GROUP_DESCRIBE_REQUEST", consumerGroupDescribeRequest());
        table("CONSUMER_GROUP_DESCRIBE_RESPONSE", consumerGroupDescribeResponse());
        table("STREAMS_GROUP_HEARTBEAT_REQUEST", streamsGroupHeartbeatRequest(true));
        table("STREAMS_GROUP_HEARTBEAT_REQUEST_MINIMAL", streamsGroupHeartbeatRequest(false));
        table("STREAMS_GROUP_HEARTBEAT_RESPONSE", streamsGroupHeartbeatResponse(true));
        table("STREAMS_GROUP_HEARTBEAT_RESPONSE_ERROR", streamsGroupHeartbeatResponse(false));
        table("STREAMS_GROUP_DESCRIBE_REQUEST", streamsGroupDescribeRequest());
        table("STREAMS_GROUP_DESCRIBE_RESPONSE", streamsGroupDescribeResponse());
        table("METADATA_REQUEST", metadataRequest());
        table("METADATA_RESPONSE", metadataResponse());
        table("DESCRIBE_GROUPS_REQUEST", describeGroupsRequest());
        table("DESCRIBE_GROUPS_RESPONSE", describeGroupsResponse());
        table("FIND_COORDINATOR_REQUEST", findCoordinatorRequest());
        table("FIND_COORDINATOR_RESPONSE", findCoordinatorResponse());
        table("API_VERSIONS_REQUEST", apiVersionsRequest());
        table("API_VERSIONS_RESPONSE", apiVersionsResponse(true));
        table("API_VERSIONS_RESPONSE_NO_FEATURES", apiVersionsResponse(false));
        table("SUBSCRIPTION", subscription(true));
        table("SUBSCRIPTION_EMPTY", subscription(false));
        table("ASSIGNMENT", assignment(true));
        table("ASSIGNMENT_EMPTY", assignment(false));

        String longReason = "r".repeat(300);
        OUT.append("# JoinGroupRequest.maybeTruncateReason(\"r\" * 300) has this length:\n")
            .append("TRUNCATED_REASON_LENGTH = ")
            .append(JoinGroupRequest.maybeTruncateReason(longReason).length()).append("\n\n");
        OUT.append("# OffsetCommitRequest.Builder.forTopicNames(...).latestAllowedVersion(): the newest\n")
            .append("# OffsetCommit version that still names topics (v10 carries topic ids only).\n")
            .append("OFFSET_COMMIT_MAX_BY_TOPIC_NAME = ")
            .append(OffsetCommitRequest.Builder.forTopicNames(offsetCommitData(9)).latestAllowedVersion())
            .append("\n\n");
        OUT.append("# Every org.apache.kafka.common.protocol.Errors constant: code -> name.\n");
        OUT.append("KAFKA_ERRORS = {\n");
        for (Errors e : Errors.values()) {
            OUT.append("    ").append(e.code()).append(": \"").append(e.name()).append("\",\n");
        }
        OUT.append("}\n");
        System.out.print(OUT);
    }
}
