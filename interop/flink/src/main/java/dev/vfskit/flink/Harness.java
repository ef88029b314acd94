package dev.vfskit.flink;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The harness's command line (see interop/flink/flink): write, restore and describe, for the
 * Flink version this build was compiled against. Standard output carries only the one JSON
 * object; everything else goes to standard error.
 */
public final class Harness {
    private static final String USAGE = "usage: flink VERSION write --dir URI [--backend hashmap|rocksdb|rocksdb-incremental]"
            + " [--checkpoints N] [--retain N] [--savepoint canonical|native] [--unaligned] [--file-merging] [--parallelism P]"
            + " [--compaction auto|every-checkpoint|never] [--source sequence]\n"
            + "       flink VERSION restore --from URI [--dir URI] [--claim-mode claim|no-claim] [--checkpoints N]"
            + " [--compaction auto|every-checkpoint|never] [--print-resume]\n"
            + "       flink VERSION describe URI [--state]";

    private static final long START = System.nanoTime();

    private Harness() {}

    /** Notes a step on standard error with the time since the start. */
    static void log(String msg) {
        System.err.printf("flink: %6d ms %s%n", (System.nanoTime() - START) / 1_000_000, msg);
    }

    public static void main(String[] args) throws Exception {
        PrintStream stdout = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        System.setOut(System.err); // Flink and RocksDB print nothing on our standard output
        int code;
        try {
            code = run(args, stdout);
        } catch (Usage e) {
            System.err.println("flink: " + e.getMessage());
            System.err.println(USAGE);
            code = 2;
        } catch (Exception e) {
            System.err.println("flink: " + e);
            e.printStackTrace(System.err);
            code = 1;
        }
        stdout.flush();
        System.exit(code);
    }

    static final class Usage extends Exception {
        Usage(String msg) {
            super(msg);
        }
    }

