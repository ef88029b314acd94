package dev.vfskit.flink;

import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.memory.DataInputViewStreamWrapper;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.OperatorBackendSerializationProxy;
import org.apache.flink.runtime.state.OperatorStateHandle;
import org.apache.flink.runtime.state.RegisteredBroadcastStateBackendMetaInfo;
import org.apache.flink.runtime.state.RegisteredOperatorStateBackendMetaInfo;
import org.apache.flink.runtime.state.metainfo.StateMetaInfoSnapshot;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Flink's own reading of operator state: for every OperatorStateHandle of every subtask, the
 * stream's header (OperatorBackendSerializationProxy) gives each state's serializer, restored
 * from the snapshot; each entry is what that serializer reads from the entry's offset (a list
 * element; for a broadcast state, its size and every key and value), as the bytes it read.
 */
final class StateDescribe {
    private StateDescribe() {}

    /** {"operators":[{"id","states":[{"name","mode","subtasks":[{"index","entries":[base64]}]}]}]} */
    static String json(CheckpointMetadata md) throws Exception {
        ClassLoader cl = StateDescribe.class.getClassLoader();
        Json j = new Json().begin().key("operators").beginArray();
        for (OperatorState op : md.getOperatorStates()) {
            // name -> mode, and name -> subtask -> entries
            Map<String, String> modes = new TreeMap<>();
            Map<String, TreeMap<Integer, List<byte[]>>> states = new TreeMap<>();
            for (Map.Entry<Integer, OperatorSubtaskState> e : op.getSubtaskStates().entrySet()) {
                for (OperatorStateHandle h : e.getValue().getManagedOperatorState()) {
                    read(h, cl, e.getKey(), modes, states);
                }
            }
            j.begin().key("id").value(op.getOperatorID().toHexString()).key("states").beginArray();
            for (Map.Entry<String, TreeMap<Integer, List<byte[]>>> s : states.entrySet()) {
                j.begin().key("name").value(s.getKey()).key("mode").value(modes.get(s.getKey())).key("subtasks").beginArray();
                for (Map.Entry<Integer, List<byte[]>> sub : s.getValue().entrySet()) {
                    j.begin().key("index").value(sub.getKey()).key("entries").beginArray();
                    for (byte[] b : sub.getValue()) {
                        j.value(Base64.getEncoder().encodeToString(b));
                    }
                    j.endArray().end();
                }
                j.endArray().end();
            }
            j.endArray().end();
        }
        return j.endArray().end().toString();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void read(OperatorStateHandle h, ClassLoader cl, int subtask, Map<String, String> modes,
            Map<String, TreeMap<Integer, List<byte[]>>> states) throws Exception {
        try (FSDataInputStream in = h.openInputStream()) {
            DataInputViewStreamWrapper view = new DataInputViewStreamWrapper(in);
            OperatorBackendSerializationProxy proxy = new OperatorBackendSerializationProxy(cl);
            proxy.read(view);
            Map<String, TypeSerializer<?>> lists = new HashMap<>();
            for (StateMetaInfoSnapshot s : proxy.getOperatorStateMetaInfoSnapshots()) {
                lists.put(s.getName(), new RegisteredOperatorStateBackendMetaInfo<>(s).getPartitionStateSerializer());
            }
            Map<String, RegisteredBroadcastStateBackendMetaInfo<?, ?>> broadcast = new HashMap<>();
            for (StateMetaInfoSnapshot s : proxy.getBroadcastStateMetaInfoSnapshots()) {
                broadcast.put(s.getName(), new RegisteredBroadcastStateBackendMetaInfo<>(s));
            }
            for (Map.Entry<String, OperatorStateHandle.StateMetaInfo> e : h.getStateNameToPartitionOffsets().entrySet()) {
                String name = e.getKey();
                modes.put(name, e.getValue().getDistributionMode().name());
                List<byte[]> entries = new ArrayList<>();
                for (long off : e.getValue().getOffsets()) {
                    in.seek(off);
                    RegisteredBroadcastStateBackendMetaInfo b = broadcast.get(name);
                    if (b != null) {
                        int n = view.readInt();
                        for (int i = 0; i < n; i++) {
                            b.getKeySerializer().deserialize(view);
                            b.getValueSerializer().deserialize(view);
                        }
                    } else {
                        TypeSerializer ser = lists.get(name);
                        if (ser == null) {
                            throw new IllegalStateException("state " + name + " has no serializer in its stream's header");
                        }
                        ser.deserialize(view);
                    }
                    long end = in.getPos();
                    byte[] bytes = new byte[(int) (end - off)];
                    in.seek(off);
                    view.readFully(bytes);
                    entries.add(bytes);
                }
                states.computeIfAbsent(name, k -> new TreeMap<>()).put(subtask, entries);
            }
        }
    }
}
