// Package opstate reads the operator state of Flink checkpoints and
// savepoints, decodes the positions of FLIP-27 sources in it, and writes a
// copy of a savepoint with those positions changed.
//
// # Operator state
//
// Flink's metadata records, per subtask, an OperatorStreamStateHandle: a
// stream (inline in the metadata, or a file) and per named state its
// distribution mode and the offset of each of its entries in the stream.
// Read cuts each stream at those offsets: an entry runs from its offset to
// the next offset of any state of the stream (or the stream's end), which is
// exactly the bytes the state's serializer wrote for one list element (for a
// broadcast state, for the whole map).
//
// # Source positions
//
// A FLIP-27 source operator keeps its readers' splits in the list state
// "SourceReaderState": each entry is a byte array (an int length and the
// bytes) holding SimpleVersionedSerialization's form of a split (int
// serializer version, int length, the serializer's bytes). The split
// decoders follow each serializer's own format:
//   - flink-connector-kafka's KafkaPartitionSplitSerializer, version 0:
//     writeUTF topic, int partition, long starting offset, long stopping
//     offset (Long.MIN_VALUE for none);
//   - Flink's NumberSequenceSource split serializer, version 1: writeUTF id,
//     long from (the next number emitted), long to;
//   - Flink's FileSourceSplitSerializer, version 1, in both layouts Flink
//     wrote under it: writeUTF id, the path (Path.write: a presence boolean,
//     the URI's scheme, user info and host as nullable Flink strings, int
//     port, path, query and fragment), long offset and length, from Flink
//     1.14 on long modification time and file size, the host names (int
//     count, writeUTF each), and the reader position (a presence boolean,
//     long offset, long records after it).
//
// The source coordinator's state (the operator's coordinator state) is
// Flink's SourceCoordinator form: int serde version (0 or 1), int enumerator
// serializer version, int length, the enumerator checkpoint. Its decoders:
// the KafkaSource enumerator, versions 0 (the split assignment per reader,
// flink-connector-base's SerdeUtils form), 1 (the assigned partitions), 2
// (each partition's assignment status and whether the initial discovery
// finished) and 3 (the same with each partition's whole split); the number
// sequence enumerator, version 1 (the splits not yet assigned).
//
// Nothing in these bytes names the serializer: a decoder is taken only when
// it reads the bytes to their end and encoding the result again gives the
// same bytes. Bytes no decoder reads that way stay bytes with their
// serializer's version (ErrUnknownSerializer); they are never an error of
// Read. Every count and length is checked against the bytes left before
// anything is allocated for it, so hostile bytes cost no more memory than
// their own size.
//
// # Rewriting
//
// SetOffsets writes a copy of a savepoint whose splits resume elsewhere:
// each changed split is encoded again in its serializer's version, the
// entries of its stream are laid end to end again (the offsets of those
// after it move by the change in length), and the stream goes back where it
// was, inline in the metadata or as its file in the copy. Nothing else
// changes, which the read-back at the end checks entry by entry.
//
// Snapshot compression of operator state (execution.checkpointing
// .snapshot-compression) is not read: compressed entries show as bytes that
// no decoder reads.
package opstate
