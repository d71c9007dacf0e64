// The Java side of streams_bench.py: a Kafka Streams 4.4 application in a streams group
// (group.protocol=streams, KIP-1071) with the shape of staticconsumer.streams_app: one source
// topic, a per-key count and sum kept in a store whose changelog the broker creates, each new
// aggregate written to an output topic as {"count": c, "sum": s}. With an instance base, every
// stream thread is a static member: Kafka Streams gives thread n the main consumer's
// group.instance.id "<base>-<n>" (StreamsConfig.getMainConsumerConfigs, Kafka 4.4, KAFKA-20169).
//
// JSON lines on stdout, as the Python app writes them (streams_app/status.py):
//   {"event": "started", "thread_count": n}       once the topology is built
//   {"event": "state", "state": "RUNNING"}        each KafkaStreams state change
//   {"event": "processing", "thread": name}       the first record a stream thread folds in
//   {"event": "status", "threads": [{"thread": name, "processed": n}, ...]}   every second
//   {"event": "stopped", "threads": [...]}        after a clean close (SIGTERM)
// A SIGTERM closes the application without leaving the group (REMAIN_IN_GROUP): a static thread
// stops at member epoch -2 and keeps its tasks for its successor.
//
// Usage: StreamsBench <bootstrap> <application.id> <instance base | -> <threads> <state dir>
//                     <input topic> <output topic> [anything more is ignored: --parent-pid n]
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

public final class StreamsBench {
    private static final Map<String, AtomicLong> PROCESSED = new ConcurrentHashMap<>();

    private static synchronized void emit(String json) {
        System.out.println(json);
        System.out.flush();
    }

    private static String threads() {
        StringBuilder out = new StringBuilder("[");
        for (Map.Entry<String, AtomicLong> e : new TreeMap<>(PROCESSED).entrySet()) {
            if (out.length() > 1) {
                out.append(", ");
            }
            out.append("{\"thread\": \"").append(e.getKey()).append("\", \"processed\": ")
                .append(e.getValue().get()).append('}');
        }
        return out.append(']').toString();
    }

    // The aggregate is "count,sum" (the value of each input record is an integer as text).
    private static String add(String key, String value, String aggregate) {
        String thread = Thread.currentThread().getName();
        AtomicLong mine = PROCESSED.computeIfAbsent(thread, t -> new AtomicLong());
        if (mine.incrementAndGet() == 1) {
            emit("{\"event\": \"processing\", \"thread\": \"" + thread + "\"}");
        }
        int comma = aggregate.indexOf(',');
        long count = Long.parseLong(aggregate.substring(0, comma)) + 1;
        long sum = Long.parseLong(aggregate.substring(comma + 1)) + Long.parseLong(value);
        return count + "," + sum;
    }

    private static String output(String aggregate) {
        int comma = aggregate.indexOf(',');
        return "{\"count\": " + aggregate.substring(0, comma) + ", \"sum\": "
            + aggregate.substring(comma + 1) + "}";
    }

    public static void main(String[] args) throws InterruptedException {
        String base = args[2];
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.parseInt(args[3]));
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Commit (and so flush the store cache to the changelog and the output) every second,
        // not every 30 s (the at-least-once default): the bench's workload ends at the commit.
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        if (!base.equals("-")) {
            props.put(StreamsConfig.CLIENT_ID_CONFIG, base);
            props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, base);
        }
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(args[5], Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .aggregate(() -> "0,0", StreamsBench::add,
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("aggregate")
                    .withKeySerde(Serdes.String()).withValueSerde(Serdes.String()))
            .toStream()
            .mapValues(StreamsBench::output)
            .to(args[6], Produced.with(Serdes.String(), Serdes.String()));
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setStateListener((now, before) -> emit("{\"event\": \"state\", \"state\": \"" + now + "\"}"));
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(CloseOptions.groupMembershipOperation(
                CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP).withTimeout(Duration.ofSeconds(30)));
            emit("{\"event\": \"stopped\", \"threads\": " + threads() + "}");
            closed.countDown();
        }));
        emit("{\"event\": \"started\", \"thread_count\": " + args[3] + "}");
        streams.start();
        while (!closed.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
            emit("{\"event\": \"status\", \"threads\": " + threads() + "}");
        }
    }
}
