package checkpointstorage

// Names and limits with Flink's values.
const (
	// CheckpointDirPrefix prefixes the directory of each checkpoint: chk-<N>.
	CheckpointDirPrefix = "chk-"
	// SharedStateDir is the job's directory for state shared between checkpoints.
	SharedStateDir = "shared"
	// TaskOwnedStateDir is the job's directory for state owned by the tasks.
	TaskOwnedStateDir = "taskowned"
	// MetadataFileName is the name of a checkpoint's or savepoint's metadata file.
	MetadataFileName = "_metadata"
	// DefaultMaxStateSize is the default per-stream limit of the memory storage
	// (5 MiB); a zero maxStateSize means this value.
	DefaultMaxStateSize = 5 * 1024 * 1024
	// MaxFileStateThreshold is the largest fileStateThreshold FsCheckpointStorage
	// accepts (1 MiB).
	MaxFileStateThreshold = 1024 * 1024
	// DefaultWriteBufferSize is Flink's default write buffer size for state files.
	DefaultWriteBufferSize = 4096
	// DefaultEntropyLength is the number of random characters that replace the
	// entropy key when WithEntropyInjection gives no length (s3.entropy.length).
	DefaultEntropyLength = 4
	// NotExternallyAddressablePointer is the ExternalPointer of a checkpoint whose
	// metadata lives only in memory.
	NotExternallyAddressablePointer = "<checkpoint-not-externally-addressable>"

	savepointDirPrefix = "savepoint-"
	maxNameAttempts    = 10
)
