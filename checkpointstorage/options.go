package checkpointstorage

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// Option configures a storage (NewFsCheckpointStorage,
// NewMemoryBackendCheckpointStorage) or a helper that reads checkpoints
// (LoadCheckpoint, ResolveCheckpointPointer, ListCompletedCheckpoints, ...).
type Option func(*options)

type options struct {
	registry      *vfs.Registry
	entropyKey    string
	entropyLength int
	dryRun        bool
	mappings      []PathMapping
	eachJob       func(JobGC) error
	entropyBase   vfs.Path
	locs          *locations // canonical paths asked for (identity.go)
}

// WithRegistry makes file systems come from r instead of vfs's default registry.
// Handles created or loaded with this option open their files through r too.
func WithRegistry(r *vfs.Registry) Option {
	return func(o *options) { o.registry = r }
}

// WithEntropyInjection enables Flink's entropy injection (s3.entropy.key,
// s3.entropy.length): when a checkpoint directory's path contains key, each state
// file is written with key replaced by length random alphanumeric characters,
// while the metadata (and the pointer) use the path with key removed. State files
// with injected entropy are recorded with absolute paths. A length of 0 means
// DefaultEntropyLength; an empty key disables injection. A key with one of Flink's
// invalid characters ~#@*+%{}<>[]|"\ or a negative length makes the constructor
// fail with Flink's message.
//
// DisposeOnFailure deletes the entropy-injected files its own streams wrote;
// as in Flink, DisposeStorageLocation removes the key-less checkpoint
// directory only, and the entropy-injected files of a completed checkpoint are
// found through its metadata by DiscardCheckpoint, RetainCheckpoints and
// CollectGarbage (see WithEntropyBase).
func WithEntropyInjection(key string, length int) Option {
	return func(o *options) {
		o.entropyKey = key
		o.entropyLength = length
	}
}

// WithEntropyBase tells DiscardCheckpoint, RetainCheckpoints and
// CollectGarbage the checkpoints directory as configured, with the entropy
// key in it (Flink's state.checkpoints.dir, such as
// s3://bucket/_entropy_/checkpoints): an exclusive state file outside the
// checkpoint's directory is then taken for one of its entropy-injected files
// only where the entropy stands exactly where the key is in base. Without it,
// the key is taken to be a whole path segment above the job's directory. A
// file that does not match is reported in DiscardReport.Outside and left in
// place. It needs WithEntropyInjection; the storages ignore it (they know the
// directory they are given).
func WithEntropyBase(base vfs.Path) Option {
	return func(o *options) { o.entropyBase = base }
}

// invalidEntropyKeyChars are the characters Flink refuses in s3.entropy.key.
const invalidEntropyKeyChars = "~#@*+%{}<>[]|\"\\"

func buildOptions(opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.registry == nil {
		o.registry = vfs.DefaultRegistry()
	}
	o.locs = &locations{memo: map[vfs.Path]located{}}
	if o.entropyKey != "" {
		if strings.ContainsAny(o.entropyKey, invalidEntropyKeyChars) {
			return o, fmt.Errorf("Invalid character in value for s3.entropy.key : %s: %w", o.entropyKey, fs.ErrInvalid)
		}
		if o.entropyLength == 0 {
			o.entropyLength = DefaultEntropyLength
		}
		if o.entropyLength < 0 {
			return o, fmt.Errorf("s3.entropy.length must configure a value > 0 (got %d): %w", o.entropyLength, fs.ErrInvalid)
		}
	}
	return o, nil
}
