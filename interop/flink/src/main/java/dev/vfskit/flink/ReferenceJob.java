package dev.vfskit.flink;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.datastream.BroadcastStream;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.co.KeyedBroadcastProcessFunction;
import org.apache.flink.util.Collector;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference job: a rate-limited, bounded, deterministic source of the numbers 0..RECORDS-1
 * (its position is checkpointed), an operator with list and union state counting what it
 * passed, a stateless relay behind a rebalancing exchange (slow when asked, so that records are
 * in flight there), and a keyed operator with value, list and map state that also reads
 * broadcast state fed by a second bounded source. Everything that checks a run's result lives in this JVM
 * (the MiniCluster runs in it): the static fields below.
 */
final class ReferenceJob {
    /** How many numbers the main source emits; every run reads the same input. */
    static final long RECORDS = 5000;
    /**
     * While the harness takes checkpoints, the main source emits this many records (over all its
     * subtasks) per checkpoint, so the input outlasts any number of checkpoints below
     * RECORDS / PER_CHECKPOINT however slow the machine; a run to the end is not paced.
     */
    static final int PER_CHECKPOINT = 250;
    /** Keys: number % KEYS. */
    static final int KEYS = 8;
    /** Map state buckets: number % BUCKETS. */
    static final int BUCKETS = 5;
    /** The broadcast source's element count. */
    static final long RULES = 3;

    static final String SOURCE_UID = "numbers";
    static final String RULES_UID = "rules";
    static final String COUNTER_UID = "counter";
    static final String RELAY_UID = "relay";
    static final String KEYED_UID = "keyed";

    /** The state of each key when the input ended, written by the keyed operator. */
    static final Map<Long, String> RESULTS = new ConcurrentHashMap<>();
    /** Elements the counter operator processed in this run. */
    static final AtomicLong PROCESSED = new AtomicLong();
    /** The sum of the counter's list state that this run restored. */
    static final AtomicLong RESTORED_LIST = new AtomicLong();
    /** Per counter subtask, the sum of the union state it restored. */
    static final ConcurrentLinkedQueue<Long> RESTORED_UNION = new ConcurrentLinkedQueue<>();
    /** Whether the counter operator was restored from state at all. */
    static volatile boolean restored;
    /** How many times the counter operator saw each number in this run. */
    static final Map<Long, Integer> SEEN = new ConcurrentHashMap<>();

    private ReferenceJob() {}

    static final MapStateDescriptor<Long, Long> RULES_STATE =
            new MapStateDescriptor<>("rules", Types.LONG, Types.LONG);

    /**
     * Adds the job to env. paced gates the source by checkpoints (PER_CHECKPOINT); slow makes the
     * relay slower than the source, so records are in flight when a checkpoint is taken (channel
     * state, for unaligned checkpoints: the relay's input is a rebalancing exchange, where
     * unaligned barriers overtake records; the keyed operator's broadcast input keeps its
     * barriers aligned). compaction says when the keyed operator's RocksDB compacts.
     */
    static void build(StreamExecutionEnvironment env, boolean paced, boolean slow, Compaction compaction) {
        build(env, paced, slow, compaction, false);
    }