    private static int run(String[] args, PrintStream stdout) throws Exception {
        if (args.length == 0) {
            throw new Usage("no command given");
        }
        String cmd = args[0];
        Map<String, String> flags = new HashMap<>();
        List<String> positional = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--unaligned") || a.equals("--file-merging") || a.equals("--print-resume") || a.equals("--state")) {
                flags.put(a, "true");
            } else if (a.startsWith("--")) {
                int eq = a.indexOf('=');
                if (eq > 0) {
                    flags.put(a.substring(0, eq), a.substring(eq + 1));
                } else if (i + 1 < args.length) {
                    flags.put(a, args[++i]);
                } else {
                    throw new Usage("flag " + a + " needs a value");
                }
            } else {
                positional.add(a);
            }
        }
        Configuration conf = baseConfiguration();
        FileSystem.initialize(conf, null);
        switch (cmd) {
            case "describe":
                boolean state = flags.remove("--state") != null;
                if (positional.size() != 1 || !flags.isEmpty()) {
                    throw new Usage("describe takes exactly one URI (and --state)");
                }
                CheckpointMetadata md = Describe.load(positional.get(0));
                stdout.println(state ? StateDescribe.json(md) : Describe.json(md));
                return 0;
            case "bench-decode":
                if (positional.size() != 3 || !flags.isEmpty()) {
                    throw new Usage("bench-decode takes URI ITERATIONS ROUNDS");
                }
                stdout.println(Describe.benchDecode(positional.get(0), Integer.parseInt(positional.get(1)),
                        Integer.parseInt(positional.get(2))));
                return 0;
            case "write":
                return write(conf, flags, positional, stdout);
            case "restore":
                return restore(conf, flags, positional, stdout);
            default:
                throw new Usage("unknown command " + cmd);
        }
    }

    private static void only(Map<String, String> flags, List<String> positional, String... allowed) throws Usage {
        if (!positional.isEmpty()) {
            throw new Usage("unexpected argument " + positional.get(0));
        }
        outer:
        for (String f : flags.keySet()) {
            for (String a : allowed) {
                if (a.equals(f)) {
                    continue outer;
                }
            }
            throw new Usage("unknown flag " + f);
        }
    }

    private static int intFlag(Map<String, String> flags, String name, int def) throws Usage {
        String v = flags.get(name);
        if (v == null) {
            return def;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new Usage(name + " " + v + ": want a positive whole number");
        }
    }

    /** Sets key to value under every name the Flink versions we build know it by. */
    static void set(Configuration conf, String value, String... keys) {
        for (String k : keys) {
            conf.set(ConfigOptions.key(k).stringType().noDefaultValue(), value);
        }
    }

    /** The configuration every run shares: S3 from the environment, no restarts, small state in files. */
    private static Configuration baseConfiguration() {
        Configuration conf = new Configuration();
        String endpoint = firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
        if (endpoint != null) {
            set(conf, endpoint, "s3.endpoint");
            set(conf, "true", "s3.path.style.access");
            set(conf, endpoint.startsWith("https:") ? "true" : "false", "s3.connection.ssl.enabled");
        }
        String key = System.getenv("AWS_ACCESS_KEY_ID");
        String secret = System.getenv("AWS_SECRET_ACCESS_KEY");
        if (key != null && secret != null) {
            set(conf, key, "s3.access-key");
            set(conf, secret, "s3.secret-key");
        }
        String region = firstEnv("AWS_REGION", "AWS_DEFAULT_REGION");
        set(conf, region == null ? "us-east-1" : region, "s3.endpoint.region");
        set(conf, "none", "restart-strategy.type", "restart-strategy");
        // State of 100 bytes and more goes into files, so checkpoints reference files of every kind.
        set(conf, "100b", "state.storage.fs.memory-threshold", "execution.checkpointing.data-inline-threshold");
        set(conf, "false", "rest.enable", "web.submit.enable");
        // The MiniCluster's REST endpoint on any free port: harness runs side by side do not collide on 8081.
        set(conf, "0", "rest.bind-port");
        return conf;
    }

    private static String firstEnv(String... names) {
        for (String n : names) {
            String v = System.getenv(n);
            if (v != null && !v.isEmpty()) {
                return v;
            }
        }
        return null;
    }

    private static String trimSlash(String uri) {
        while (uri.endsWith("/") && !uri.endsWith("://")) {
            uri = uri.substring(0, uri.length() - 1);
        }
        return uri;
    }

    private static int write(Configuration conf, Map<String, String> flags, List<String> positional, PrintStream stdout) throws Exception {
        only(flags, positional, "--dir", "--backend", "--checkpoints", "--retain", "--savepoint", "--unaligned",
                "--file-merging", "--parallelism", "--compaction", "--source");
        String source = flags.get("--source");
        if (source != null && !source.equals("sequence")) {
            throw new Usage("--source " + source + ": want sequence");
        }
        String dir = flags.get("--dir");
        if (dir == null) {
            throw new Usage("write needs --dir URI");
        }
        int n = intFlag(flags, "--checkpoints", 3);
        int retain = intFlag(flags, "--retain", n);
        int parallelism = intFlag(flags, "--parallelism", 2);
        String savepoint = flags.get("--savepoint");
        if (savepoint != null && !savepoint.equals("canonical") && !savepoint.equals("native")) {
            throw new Usage("--savepoint " + savepoint + ": want canonical or native");
        }
        String backend = flags.getOrDefault("--backend", "hashmap");
        switch (backend) {
            case "hashmap":
                set(conf, "hashmap", "state.backend.type");
                set(conf, "false", "state.backend.incremental", "execution.checkpointing.incremental");
                break;
            case "rocksdb":
                set(conf, "rocksdb", "state.backend.type");
                set(conf, "false", "state.backend.incremental", "execution.checkpointing.incremental");
                break;
            case "rocksdb-incremental":
                set(conf, "rocksdb", "state.backend.type");
                set(conf, "true", "state.backend.incremental", "execution.checkpointing.incremental");
                break;
            default:
                throw new Usage("--backend " + backend + ": want hashmap, rocksdb or rocksdb-incremental");
        }
        Compaction compaction = compaction(flags, !backend.equals("hashmap"));
        boolean unaligned = flags.containsKey("--unaligned");
        if (unaligned) {
            set(conf, "true", "execution.checkpointing.unaligned", "execution.checkpointing.unaligned.enabled");
            set(conf, "0 ms", "execution.checkpointing.aligned-checkpoint-timeout", "execution.checkpointing.alignment-timeout");
            set(conf, "true", "execution.checkpointing.unaligned.forced");
        }
        if (flags.containsKey("--file-merging")) {
            String version = org.apache.flink.runtime.util.EnvironmentInformation.getVersion();
            if (olderThan(version, 1, 20)) {
                throw new Usage("--file-merging: Flink " + version + " has no file merging (since Flink 1.20)");
            }
            set(conf, "true", "execution.checkpointing.file-merging.enabled", "state.checkpoints.file-merging.enabled");
        }
        Run r = new Run(conf, dir, retain, parallelism, unaligned, compaction, SavepointRestoreSettings.none());
        r.sequence = source != null;
        return r.checkpointing().checkpoints(n, savepoint, stdout);
    }

    private static int restore(Configuration conf, Map<String, String> flags, List<String> positional, PrintStream stdout) throws Exception {
        only(flags, positional, "--from", "--dir", "--claim-mode", "--checkpoints", "--compaction", "--print-resume");
        boolean printResume = flags.containsKey("--print-resume");
        String from = flags.get("--from");
        if (from == null) {
            throw new Usage("restore needs --from URI");
        }
        from = trimSlash(from);
        if (from.endsWith("/_metadata")) {
            from = from.substring(0, from.length() - "/_metadata".length());
        }
        String mode = flags.getOrDefault("--claim-mode", "no-claim");
        String flinkMode;
        switch (mode) {
            case "claim":
                flinkMode = "CLAIM";
                break;
            case "no-claim":
                flinkMode = "NO_CLAIM";
                break;
            default:
                throw new Usage("--claim-mode " + mode + ": want claim or no-claim");
        }
        // The backend, parallelism and checkpoint directory follow what is restored.
        org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata md = Describe.load(from);
        int parallelism = 1;
        for (org.apache.flink.runtime.checkpoint.OperatorState op : md.getOperatorStates()) {
            parallelism = Math.max(parallelism, op.getParallelism());
        }
        String name = new Path(from).getName();
        String dir = flags.get("--dir");
        if (dir == null) {
            dir = name.startsWith("chk-") ? parent(parent(from)) : parent(from);
        }
        boolean incremental = false;
        for (String c : Describe.handleClasses(md)) {
            if (c.contains("Incremental")) {
                incremental = true;
            }
        }
        boolean rocks = incremental;
        Compaction compaction = compaction(flags, rocks);
        set(conf, rocks ? "rocksdb" : "hashmap", "state.backend.type");
        set(conf, incremental ? "true" : "false", "state.backend.incremental", "execution.checkpointing.incremental");
        set(conf, from, "execution.savepoint.path", "execution.state-recovery.path");
        set(conf, flinkMode, "execution.savepoint-restore-mode", "execution.state-recovery.claim-mode");
        SavepointRestoreSettings restore = SavepointRestoreSettings.fromConfiguration(conf);
        int n = flags.containsKey("--checkpoints") ? intFlag(flags, "--checkpoints", 1) : 0;
        Run r = new Run(conf, dir, Math.max(n, 1), parallelism, false, compaction, restore);
        r.sequence = printResume;
        if (n > 0) {
            if (printResume) {
                throw new Usage("--print-resume runs the restored job to its end: not with --checkpoints");
            }
            return r.checkpointing().checkpoints(n, null, stdout);
        }
        return printResume ? r.toEndPrintingResume(stdout) : r.toEnd();
    }

    /** The --compaction mode, configured; rocks says whether the job's state is in RocksDB. */
    private static Compaction compaction(Map<String, String> flags, boolean rocks) throws Usage {
        String v = flags.get("--compaction");
        if (v == null) {
            return Compaction.AUTO;
        }
        Compaction c = Compaction.parse(v);
        if (!rocks) {
            throw new Usage("--compaction " + v + ": the job's state is not in RocksDB (want --backend rocksdb or rocksdb-incremental,"
                    + " or restoring an incremental RocksDB checkpoint)");
        }
        return c;
    }

    /** Whether Flink version v (major.minor...) is older than major.minor. */
    private static boolean olderThan(String v, int major, int minor) {
        String[] p = v.split("[.-]");
        int a = Integer.parseInt(p[0]), b = p.length > 1 ? Integer.parseInt(p[1]) : 0;
        return a < major || (a == major && b < minor);
    }

    private static String parent(String uri) {
        int i = trimSlash(uri).lastIndexOf('/');
        return i <= 0 ? uri : uri.substring(0, i);
    }

    /** One run of the reference job in a MiniCluster. */
    private static final class Run {
        private final Configuration conf;
        private final String dir;
        private final int parallelism;
        private final boolean slow;
        private final Compaction compaction;
        private final SavepointRestoreSettings restore;
        private boolean paced;
        /** Whether the job reads a SequenceSource instead of its data generator. */
        boolean sequence;

        Run(Configuration conf, String dir, int retain, int parallelism, boolean slow, Compaction compaction,
                SavepointRestoreSettings restore) {
            this.conf = conf;
            this.dir = trimSlash(dir);
            this.parallelism = parallelism;
            this.slow = slow;
            this.compaction = compaction;
            this.restore = restore;
            compaction.configure(conf);
            set(conf, "filesystem", "state.checkpoint-storage", "execution.checkpointing.storage");
            set(conf, this.dir, "state.checkpoints.dir", "execution.checkpointing.dir");
            set(conf, this.dir, "state.savepoints.dir", "execution.checkpointing.savepoint-dir");
            set(conf, Integer.toString(retain), "state.checkpoints.num-retained", "execution.checkpointing.num-retained");
            set(conf, "RETAIN_ON_CANCELLATION", "execution.checkpointing.externalized-checkpoint-retention");
            set(conf, "1", "execution.checkpointing.max-concurrent-checkpoints");
            set(conf, "10 min", "execution.checkpointing.timeout");
        }

        /**
         * Turns checkpointing on; the harness triggers each checkpoint itself, the periodic one
         * never comes. Without it (a run to the end) no checkpoint is taken, and finished tasks
         * wait for none.
         */
        Run checkpointing() {
            set(conf, "3650 d", "execution.checkpointing.interval");
            paced = true;
            return this;
        }


        private MiniCluster start() throws Exception {
            MiniClusterConfiguration mc = new MiniClusterConfiguration.Builder()
                    .setConfiguration(conf)
                    .setNumTaskManagers(1)
                    .setNumSlotsPerTaskManager(parallelism)
                    .build();
            MiniCluster cluster = new MiniCluster(mc);
            cluster.start();
            log("MiniCluster started");
            return cluster;
        }

        private JobGraph jobGraph() {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(parallelism);
            env.setMaxParallelism(128);
            ReferenceJob.build(env, paced, slow, compaction, sequence);
            log("checkpointing: unaligned " + env.getCheckpointConfig().isUnalignedCheckpointsEnabled()
                    + ", forced " + env.getCheckpointConfig().isForceUnalignedCheckpoints()
                    + ", interval " + env.getCheckpointConfig().getCheckpointInterval() + " ms");
            JobGraph g = env.getStreamGraph().getJobGraph();
            g.setSavepointRestoreSettings(restore);
            return g;
        }

        /** Takes n checkpoints (and a savepoint when asked), cancels the job and prints the JSON. */
        int checkpoints(int n, String savepoint, PrintStream stdout) throws Exception {
            try (MiniCluster cluster = start()) {
                JobGraph g = jobGraph();
                JobID id = g.getJobID();
                cluster.submitJob(g).get();
                waitRunning(cluster, id);
                log("job " + id + " running");
                List<String> taken = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    Thread.sleep(150); // the paced source's next records flow: new state in every checkpoint
                    taken.add(checkpoint(cluster, id));
                    log("checkpoint " + taken.get(taken.size() - 1));
                }
                String sp = null;
                if (savepoint != null) {
                    String path = cluster.triggerSavepoint(id, dir, false,
                            savepoint.equals("native") ? SavepointFormatType.NATIVE : SavepointFormatType.CANONICAL).get();
                    sp = dir + "/" + new Path(path).getName();
                }
                JobStatus st = cluster.getJobStatus(id).get();
                if (st != JobStatus.RUNNING) {
                    throw new IllegalStateException("the job is " + st + " after its checkpoints: the input ended too early");
                }
                cluster.cancelJob(id).get();
                cluster.requestJobResult(id).get();
                log("job cancelled");
                int retain = Integer.parseInt(conf.get(ConfigOptions.key("state.checkpoints.num-retained").stringType().noDefaultValue()));
                List<String> kept = retained(id, retain);
                List<String> expected = new ArrayList<>();
                for (String c : taken.subList(Math.max(0, taken.size() - retain), taken.size())) {
                    expected.add(new Path(c).getName());
                }
                if (!kept.equals(expected)) {
                    log("Flink retained " + kept + ", not the newest " + retain + " of the checkpoints it reported complete, "
                            + taken + " (a trigger that failed may have completed)");
                }
                Json j = new Json().begin().key("jobId").value(id.toHexString()).key("checkpoints").beginArray();
                for (String name : kept) {
                    j.value(dir + "/" + id.toHexString() + "/" + name);
                }
                j.endArray().key("savepoint").value(sp).end();
                stdout.println(j);
            }
            return 0;
        }

        /**
         * The names of the newest retain chk-N directories of job id that hold a _metadata, oldest
         * first: what Flink retained (an older one still there is being discarded).
         */
        private List<String> retained(JobID id, int retain) throws Exception {
            Path jobDir = new Path(dir + "/" + id.toHexString());
            java.util.TreeMap<Long, String> byId = new java.util.TreeMap<>();
            FileSystem fs = jobDir.getFileSystem();
            FileStatus[] children = fs.listStatus(jobDir);
            for (FileStatus st : children == null ? new FileStatus[0] : children) {
                String name = st.getPath().getName();
                if (st.isDir() && name.matches("chk-[0-9]+") && fs.exists(new Path(st.getPath(), "_metadata"))) {
                    byId.put(Long.parseLong(name.substring(4)), name);
                }
            }
            List<String> names = new ArrayList<>(byId.values());
            return names.subList(Math.max(0, names.size() - retain), names.size());
        }

        /**
         * Runs the restored job to the end of its input and prints where each split of its
         * SequenceSource resumed, {"splits":[{"id","first"}]}; exit status 0 only when every
         * split emitted each of its numbers from there on exactly once.
         */
        int toEndPrintingResume(PrintStream stdout) throws Exception {
            if (!runToEnd()) {
                return 1;
            }
            List<String> problems = new ArrayList<>();
            Json j = new Json().begin().key("splits").beginArray();
            for (Object[] s : ReferenceJob.resumed(problems)) {
                j.begin().key("id").value((String) s[0]).key("first").value((Long) s[1]).end();
            }
            stdout.println(j.endArray().end());
            for (String p : problems) {
                System.err.println("flink: wrong result: " + p);
            }
            return problems.isEmpty() ? 0 : 1;
        }

        /** Runs the job to the end of its input; false (the cause reported) when it failed. */
        private boolean runToEnd() throws Exception {
            try (MiniCluster cluster = start()) {
                JobGraph g = jobGraph();
                cluster.submitJob(g).get();
                log("job " + g.getJobID() + " submitted");
                JobResult res = cluster.requestJobResult(g.getJobID()).get();
                log("job ended");
                if (!res.isSuccess()) {
                    Throwable t = res.getSerializedThrowable().map(s -> (Throwable) s).orElse(null);
                    System.err.println("flink: the restored job failed: " + (t == null ? "no cause recorded" : t));
                    if (t != null) {
                        t.printStackTrace(System.err);
                    }
                    return false;
                }
            }
            log("MiniCluster stopped");
            return true;
        }

        /** Runs the job to the end of its input and checks its result against a run without failures. */
        int toEnd() throws Exception {
            if (!runToEnd()) {
                return 1;
            }
            List<String> problems = ReferenceJob.check();
            for (String p : problems) {
                System.err.println("flink: wrong result: " + p);
            }
            if (!problems.isEmpty()) {
                return 1;
            }
            System.err.println("flink: restored and ran to the end; every key's state and every operator's state is right");
            return 0;
        }

        private static void waitRunning(MiniCluster cluster, JobID id) throws Exception {
            for (int i = 0; i < 600; i++) {
                JobStatus st = cluster.getJobStatus(id).get();
                if (st == JobStatus.RUNNING) {
                    return;
                }
                if (st.isGloballyTerminalState()) {
                    throw new IllegalStateException("the job ended as " + st + " before it ran");
                }
                Thread.sleep(50);
            }
            throw new IllegalStateException("the job did not start running in 30 s");
        }

        /** Why the job id failed, as its result records it; otherwise. */
        private static Throwable failure(MiniCluster cluster, JobID id, Throwable otherwise) {
            try {
                Throwable t = cluster.requestJobResult(id).get().getSerializedThrowable()
                        .map(s -> s.deserializeError(Harness.class.getClassLoader())).orElse(null);
                return t == null ? otherwise : t;
            } catch (Exception e) {
                return otherwise;
            }
        }

        /** Triggers one checkpoint, retrying while the tasks are not all running yet. */
        private static String checkpoint(MiniCluster cluster, JobID id) throws Exception {
            Exception last = null;
            for (int attempt = 0; attempt < 100; attempt++) {
                try {
                    return cluster.triggerCheckpoint(id).get(10, TimeUnit.MINUTES);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (last == null || !String.valueOf(last.getCause()).equals(String.valueOf(e.getCause()))) {
                        log("checkpoint not taken, trying again: " + e.getCause());
                    }
                    last = e;
                    JobStatus st = cluster.getJobStatus(id).get();
                    if (st.isGloballyTerminalState()) {
                        throw new IllegalStateException("the job ended as " + st + " before its checkpoints", failure(cluster, id, e));
                    }
                    Thread.sleep(100);
                }
            }
            throw last;
        }
    }
}
