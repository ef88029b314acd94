package dev.vfskit.flink;

import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.StreamStateHandle;

import java.io.DataInputStream;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Flink's own reading of a _metadata file: Checkpoints.loadCheckpointMetadata, then a walk over
 * the handles it built that collects the path of every file-backed stream handle.
 */
final class Describe {
    private Describe() {}

    /** Loads the metadata at uri (a checkpoint or savepoint directory, or its _metadata file). */
    static CheckpointMetadata load(String uri) throws Exception {
        Path p = new Path(uri);
        FileSystem fs = p.getFileSystem();
        Path file = p;
        if (!p.getName().equals("_metadata") || fs.getFileStatus(p).isDir()) {
            file = new Path(p, "_metadata");
        }
        String pointer = file.getParent().toString();
        try (FSDataInputStream in = fs.open(file)) {
            return Checkpoints.loadCheckpointMetadata(new DataInputStream(in), Describe.class.getClassLoader(), pointer);
        }
    }

    /**
     * Times Flink's decoding of the _metadata at uri from memory, warm: after untimed rounds
     * (three, and at least five seconds of decoding, for the JIT), rounds of iterations decodes each. Returns {"nsPerDecode": [one per round]}.
     */
    static String benchDecode(String uri, int iterations, int rounds) throws Exception {
        Path p = new Path(uri);
        FileSystem fs = p.getFileSystem();
        Path file = p.getName().equals("_metadata") ? p : new Path(p, "_metadata");
        byte[] data;
        try (FSDataInputStream in = fs.open(file)) {
            data = in.readAllBytes();
        }
        String pointer = file.getParent().toString();
        ClassLoader cl = Describe.class.getClassLoader();
        Json j = new Json().begin().key("nsPerDecode").beginArray();
        long sink = 0;
        long warmUntil = System.nanoTime() + 5_000_000_000L;
        for (int w = 0; w < 3 || System.nanoTime() < warmUntil; w++) {
            for (int i = 0; i < iterations; i++) {
                sink += Checkpoints.loadCheckpointMetadata(
                        new DataInputStream(new java.io.ByteArrayInputStream(data)), cl, pointer).getOperatorStates().size();
            }
        }
        for (int r = 0; r < rounds; r++) {
            long start = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                CheckpointMetadata md = Checkpoints.loadCheckpointMetadata(
                        new DataInputStream(new java.io.ByteArrayInputStream(data)), cl, pointer);
                sink += md.getOperatorStates().size();
            }
            long ns = (System.nanoTime() - start) / iterations;
            j.value(ns);
        }
        return j.endArray().key("checksum").value(sink).end().toString();
    }

    /** The describe JSON of md. */
    static String json(CheckpointMetadata md) throws Exception {
        Json j = new Json();
        j.begin().key("checkpointId").value(md.getCheckpointId()).key("operators").beginArray();
        for (OperatorState op : md.getOperatorStates()) {
            j.begin()
                    .key("id").value(op.getOperatorID().toHexString())
                    .key("parallelism").value(op.getParallelism())
                    .key("maxParallelism").value(op.getMaxParallelism())
                    .key("subtaskStates").value(op.getSubtaskStates().size())
                    .end();
        }
        j.endArray().key("files").beginArray();
        for (String f : files(md)) {
            j.value(f);
        }
        return j.endArray().end().toString();
    }

    /** Every file the metadata references, as Flink's Path prints it, sorted. */
    static Set<String> files(CheckpointMetadata md) throws Exception {
        Set<String> out = new TreeSet<>();
        walk(md.getOperatorStates(), new IdentityHashMap<>(), out, new TreeSet<>());
        return out;
    }

    /** The simple names of the classes of every state handle in md. */
    static Set<String> handleClasses(CheckpointMetadata md) throws Exception {
        Set<String> classes = new TreeSet<>();
        walk(md.getOperatorStates(), new IdentityHashMap<>(), new TreeSet<>(), classes);
        return classes;
    }

    private static void walk(Object o, Map<Object, Boolean> seen, Set<String> out, Set<String> classes) throws Exception {
        if (o == null || o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof Enum
                || o instanceof Class || seen.put(o, Boolean.TRUE) != null) {
            return;
        }
        if (o instanceof Collection) {
            for (Object e : new ArrayList<>((Collection<?>) o)) {
                walk(e, seen, out, classes);
            }
            return;
        }
        if (o instanceof Map) {
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                walk(e.getKey(), seen, out, classes);
                walk(e.getValue(), seen, out, classes);
            }
            return;
        }
        if (o instanceof Optional) {
            walk(((Optional<?>) o).orElse(null), seen, out, classes);
            return;
        }
        Class<?> c = o.getClass();
        if (c.isArray()) {
            if (!c.getComponentType().isPrimitive()) {
                for (int i = 0; i < Array.getLength(o); i++) {
                    walk(Array.get(o, i), seen, out, classes);
                }
            }
            return;
        }
        if (!c.getName().startsWith("org.apache.flink.")) {
            return;
        }
        if (o instanceof org.apache.flink.runtime.state.StateObject) {
            classes.add(c.getSimpleName());
        }
        // File merging's placeholder for empty state names the file "empty", which Flink never opens.
        if (o instanceof StreamStateHandle && !c.getSimpleName().equals("EmptySegmentFileStateHandle")) {
            Path p = filePath(o);
            if (p != null) {
                out.add(p.toString());
            }
        }
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive() || f.getType() == Path.class) {
                    continue;
                }
                f.setAccessible(true);
                walk(f.get(o), seen, out, classes);
            }
        }
    }

    /** The file of a file-backed stream handle (FileStateHandle and its kin, file-merging segments); null otherwise. */
    private static Path filePath(Object handle) {
        try {
            Method m = handle.getClass().getMethod("getFilePath");
            if (m.getReturnType() == Path.class) {
                return (Path) m.invoke(handle);
            }
        } catch (ReflectiveOperationException e) {
            // not a file handle
        }
        return null;
    }
}
