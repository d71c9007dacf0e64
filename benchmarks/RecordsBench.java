// The Java reader of records_bench.py: kafka-clients' KafkaConsumer reads a whole topic from the
// start with assign() and poll() (max.poll.records 500, the default), optionally turning each
// value into a String. Prints records/s on the clock and records per CPU second of this JVM
// (every thread), both from the first poll to the last record.
// Usage: RecordsBench <bootstrap> <topic> <partitions> <records> <deserialize: 0|1>
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class RecordsBench {
    public static void main(String[] args) {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        props.put("enable.auto.commit", "false");
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        int partitions = Integer.parseInt(args[2]);
        long records = Long.parseLong(args[3]);
        boolean deserialize = args[4].equals("1");
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) tps.add(new TopicPartition(args[1], p));
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long seen = 0, sink = 0;
            long started = System.nanoTime(), cpu = os.getProcessCpuTime();
            while (seen < records) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofSeconds(1));
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    if (deserialize) sink += new String(r.value(), StandardCharsets.UTF_8).length();
                    seen++;
                }
            }
            double wall = (System.nanoTime() - started) / 1e9;
            double cpuSeconds = (os.getProcessCpuTime() - cpu) / 1e9;
            System.out.println((seen / wall) + " " + (seen / cpuSeconds) + (sink < 0 ? " x" : ""));
        }
    }
}
