package dev.vfskit.flink;

import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.configuration.Configuration;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * When the keyed operator's RocksDB compacts (the harness's --compaction). Which files an
 * incremental checkpoint shares with older ones depends on it, so tests that need a file only
 * older checkpoints reference pick it instead of RocksDB's timing:
 * <ul>
 *   <li>AUTO: RocksDB's own background compaction (Flink's defaults);</li>
 *   <li>EVERY_CHECKPOINT: before each snapshot of its state, the keyed operator compacts every
 *       column family fully and waits for it, so each checkpoint's SST files are new ones and
 *       no later checkpoint references an older checkpoint's (of state that changed);</li>
 *   <li>NEVER: no compaction at all (compaction style NONE), so every SST file a restored job
 *       started from stays in its checkpoints.</li>
 * </ul>
 */
enum Compaction {
    AUTO,
    EVERY_CHECKPOINT,
    NEVER;

    /** The mode a --compaction value names. */
    static Compaction parse(String v) throws Harness.Usage {
        switch (v) {
            case "auto":
                return AUTO;
            case "every-checkpoint":
                return EVERY_CHECKPOINT;
            case "never":
                return NEVER;
            default:
                throw new Harness.Usage("--compaction " + v + ": want auto, every-checkpoint or never");
        }
    }

    /** Sets what the mode needs in the job's configuration. */
    void configure(Configuration conf) {
        if (this == NEVER) {
            Harness.set(conf, "NONE", "state.backend.rocksdb.compaction.style");
        }
    }

    /**
     * Compacts every column family of the RocksDB behind ctx's keyed state and waits for it
     * (compactRange flushes the memtables first). Reaches the backend by reflection: Flink has
     * no public way to it, and its fields (db, kvStateInformation) are named alike in 1.18 to 2.x.
     */
    static void compactAll(RuntimeContext ctx) throws Exception {
        Object backend = find(ctx, "RocksDBKeyedStateBackend");
        if (backend == null) {
            throw new IllegalStateException("--compaction every-checkpoint: no RocksDB keyed state backend behind "
                    + ctx.getClass().getName());
        }
        RocksDB db = (RocksDB) field(backend, "db");
        int n = 0;
        for (Object info : ((Map<?, ?>) field(backend, "kvStateInformation")).values()) {
            db.compactRange((ColumnFamilyHandle) field(info, "columnFamilyHandle"));
            n++;
        }
        Harness.log("compacted " + n + " column families");
    }

    /** The first object reachable from root (Flink's own fields, breadth first) whose class is named simpleName. */
    private static Object find(Object root, String simpleName) throws IllegalAccessException {
        ArrayDeque<Object> queue = new ArrayDeque<>();
        Map<Object, Boolean> seen = new IdentityHashMap<>();
        queue.add(root);
        for (int visited = 0; !queue.isEmpty() && visited < 10_000; visited++) {
            Object o = queue.poll();
            if (seen.put(o, Boolean.TRUE) != null) {
                continue;
            }
            for (Class<?> k = o.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
                if (k.getSimpleName().equals(simpleName)) {
                    return o;
                }
            }
            if (!o.getClass().getName().startsWith("org.apache.flink.")) {
                continue;
            }
            for (Class<?> k = o.getClass(); k != null && k != Object.class; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    f.setAccessible(true);
                    Object v = f.get(o);
                    if (v != null) {
                        queue.add(v);
                    }
                }
            }
        }
        return null;
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        for (Class<?> k = o.getClass(); k != null; k = k.getSuperclass()) {
            try {
                Field f = k.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(o.getClass().getName() + "." + name);
    }
}
