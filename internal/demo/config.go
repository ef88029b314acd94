package demo

import (
	"fmt"
	"io/fs"
	"time"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// Storage names the CheckpointStorage implementation the job uses.
type Storage string

const (
	// MemoryStorage is MemoryBackendCheckpointStorage: all state inline in the
	// metadata, which is written to the checkpoint directory.
	MemoryStorage Storage = "memory"
	// FsStorage is FsCheckpointStorage: state above the file-state threshold goes
	// to files next to the metadata, smaller state stays inline.
	FsStorage Storage = "fs"
)

// Config describes one demo run. Zero fields take the defaults of
// DefaultConfig where noted.
type Config struct {
	// Records is the length of the stream (> 0).
	Records int64
	// Parallelism is the number of parallel counting subtasks (1..MaxParallelism).
	Parallelism int
	// CheckpointInterval: a checkpoint is taken every CheckpointInterval records
	// (> 0).
	CheckpointInterval int64
	// CrashAt is the offset at which the job crashes (0 < CrashAt < Records); 0
	// means no crash.
	CrashAt int64
	// Storage selects the checkpoint storage (MemoryStorage or FsStorage).
	Storage Storage
	// CheckpointDir is the checkpoint base directory (any registered scheme).
	CheckpointDir vfs.Path
	// Registry serves the checkpoint and savepoint directories; nil means
	// vfs's default registry.
	Registry *vfs.Registry
	// SavepointDir is where the final savepoint is written; the zero Path means
	// CheckpointDir/savepoints.
	SavepointDir vfs.Path
	// JobID identifies the job; the zero JobID means a new random one.
	JobID checkpointstorage.JobID
	// Seed selects the generated stream.
	Seed uint64
	// Vocabulary is the number of distinct words the stream draws from (> 0).
	Vocabulary int
	// Rate limits the source to this many records per second; 0 means as fast as
	// possible.
	Rate int
	// FileStateThreshold is FsStorage's inline limit in bytes; 0 means 20 KiB.
	FileStateThreshold int
	// MaxStateSize is MemoryStorage's per-state limit; 0 means
	// checkpointstorage.DefaultMaxStateSize.
	MaxStateSize int
	// SkipRestore sabotages recovery (the state of the checkpoint is not
	// restored, only the offset), to show that the exactly-once check catches a
	// broken recovery.
	SkipRestore bool
}

// MaxParallelism is the largest parallelism the job accepts (and the max
// parallelism recorded in the metadata, like Flink's default 128).
const MaxParallelism = 128

// defaultFileStateThreshold is Flink's default state.storage.fs.memory-threshold.
const defaultFileStateThreshold = 20 * 1024

// DefaultConfig returns the configuration "vfskit demo" runs with when no flag
// is given: 200,000 records, 4 subtasks, a checkpoint every 20,000 records, a
// crash at record 110,000, memory storage under memory://demo/checkpoints,
// about five seconds long.
func DefaultConfig() Config {
	return Config{
		Records:            200_000,
		Parallelism:        4,
		CheckpointInterval: 20_000,
		CrashAt:            110_000,
		Storage:            MemoryStorage,
		CheckpointDir:      vfs.MustPath("memory://demo/checkpoints"),
		Seed:               42,
		Vocabulary:         50_000,
		Rate:               40_000,
	}
}

// Validate checks c and returns an error naming the first bad field, wrapping
// fs.ErrInvalid.
func (c Config) Validate() error {
	bad := func(format string, v ...any) error {
		return fmt.Errorf("demo: %w: "+format, append([]any{fs.ErrInvalid}, v...)...)
	}
	switch {
	case c.Records <= 0:
		return bad("records must be > 0, got %d", c.Records)
	case c.Parallelism < 1 || c.Parallelism > MaxParallelism:
		return bad("parallelism must be between 1 and %d, got %d", MaxParallelism, c.Parallelism)
	case c.CheckpointInterval <= 0:
		return bad("checkpoint interval must be > 0 records, got %d", c.CheckpointInterval)
	case c.CrashAt < 0 || (c.CrashAt > 0 && c.CrashAt >= c.Records):
		return bad("crash offset must be between 1 and %d (records - 1), or 0 for no crash; got %d", c.Records-1, c.CrashAt)
	case c.Storage != MemoryStorage && c.Storage != FsStorage:
		return bad("storage must be %q or %q, got %q", MemoryStorage, FsStorage, c.Storage)
	case c.CheckpointDir.IsZero():
		return bad("a checkpoint directory is required")
	case c.Vocabulary <= 0:
		return bad("vocabulary must be > 0 words, got %d", c.Vocabulary)
	case c.Rate < 0:
		return bad("rate must be >= 0 records/s, got %d", c.Rate)
	case c.FileStateThreshold < 0 || c.FileStateThreshold > checkpointstorage.MaxFileStateThreshold:
		return bad("file state threshold must be between 0 and %d bytes, got %d", checkpointstorage.MaxFileStateThreshold, c.FileStateThreshold)
	case c.MaxStateSize < 0:
		return bad("max state size must be >= 0 bytes, got %d", c.MaxStateSize)
	}
	return nil
}

// savepointDir is the directory savepoints go to.
func (c Config) savepointDir() vfs.Path {
	if !c.SavepointDir.IsZero() {
		return c.SavepointDir
	}
	return c.CheckpointDir.Join("savepoints")
}

// pace returns how long the source should have taken for n records at Rate.
func (c Config) pace(n int64) time.Duration {
	if c.Rate <= 0 {
		return 0
	}
	return time.Duration(float64(n) / float64(c.Rate) * float64(time.Second))
}

// storageOptions are the checkpoint storage options the job's calls share:
// the Registry, when one is set.
func (c Config) storageOptions() []checkpointstorage.Option {
	if c.Registry == nil {
		return nil
	}
	return []checkpointstorage.Option{checkpointstorage.WithRegistry(c.Registry)}
}