    /** As above; sequence reads the numbers from a SequenceSource instead of the data generator. */
    static void build(StreamExecutionEnvironment env, boolean paced, boolean slow, Compaction compaction, boolean sequence) {
        DataGeneratorSource<Long> rules = new DataGeneratorSource<>(new Identity(), RULES, Types.LONG);

        BroadcastStream<Long> broadcast = env.fromSource(rules, WatermarkStrategy.noWatermarks(), "rules")
                .uid(RULES_UID).setParallelism(1).broadcast(RULES_STATE);
        DataStreamSource<Long> numbers = sequence
                ? env.fromSource(new SequenceSource(paced), WatermarkStrategy.noWatermarks(), "numbers")
                : env.fromSource(new DataGeneratorSource<>(new Identity(), RECORDS,
                        paced ? RateLimiterStrategy.perCheckpoint(PER_CHECKPOINT) : RateLimiterStrategy.noOp(), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "numbers");
        DataStream<Long> counted = numbers
                .uid(SOURCE_UID)
                .map(new Counter()).uid(COUNTER_UID).name("counter")
                .rebalance().map(new Relay(slow)).uid(RELAY_UID).name("relay");
        counted.keyBy(new ByKey()).connect(broadcast).process(new Keyed(compaction))
                .uid(KEYED_UID).name("keyed");
    }

    /** The final state of every key that a run without failures produces, as Keyed records it. */
    static Map<Long, String> expected() {
        Map<Long, String> out = new TreeMap<>();
        for (long k = 0; k < KEYS; k++) {
            long count = 0, sum = 0;
            long[] buckets = new long[BUCKETS];
            for (long v = k; v < RECORDS; v += KEYS) {
                count++;
                sum += v;
                buckets[(int) (v % BUCKETS)] += v;
            }
            TreeMap<Long, Long> m = new TreeMap<>();
            for (int b = 0; b < BUCKETS; b++) {
                if (buckets[b] != 0 || hasBucket(k, b)) {
                    m.put((long) b, buckets[b]);
                }
            }
            out.put(k, describe(count, count, sum, m, RULES));
        }
        return out;
    }

    private static boolean hasBucket(long k, int b) {
        for (long v = k; v < RECORDS; v += KEYS) {
            if (v % BUCKETS == b) {
                return true;
            }
        }
        return false;
    }

    static String describe(long count, long listSize, long listSum, Map<Long, Long> buckets, long rules) {
        return "count=" + count + " list=" + listSize + "/" + listSum + " map=" + buckets + " broadcast=" + rules;
    }

    /** The generator: the number is its index. */
    static final class Identity implements GeneratorFunction<Long, Long> {
        @Override
        public Long map(Long index) {
            return index;
        }
    }

    static final class ByKey implements KeySelector<Long, Long> {
        @Override
        public Long getKey(Long v) {
            return v % KEYS;
        }
    }

    /** Passes numbers on and counts them in operator list state and union list state. */
    static final class Counter extends RichMapFunction<Long, Long> implements CheckpointedFunction {
        private transient ListState<Long> list;
        private transient ListState<Long> union;
        private long count;

        @Override
        public Long map(Long v) {
            count++;
            PROCESSED.incrementAndGet();
            SEEN.merge(v, 1, Integer::sum);
            return v;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            list.clear();
            list.add(count);
            union.clear();
            union.add(count);
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) throws Exception {
            list = ctx.getOperatorStateStore().getListState(new ListStateDescriptor<>("processed", Types.LONG));
            union = ctx.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>("processed-union", Types.LONG));
            if (!ctx.isRestored()) {
                return;
            }
            restored = true;
            for (Long c : list.get()) {
                count += c;
            }
            RESTORED_LIST.addAndGet(count);
            long all = 0;
            for (Long c : union.get()) {
                all += c;
            }
            RESTORED_UNION.add(all);
        }
    }

    /** Passes numbers on; when slow, 20 ms each, so that the source outpaces it. */
    static final class Relay extends RichMapFunction<Long, Long> {
        private final boolean slow;

        Relay(boolean slow) {
            this.slow = slow;
        }

        @Override
        public Long map(Long v) throws Exception {
            if (slow) {
                Thread.sleep(20);
            }
            return v;
        }
    }

    /** Keyed value, list and map state per number's key, and the broadcast rules. */
    static final class Keyed extends KeyedBroadcastProcessFunction<Long, Long, Long, Long> implements CheckpointedFunction {
        private final Compaction compaction;
        private transient ValueState<Long> count;
        private transient ListState<Long> values;
        private transient MapState<Long, Long> buckets;

        Keyed(Compaction compaction) {
            this.compaction = compaction;
        }

        @Override
        public void initializeState(FunctionInitializationContext ctx) {
            count = ctx.getKeyedStateStore().getState(new ValueStateDescriptor<>("count", Types.LONG));
            values = ctx.getKeyedStateStore().getListState(new ListStateDescriptor<>("values", Types.LONG));
            buckets = ctx.getKeyedStateStore().getMapState(new MapStateDescriptor<>("buckets", Types.LONG, Types.LONG));
        }

