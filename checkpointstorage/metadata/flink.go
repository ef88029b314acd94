package metadata

// Facts of Flink's format, from Flink's Checkpoints and MetadataV2..V7
// serializers.

// FlinkMagic is the number every Flink _metadata file starts with.
const FlinkMagic = 0x4960672d

// Versions of Flink's format this package reads and writes.
const (
	MinFlinkVersion = 2
	MaxFlinkVersion = 7
)

const masterStateMagic = 0xc96b1696

// Handle tags of MetadataV2V3SerializerBase.
const (
	tagNull                = 0
	tagByteStream          = 1
	tagFile                = 2
	tagKeyGroups           = 3
	tagOperatorStream      = 4
	tagIncremental         = 5
	tagRelative            = 6
	tagSavepointKeyGroups  = 7
	tagChangelog           = 8
	tagChangelogBytes      = 9
	tagChangelogFile       = 10
	tagIncrementalV2       = 11
	tagKeyGroupsV2         = 12
	tagChangelogFileV2     = 13
	tagChangelogV2         = 14
	tagSegmentFile         = 15
	tagEmptySegmentFile    = 16
	tagFileMergingOperator = 17
	maxTag                 = 17
)

// Channel handle types of ChannelStateHandleSerializerV2 (versions 6 and 7).
const (
	chanInput        = 1
	chanOutput       = 2
	chanMergedInput  = 3
	chanMergedOutput = 4
)

var tagNames = [maxTag + 1]string{
	"null", "ByteStreamStateHandle", "FileStateHandle", "KeyGroupsStateHandle",
	"OperatorStreamStateHandle", "IncrementalRemoteKeyedStateHandle", "RelativeFileStateHandle",
	"KeyGroupsSavepointStateHandle", "ChangelogStateBackendHandle", "InMemoryChangelogStateHandle",
	"ChangelogStateHandleStreamImpl", "IncrementalRemoteKeyedStateHandle (v2)", "KeyGroupsStateHandle (v2)",
	"ChangelogStateHandleStreamImpl (v2)", "ChangelogStateBackendHandle (v2)", "SegmentFileStateHandle",
	"EmptySegmentFileStateHandle", "FileMergingOperatorStreamStateHandle",
}

// maxNesting bounds how deep handles may nest (a key-groups handle around a
// stream handle, a changelog handle around keyed handles, ...), so a crafted
// file cannot recurse without end.
const maxNesting = 16

// isSegment reports whether h is a segment of a merged file, the only
// delegate Flink's deserializer accepts in a FileMergingOperatorStreamStateHandle.
func isSegment(h Handle) bool {
	switch unwrap(h).(type) {
	case *SegmentFileStateHandle, *EmptySegmentFileStateHandle:
		return !isNil(unwrap(h))
	}
	return false
}

// kindOrNull is KindName for errors: "null" for a nil handle.
func kindOrNull(h Handle) string {
	if isNil(h) {
		return "null"
	}
	return KindName(h)
}
