// Benchmark mode for benchmarks/assignors_bench.py: times kafka-clients' own assignors inside the
// JVM, after warm-up, on the inputs the Python script builds (same names, same shapes).
//
// Input, one line per figure:
//   bench <range|roundrobin|sticky|cooperative-sticky> <fresh|joins|uneven> <members> <partitions> <topics>
// Output, one line per input line (flushed at once):
//   bench <algo> <scenario> <best seconds> <timed runs> <partitions assigned>
//
// Scenarios (as in the Python script): "fresh" every member subscribes to every topic and owns
// nothing; "joins" every member owns what the same assignor gave it on the fresh run (generation
// 1) and one new member joins; "uneven" every other member subscribes to the first half of the
// topics only. Timing: warm-up runs (up to 3,000, stopping once 3 s are spent: small plans need
// thousands of runs before the JIT has compiled them), then the best of up to 25 runs (2 s budget,
// at least one run) of assign(Cluster, GroupSubscription), which is what a Java group leader calls.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

public final class AssignorBench {
    private static final int WARMUP_RUNS = 3000;
    private static final double WARMUP_SECONDS = 3.0;
    private static final int MEASURED_RUNS = 25;
    private static final double BUDGET_SECONDS = 2.0;

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank())
                continue;
            String[] f = line.trim().split(" ");
            if (!f[0].equals("bench") || f.length != 6)
                throw new IllegalArgumentException("bad line: " + line);
            System.out.println(bench(f[1], f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                Integer.parseInt(f[5])));
            System.out.flush();
        }
    }

    static ConsumerPartitionAssignor assignor(String algo) {
        switch (algo) {
            case "range": return new RangeAssignor();
            case "roundrobin": return new RoundRobinAssignor();
            case "sticky": return new StickyAssignor();
            case "cooperative-sticky": return new CooperativeStickyAssignor();
            default: throw new IllegalArgumentException("unknown assignor " + algo);
        }
    }

    static String bench(String algo, String scenario, int members, int partitions, int topics) {
        int perTopic = Math.max(1, partitions / topics);
        List<String> names = new ArrayList<>();
        for (int t = 0; t < topics; t++)
            names.add(String.format("topic-%02d", t));
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> infos = new ArrayList<>();
        for (String topic : names)
            for (int p = 0; p < perTopic; p++)
                infos.add(new PartitionInfo(topic, p, node, new Node[] {node}, new Node[] {node}));
        Cluster cluster = new Cluster("bench", List.of(node), infos, new HashSet<>(), new HashSet<>());

        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        for (int i = 0; i < members; i++) {
            List<String> subscribed = scenario.equals("uneven") && i % 2 == 0
                ? names.subList(0, topics / 2) : names;
            subscriptions.put(String.format("member-%05d", i), subscription(subscribed, String.format("svc-%05d", i)));
        }
        if (scenario.equals("joins")) {
            Map<String, Assignment> owned = assignor(algo).assign(cluster, new GroupSubscription(subscriptions))
                .groupAssignment();
            Map<String, Subscription> rejoined = new LinkedHashMap<>();
            for (Map.Entry<String, Subscription> e : subscriptions.entrySet()) {
                Subscription old = e.getValue();
                rejoined.put(e.getKey(), owning(algo, e.getKey(), old, owned.get(e.getKey()).partitions()));
            }
            rejoined.put("member-new", subscription(names, "svc-new"));
            subscriptions = rejoined;
        } else if (!scenario.equals("fresh") && !scenario.equals("uneven")) {
            throw new IllegalArgumentException("unknown scenario " + scenario);
        }

        GroupSubscription group = new GroupSubscription(subscriptions);
        ConsumerPartitionAssignor assignor = assignor(algo);
        long assigned = 0;
        double warm = 0;
        for (int run = 0; run < WARMUP_RUNS && (run == 0 || warm < WARMUP_SECONDS); run++) {
            long start = System.nanoTime();
            assigned = count(assignor.assign(cluster, group));
            warm += (System.nanoTime() - start) / 1e9;
        }
        double best = Double.MAX_VALUE;
        double spent = 0;
        int runs = 0;
        while (runs < MEASURED_RUNS && (runs == 0 || spent < BUDGET_SECONDS)) {
            long start = System.nanoTime();
            assigned = count(assignor.assign(cluster, group));
            double took = (System.nanoTime() - start) / 1e9;
            best = Math.min(best, took);
            spent += took;
            runs++;
        }
        return String.format("bench %s %s %.6f %d %d", algo, scenario, best, runs, assigned);
    }

    static Subscription subscription(List<String> topics, String instanceId) {
        Subscription s = new Subscription(topics);
        s.setGroupInstanceId(Optional.of(instanceId));
        return s;
    }

    /** The member's next subscription after owning {@code partitions} in generation 1, with the
     *  user data the assignor itself writes (StickyAssignor reads owned partitions only from it). */
    static Subscription owning(String algo, String memberId, Subscription old, List<TopicPartition> partitions) {
        ByteBuffer userData = null;
        ConsumerGroupMetadata metadata = new ConsumerGroupMetadata("bench", 1, memberId, old.groupInstanceId());
        if (algo.equals("sticky") || algo.equals("cooperative-sticky")) {
            ConsumerPartitionAssignor probe = assignor(algo);
            probe.onAssignment(new Assignment(partitions), metadata);
            userData = probe.subscriptionUserData(new HashSet<>(old.topics()));
        }
        Subscription s = new Subscription(old.topics(), userData, partitions, 1, Optional.empty());
        s.setGroupInstanceId(old.groupInstanceId());
        return s;
    }

    static long count(GroupAssignment result) {
        long n = 0;
        for (Assignment a : result.groupAssignment().values())
            n += a.partitions().size();
        return n;
    }
}
