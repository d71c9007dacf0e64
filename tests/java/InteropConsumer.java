// Java KafkaConsumers (kafka-clients, static members) as group peers for the tests in
// tests/integration/test_java_*.py. One JVM runs any number of consumers, each on its own thread.
// By default they use the classic group protocol with "range"; "cooperative" picks Java's
// CooperativeStickyAssignor, and "consumer" the KIP-848 consumer group protocol.
//
// Usage: java InteropConsumer <bootstrap servers>
// Stdin, one command a line:
//   start <group> <group.instance.id> <topic,topic,...> [cooperative|consumer]
//                                                         start one consumer and subscribe:
//                                                         classic protocol with "range" or
//                                                         (cooperative) Java's
//                                                         CooperativeStickyAssignor, or
//                                                         (consumer) group.protocol=consumer,
//                                                         the broker assigning (Java refuses
//                                                         partition.assignment.strategy,
//                                                         session.timeout.ms and
//                                                         heartbeat.interval.ms with it)
//   close <group.instance.id>                             close that instance's consumer
//   stop                                                  close every consumer, then exit
// End of stdin counts as "stop". Consumers close with Java's default close: a static member keeps
// its place in the group (classic: no LeaveGroup, it stays until its session times out; consumer
// protocol: a leaving heartbeat with member epoch -2, the coordinator keeps its assignment).
//
// Stdout, one JSON object a line:
//   {"event":"assigned","group":..,"instance":..,"member_id":..,"generation":N,"partitions":[["t",0],..]}
//       after every onPartitionsAssigned (the consumer's whole assignment after the call; with the
//       consumer protocol Java passes only the added partitions, and "generation" is the member
//       epoch)
//   {"event":"revoked","group":..,"instance":..,"generation":N,"partitions":[["t",0],..]}
//       on every onPartitionsRevoked with a non-empty set (the revoked partitions only)
//   {"event":"led","group":..,"instance":..,"members":{"<member id>":"<instance id>",..}}
//       whenever this consumer, as group leader, ran the assignor (classic protocol only)
//   {"event":"error","instance":..,"error":".."}    a consumer thread died, or a bad command
//   {"event":"closed","instance":..}                 a consumer closed
//
// The assignors are Java's own; ObservedRange and ObservedCooperative only report that they ran.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class InteropConsumer {
    /** Java's RangeAssignor (protocol "range"), reporting each time it plans as the leader. */
    public static final class ObservedRange extends RangeAssignor implements Configurable {
        private String group = "";
        private String instance = "";

        @Override
        public void configure(Map<String, ?> configs) {
            group = String.valueOf(configs.get(ConsumerConfig.GROUP_ID_CONFIG));
            instance = String.valueOf(configs.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        }

        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
            GroupAssignment result = super.assign(metadata, groupSubscription);
            reportLed(group, instance, groupSubscription);
            return result;
        }
    }

    /** Java's CooperativeStickyAssignor (protocol "cooperative-sticky"), reporting as above. */
    public static final class ObservedCooperative extends CooperativeStickyAssignor implements Configurable {
        private String group = "";
        private String instance = "";

        @Override
        public void configure(Map<String, ?> configs) {
            group = String.valueOf(configs.get(ConsumerConfig.GROUP_ID_CONFIG));
            instance = String.valueOf(configs.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        }

        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
            GroupAssignment result = super.assign(metadata, groupSubscription);
            reportLed(group, instance, groupSubscription);
            return result;
        }
    }

    private static void reportLed(String group, String instance, ConsumerPartitionAssignor.GroupSubscription groupSubscription) {
        StringBuilder members = new StringBuilder("{");
        new TreeMap<>(groupSubscription.groupSubscription()).forEach((memberId, subscription) -> {
            if (members.length() > 1)
                members.append(',');
            members.append(quote(memberId)).append(':')
                .append(quote(subscription.groupInstanceId().orElse("")));
        });
        emit("{\"event\":\"led\",\"group\":" + quote(group) + ",\"instance\":" + quote(instance)
            + ",\"members\":" + members.append('}') + "}");
    }

    /** One consumer, its thread, and whether it should keep polling. */
    private record Running(String instance, KafkaConsumer<byte[], byte[]> consumer, Thread thread,
                           AtomicBoolean polling) {
        void close() {
            polling.set(false);
            consumer.wakeup();
        }
    }

    private static final List<Running> CONSUMERS = new ArrayList<>();
    private static final List<String> MODES = List.of("cooperative", "consumer");

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            if (f[0].equals("stop"))
                break;
            if (f[0].equals("start") && (f.length == 4 || (f.length == 5 && MODES.contains(f[4]))))
                start(bootstrap, f[1], f[2], List.of(f[3].split(",")), f.length == 5 ? f[4] : "range");
            else if (f[0].equals("close") && f.length == 2)
                close(f[1]);
            else if (!f[0].isEmpty())
                emit("{\"event\":\"error\",\"instance\":\"\",\"error\":" + quote("bad command: " + line) + "}");
        }
        List<Running> all;
        synchronized (CONSUMERS) {
            all = new ArrayList<>(CONSUMERS);
        }
        all.forEach(Running::close);
        for (Running running : all)
            running.thread().join(30_000);
    }

    /** Close the consumers of {@code instance} (at most one is expected); "closed" follows. */
    private static void close(String instance) {
        List<Running> closing = new ArrayList<>();
        synchronized (CONSUMERS) {
            for (Running running : CONSUMERS) {
                if (running.instance().equals(instance) && running.polling().get())
                    closing.add(running);
            }
        }
        if (closing.isEmpty())
            emit("{\"event\":\"error\",\"instance\":" + quote(instance) + ",\"error\":"
                + quote("close: no running consumer") + "}");
        closing.forEach(Running::close);
    }

    private static void start(String bootstrap, String group, String instance, List<String> topics,
                              String mode) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instance);
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, instance);
        if (mode.equals("consumer")) {
            // The broker assigns, and owns the session timeout and the heartbeat interval.
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        } else {
            props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                (mode.equals("cooperative") ? ObservedCooperative.class : ObservedRange.class).getName());
            props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
            props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
        }
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
        AtomicBoolean polling = new AtomicBoolean(true);
        Thread thread = new Thread(() -> run(consumer, polling, group, instance, topics), "consumer-" + instance);
        synchronized (CONSUMERS) {
            CONSUMERS.add(new Running(instance, consumer, thread, polling));
        }
        thread.start();
    }

    private static void run(KafkaConsumer<byte[], byte[]> consumer, AtomicBoolean polling, String group,
                            String instance, List<String> topics) {
        try {
            consumer.subscribe(topics, new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    if (partitions.isEmpty())
                        return;
                    emit("{\"event\":\"revoked\",\"group\":" + quote(group) + ",\"instance\":" + quote(instance)
                        + ",\"generation\":" + consumer.groupMetadata().generationId()
                        + ",\"partitions\":" + partitionList(partitions) + "}");
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    var metadata = consumer.groupMetadata();
                    emit("{\"event\":\"assigned\",\"group\":" + quote(group) + ",\"instance\":" + quote(instance)
                        + ",\"member_id\":" + quote(metadata.memberId()) + ",\"generation\":"
                        + metadata.generationId() + ",\"partitions\":" + partitionList(consumer.assignment()) + "}");
                }
            });
            while (polling.get())
                consumer.poll(Duration.ofMillis(100));
        } catch (WakeupException stopping) {
            // "close", "stop" or end of stdin
        } catch (Throwable e) {
            emit("{\"event\":\"error\",\"instance\":" + quote(instance) + ",\"error\":" + quote(e.toString()) + "}");
        } finally {
            consumer.close(Duration.ofSeconds(5));
            synchronized (CONSUMERS) {
                CONSUMERS.removeIf(running -> running.polling() == polling);
            }
            emit("{\"event\":\"closed\",\"instance\":" + quote(instance) + "}");
        }
    }

    private static String partitionList(Collection<TopicPartition> partitions) {
        StringBuilder list = new StringBuilder("[");
        partitions.stream()
            .sorted((a, b) -> a.topic().equals(b.topic())
                ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()))
            .forEach(tp -> {
                if (list.length() > 1)
                    list.append(',');
                list.append('[').append(quote(tp.topic())).append(',').append(tp.partition()).append(']');
            });
        return list.append(']').toString();
    }

    private static synchronized void emit(String json) {
        System.out.println(json);
        System.out.flush();
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\')
                b.append('\\').append(c);
            else if (c < 0x20)
                b.append(String.format("\\u%04x", (int) c));
            else
                b.append(c);
        }
        return b.append('"').toString();
    }
}