        /** Runs before the keyed state backend's snapshot of the same checkpoint. */
        @Override
        public void snapshotState(FunctionSnapshotContext ctx) throws Exception {
            if (compaction == Compaction.EVERY_CHECKPOINT) {
                Compaction.compactAll(getRuntimeContext());
            }
        }

        @Override
        public void processElement(Long v, ReadOnlyContext ctx, Collector<Long> out) throws Exception {
            Long c = count.value();
            long n = c == null ? 1 : c + 1;
            count.update(n);
            values.add(v);
            long bucket = v % BUCKETS;
            Long b = buckets.get(bucket);
            buckets.put(bucket, (b == null ? 0 : b) + v);

            // Fires when the input has ended (the final watermark), once per key, restored or not.
            ctx.timerService().registerEventTimeTimer(Long.MAX_VALUE - 1);
            out.collect(v);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext ctx, Collector<Long> out) throws Exception {
            long size = 0, sum = 0;
            for (Long x : values.get()) {
                size++;
                sum += x;
            }
            TreeMap<Long, Long> m = new TreeMap<>();
            for (Map.Entry<Long, Long> e : buckets.entries()) {
                m.put(e.getKey(), e.getValue());
            }
            ReadOnlyBroadcastState<Long, Long> rules = ctx.getBroadcastState(RULES_STATE);
            long r = 0;
            for (Map.Entry<Long, Long> e : rules.immutableEntries()) {
                r++;
            }
            Long c = count.value();
            RESULTS.put(ctx.getCurrentKey(), describe(c == null ? 0 : c, size, sum, m, r));
        }

        @Override
        public void processBroadcastElement(Long v, Context ctx, Collector<Long> out) throws Exception {
            BroadcastState<Long, Long> rules = ctx.getBroadcastState(RULES_STATE);
            rules.put(v, v * 10);
        }
    }

    /**
     * Where each split of the SequenceSource resumed in this run: per split that emitted anything,
     * {id, first number}; problems gets what is wrong (a number of the split from the first on
     * not seen exactly once, or one before it seen).
     */
    static List<Object[]> resumed(List<String> problems) {
        List<Object[]> out = new ArrayList<>();
        for (Object[] r : SequenceSource.ranges()) {
            long from = (Long) r[1], to = (Long) r[2];
            long first = -1;
            for (long v = from; v <= to; v++) {
                if (SEEN.containsKey(v)) {
                    first = v;
                    break;
                }
            }
            if (first < 0) {
                continue;
            }
            for (long v = first; v <= to; v++) {
                int n = SEEN.getOrDefault(v, 0);
                if (n != 1) {
                    problems.add("split " + r[0] + ": number " + v + " seen " + n + " times, want once (the split resumed at " + first + ")");
                    break;
                }
            }
            out.add(new Object[] {r[0], first});
        }
        for (Long v : SEEN.keySet()) {
            if (v < 0 || v >= RECORDS) {
                problems.add("number " + v + " is outside the sequence");
            }
        }
        return out;
    }

    /** What went wrong in a restored run, compared with a run without failures; empty when right. */
    static List<String> check() {
        List<String> problems = new ArrayList<>();
        Map<Long, String> want = expected();
        for (Map.Entry<Long, String> e : want.entrySet()) {
            String got = RESULTS.get(e.getKey());
            if (!e.getValue().equals(got)) {
                problems.add("key " + e.getKey() + ": got " + got + ", want " + e.getValue());
            }
        }
        if (!restored) {
            problems.add("the counter operator was not restored from state");
        }
        long total = RESTORED_LIST.get() + PROCESSED.get();
        if (total != RECORDS) {
            problems.add("counter list state: restored " + RESTORED_LIST.get() + " + processed " + PROCESSED.get()
                    + " = " + total + ", want " + RECORDS);
        }
        for (Long u : RESTORED_UNION) {
            if (u != RESTORED_LIST.get()) {
                problems.add("counter union state: a subtask restored " + u + ", the list state holds " + RESTORED_LIST.get());
            }
        }
        return problems;
    }
}
