// Test harness: runs the Java client's assignors on cases read from stdin, one JVM for all cases.
//
// Input (whitespace-separated tokens, ids never contain spaces):
//   case <range|roundrobin>
//   topic <name> <partitions> [racks]   (any number; racks: one entry per partition, comma-
//                                         separated, each a '+'-joined list of the racks of that
//                                         partition's replicas, or '-' for none)
//   member <memberId> <instanceId|-> <topic,topic,...|-> [rack|-]   (any number)
//   end
//   userdata <hex>                       (parse with StickyAssignor.memberData)
// Output per case: "member <memberId> <topic:partition,...|->" lines, then "end".
// Output per userdata: "owned <topic:partition,...|-> generation <n|->".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

public final class AssignorHarness {
    /** Exposes the protected user-data parser of Java's StickyAssignor. */
    static final class StickyProbe extends StickyAssignor {
        MemberData parse(byte[] userData) {
            return memberData(new Subscription(Collections.singletonList("t"), ByteBuffer.wrap(userData)));
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(System.out, false, StandardCharsets.UTF_8);
        String algo = null;
        List<PartitionInfo> partitions = new ArrayList<>();
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        Map<String, Node> nodes = new LinkedHashMap<>();  // one broker per rack
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "case":
                    algo = f[1];
                    partitions.clear();
                    subscriptions.clear();
                    nodes.clear();
                    break;
                case "topic":
                    String[] racks = f.length > 3 ? f[3].split(",") : null;
                    for (int p = 0; p < Integer.parseInt(f[2]); p++) {
                        Node[] replicas = racks == null ? new Node[0] : replicas(racks[p], nodes);
                        partitions.add(new PartitionInfo(f[1], p, null, replicas, replicas));
                    }
                    break;
                case "member":
                    List<String> topics = f[3].equals("-") ? new ArrayList<>() : Arrays.asList(f[3].split(","));
                    Optional<String> rack = f.length > 4 && !f[4].equals("-") ? Optional.of(f[4]) : Optional.empty();
                    Subscription s = new Subscription(topics, null, Collections.emptyList(), -1, rack);
                    s.setGroupInstanceId(f[2].equals("-") ? Optional.empty() : Optional.of(f[2]));
                    subscriptions.put(f[1], s);
                    break;
                case "end":
                    ConsumerPartitionAssignor assignor =
                        algo.equals("range") ? new RangeAssignor() : new RoundRobinAssignor();
                    Cluster cluster = new Cluster("c", new ArrayList<>(nodes.values()), partitions,
                        new HashSet<>(), new HashSet<>());
                    Map<String, ConsumerPartitionAssignor.Assignment> result =
                        assignor.assign(cluster, new GroupSubscription(subscriptions)).groupAssignment();
                    for (Map.Entry<String, ConsumerPartitionAssignor.Assignment> e : new TreeMap<>(result).entrySet())
                        out.println("member " + e.getKey() + " " + join(e.getValue().partitions()));
                    out.println("end");
                    break;
                case "userdata":
                    byte[] bytes = f.length > 1 ? hex(f[1]) : new byte[0];
                    StickyProbe probe = new StickyProbe();
                    var data = probe.parse(bytes);
                    out.println("owned " + join(data.partitions) + " generation "
                        + data.generation.map(String::valueOf).orElse("-"));
                    break;
                default:
                    throw new IllegalArgumentException("bad line: " + line);
            }
        }
        out.flush();
    }

    private static Node[] replicas(String racks, Map<String, Node> nodes) {
        if (racks.equals("-"))
            return new Node[0];
        String[] names = racks.split("\\+");
        Node[] replicas = new Node[names.length];
        for (int i = 0; i < names.length; i++) {
            String rack = names[i];
            replicas[i] = nodes.computeIfAbsent(rack, r -> new Node(nodes.size(), "broker-" + r, 9092, r));
        }
        return replicas;
    }

    private static String join(List<TopicPartition> tps) {
        if (tps.isEmpty())
            return "-";
        StringBuilder b = new StringBuilder();
        for (TopicPartition tp : tps) {
            if (b.length() > 0)
                b.append(',');
            b.append(tp.topic()).append(':').append(tp.partition());
        }
        return b.toString();
    }

    private static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++)
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }
}
