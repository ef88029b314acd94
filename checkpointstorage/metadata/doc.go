// Package metadata is the model of a checkpoint's or savepoint's _metadata
// file and its two codecs: Apache Flink's format and vfskit's own.
//
// # One model, two formats
//
// Metadata is Flink's CheckpointMetadata: the checkpoint id, the master
// states, the operators (16-byte operator id, name and uid from Flink 2.1's
// version 5 on, parallelism, max parallelism, coordinator state, fully
// finished) and per subtask the four state slots (managed and raw operator
// state with the offsets and distribution mode of each state name, managed and
// raw keyed state with their key-group range and offsets), the channel state
// of unaligned checkpoints, finished subtasks, and from version 4 on the
// checkpoint properties (checkpoint or savepoint, canonical or native).
// Handles are plain data, one Go type per Flink class (ByteStreamStateHandle,
// FileStateHandle, RelativeFileStateHandle, KeyGroupsStateHandle,
// IncrementalRemoteKeyedStateHandle, the changelog handles, ...).
//
// vfskit's own format records a subset of the same tree — per subtask a list
// of stream handles (inline, file, relative file) in Subtask.Handles — plus the
// job id and the time. Decode tells the formats apart by their magic number:
// 0x4960672d is Flink's, "VFKC" vfskit's.
//
// # Flink's format
//
// A big-endian int magic number and int version (Flink's Checkpoints), then
// the body of MetadataV2V3SerializerBase and MetadataV2Serializer to
// MetadataV7Serializer: version 2 (Flink 1.3 to 1.10), 3 (1.11 to 1.15:
// coordinator state, finished operators and subtasks, channel state), 4 (1.16
// to 2.0: the body of 3 followed by the Java-serialized CheckpointProperties),
// 5 (2.1: operator name and uid), 6 (merged channel state handles, a type
// byte per channel handle) and 7 (a reference checkpoint id per subtask).
// Strings are Java's modified UTF-8 (writeUTF). Handles are tagged: 0 null, 1
// byte stream, 2 file, 3 key groups, 4 operator stream, 5 incremental, 6
// relative file, 7 savepoint key groups, 8 changelog backend, 9 in-memory
// changelog, 10 changelog file increment, 11 incremental v2, 12 key groups v2,
// 13 changelog file increment v2, 14 changelog backend v2, 15 segment file,
// 16 empty segment file, 17 file-merging operator stream. Every tag decodes;
// an unknown one, or one where Flink does not allow it, is an error naming the
// tag and its byte offset.
//
// Decode reads versions 2 to 7 to the last byte (trailing bytes are an error)
// and accepts only what Flink's serializers write, so that Encode gives the
// identical bytes back: decode then encode is the identity on every real file
// the tests know (195 files written by Flink 1.3 to 2.1). Versions 6 and 7,
// of which no real file was found, and tags 10, 13, 15, 16 and 17, which no
// real file uses, are tested with files built by the encoder and by hand.
//
// # File merging (tags 15 to 17)
//
// Flink 1.20's checkpoint file merging (FLIP-306) added three handles. Their
// layout was checked against the source of Flink's MetadataV2V3SerializerBase
// as it stands on apache/flink's main branch at commit ffbd501375a5 (after
// Flink 2.1: it already has the channel state types of version 6), and
// against the classes SegmentFileStateHandle, EmptySegmentFileStateHandle,
// FileMergingOperatorStreamStateHandle,
// EmptyFileMergingOperatorStreamStateHandle and CheckpointedStateScope:
//   - 15, SegmentFileStateHandle, a stream handle wherever one may stand: long
//     start position, long size, int scope ordinal (0 EXCLUSIVE, 1 SHARED),
//     the physical file's path and the logical file id (writeUTF each);
//   - 16, EmptySegmentFileStateHandle, a stream handle: the tag alone;
//   - 17, FileMergingOperatorStreamStateHandle, only in the two operator state
//     slots: the named states as for tag 4, then the task-owned and the
//     shared directory's paths (writeUTF each; their sizes are not written),
//     a boolean that marks EmptyFileMergingOperatorStreamStateHandle (which
//     Flink creates with no states and an EmptySegmentFileStateHandle), and
//     the delegate, which Flink's reader requires to be a tag 15 or 16
//     handle.
//
// What was not checked: no _metadata file that Flink wrote with these tags
// was available, so the layout rests on that one version of the source; and
// the release branches of Flink 1.20 to 2.1 were not read. The handles and
// the empty flag came with FLINK-32079 (pull request 24480) and FLINK-34668
// (pull request 24513) in March 2024, before Flink 1.20.0, but that those
// releases write exactly these bytes is inferred, not seen.
//
// # vfskit's format, and which one the storage writes
//
// vfskit's checkpoint storage (package checkpointstorage) writes vfskit's
// format: it carries a CRC-32C over the whole file and announces its length
// in the header, so a truncated, torn or bit-flipped _metadata is detected
// and never half-loaded, which Flink's format cannot promise (it has neither
// length nor checksum, and its tail is a Java object). Flink's format is read
// so that checkpoints and savepoints Flink wrote can be inspected, verified,
// moved and retained safely, and written back (Encode in the version it was
// read) when such a file is rewritten.
//
// # Bounds
//
// The decoders trust no length. Every count and size is checked against the
// bytes left before anything is allocated for it (a 4 GiB length in a 100-byte
// file is an error at once, having allocated nothing), handles may nest at
// most 16 deep, and every slice, string, byte copy and handle the decoder
// builds is counted against a budget of 4 × the file's size + 512 KiB: a file
// whose model would outgrow it is refused as corrupt. Decoding therefore
// allocates at most about 4 × the input + 1 MiB, whatever the input (the fuzz
// targets check exactly that on every input). Real files stay well inside:
// Flink's take 1 to 2 × their size once past a few kilobytes, vfskit's up to
// about 3 ×. What the budget refuses are files shaped only to cost memory,
// such as a million empty vfskit subtasks.
//
// Decode also accepts only what Flink's and vfskit's writers produce (Java's
// modified UTF-8 exactly as writeUTF writes it, subtasks by ascending index,
// presence flags of 0 or 1, ...), which is what makes decode then encode the
// identity.
package metadata
