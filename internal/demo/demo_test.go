package demo

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/local"
	_ "github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// smallConfig is a fast job: 20,000 records, 3 subtasks, a checkpoint every
// 2,000 records and a crash at 11,500 under dir.
func smallConfig(dir string) Config {
	return Config{
		Records:            20_000,
		Parallelism:        3,
		CheckpointInterval: 2_000,
		CrashAt:            11_500,
		Storage:            MemoryStorage,
		CheckpointDir:      vfs.MustPath(dir),
		Seed:               7,
		Vocabulary:         5_000,
	}
}

// memDir returns a memory:// directory unique to the test.
func memDir(t *testing.T) string {
	return "memory://" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())) + "/checkpoints"
}

// requireExactlyOnce runs cfg and checks the recovery story end to end.
func requireExactlyOnce(t *testing.T, cfg Config) *Report {
	t.Helper()
	var events []EventKind
	rep, err := Run(t.Context(), cfg, func(e Event) { events = append(events, e.Kind) })
	require.NoError(t, err)
	require.True(t, rep.OK(), "mismatch: %s; output: %s", rep.Mismatch, rep.Output.Problem)
	// The part files hold every result exactly once.
	out := rep.Output
	require.False(t, out.Dir.IsZero(), "no output: %s", out.Skipped)
	assert.Equal(t, cfg.Records, out.Lines, "one line per record in the committed part files")
	assert.Positive(t, out.Files)
	assert.GreaterOrEqual(t, out.Commits, out.Files, "every part file committed (some twice: after the crash)")
	assert.Equal(t, rep.Expected, rep.Counts)
	var total int64
	for _, v := range rep.Counts {
		total += v
	}
	assert.Equal(t, cfg.Records, total, "every record counted exactly once")

	// 5 checkpoints before the crash (2000..10000), 4 after (12000..18000).
	require.Len(t, rep.Checkpoints, 9)
	assert.True(t, rep.Crashed)
	assert.Equal(t, int64(5), rep.RestoredID)
	assert.Equal(t, int64(10_000), rep.RestoredOffset)
	assert.Equal(t, int64(1_500), rep.ReplayedRecords())
	for i, c := range rep.Checkpoints {
		assert.Equal(t, int64(i+1), c.ID)
		assert.Equal(t, int64(i+1)*2_000, c.Offset)
		assert.Equal(t, 2*cfg.Parallelism+1, c.Inline+c.Files+c.Relative, "per subtask a count and a sink handle, plus the source")
	}
	assert.True(t, rep.Savepoint.Savepoint)
	assert.Equal(t, int64(10), rep.Savepoint.ID)
	assert.Contains(t, events, EventCrash)
	assert.Contains(t, events, EventRestore)
	assert.Equal(t, EventSavepoint, events[len(events)-1])

	// What the job left in storage: every checkpoint completed and loadable, the
	// savepoint too.
	infos, err := checkpointstorage.ListCompletedCheckpoints(t.Context(), rep.JobDir)
	require.NoError(t, err)
	require.Len(t, infos, 9)
	latest, _, err := checkpointstorage.LoadCheckpoint(t.Context(), infos[8].Dir.String())
	require.NoError(t, err)
	assert.Equal(t, int64(9), latest.CheckpointID)
	sp, _, err := checkpointstorage.LoadCheckpoint(t.Context(), rep.Savepoint.Pointer)
	require.NoError(t, err)
	assert.True(t, sp.IsSavepoint)
	states, _, offset, err := restoreState(t.Context(), sp, cfg.Parallelism)
	require.NoError(t, err)
	assert.Equal(t, cfg.Records, offset)
	assert.Equal(t, rep.Expected, merge(states), "the savepoint holds the final counts")
	return rep
}

func TestExactlyOnceOnMemory(t *testing.T) {
	for _, storage := range []Storage{MemoryStorage, FsStorage} {
		t.Run(string(storage), func(t *testing.T) {
			cfg := smallConfig(memDir(t))
			cfg.Storage = storage
			cfg.FileStateThreshold = 1024
			rep := requireExactlyOnce(t, cfg)
			tot := rep.Totals()
			if storage == MemoryStorage {
				assert.Zero(t, tot.Files+tot.Relative, "memory storage keeps all state inline")
				assert.Zero(t, tot.FileBytes)
			} else {
				assert.Positive(t, tot.Files+tot.Relative, "fs storage writes state above the threshold to files")
				assert.Positive(t, tot.FileBytes)
			}
		})
	}
}

func TestExactlyOnceOnLocalDisk(t *testing.T) {
	cfg := smallConfig("file://" + t.TempDir() + "/checkpoints")
	cfg.Storage = FsStorage
	cfg.FileStateThreshold = 1024
	cfg.SavepointDir = vfs.MustPath("file://" + t.TempDir() + "/savepoints")
	rep := requireExactlyOnce(t, cfg)
	assert.True(t, strings.HasPrefix(rep.Savepoint.Pointer, cfg.SavepointDir.String()+"/savepoint-"), rep.Savepoint.Pointer)
	_, err := os.Stat(strings.TrimPrefix(rep.Checkpoints[0].Pointer, "file://") + "/_metadata")
	assert.NoError(t, err, "the metadata is a real file")
}

func TestExactlyOnceOnS3(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	bucket := useS3(t, srv)
	for _, storage := range []Storage{MemoryStorage, FsStorage} {
		t.Run(string(storage), func(t *testing.T) {
			cfg := smallConfig(fmt.Sprintf("s3://%s/%s/checkpoints", bucket, storage))
			cfg.Storage = storage
			cfg.FileStateThreshold = 1024
			requireExactlyOnce(t, cfg)
		})
	}
}

func TestBrokenRecoveryIsCaught(t *testing.T) {
	cfg := smallConfig(memDir(t))
	cfg.SkipRestore = true
	rep, err := Run(t.Context(), cfg, nil)
	require.NoError(t, err)
	assert.False(t, rep.OK())
	assert.NotEmpty(t, rep.Output.Problem, "the output check sees the broken recovery too")
	assert.Contains(t, rep.Mismatch, "the failure-free run counted")
	assert.Contains(t, rep.Mismatch, "more words differ")
}

func TestCrashBeforeTheFirstCheckpointRestartsFromScratch(t *testing.T) {
	cfg := smallConfig(memDir(t))
	cfg.CrashAt = 1_000
	rep, err := Run(t.Context(), cfg, nil)
	require.NoError(t, err)
	require.True(t, rep.OK(), rep.Mismatch)
	assert.Empty(t, rep.RestoredFrom)
	assert.Zero(t, rep.RestoredOffset)
	assert.Equal(t, int64(1_000), rep.ReplayedRecords())
	assert.Len(t, rep.Checkpoints, 9)
}

func TestWithoutCrash(t *testing.T) {
	cfg := smallConfig(memDir(t))
	cfg.CrashAt = 0
	rep, err := Run(t.Context(), cfg, nil)
	require.NoError(t, err)
	require.True(t, rep.OK(), rep.Mismatch)
	assert.False(t, rep.Crashed)
	assert.Zero(t, rep.ReplayedRecords())
	assert.Len(t, rep.Checkpoints, 9)
}

func TestRestoreRescales(t *testing.T) {
	cfg := smallConfig(memDir(t))
	cfg.CrashAt = 0
	rep, err := Run(t.Context(), cfg, nil)
	require.NoError(t, err)
	md, _, err := checkpointstorage.LoadCheckpoint(t.Context(), rep.Savepoint.Pointer)
	require.NoError(t, err)
	for _, p := range []int{1, 2, 5} {
		states, _, offset, err := restoreState(t.Context(), md, p)
		require.NoError(t, err)
		require.Len(t, states, p)
		assert.Equal(t, cfg.Records, offset)
		assert.Equal(t, rep.Expected, merge(states))
		for i, st := range states {
			for k := range st {
				require.Equal(t, i, partition(k, p), "key %q is in the subtask that owns it", k)
			}
		}
	}
}

func TestRestoreRejectsBadState(t *testing.T) {
	inline := func(b []byte) []metadata.Handle {
		return []metadata.Handle{checkpointstorage.NewByteStreamStateHandle("x", b)}
	}
	var good strings.Builder
	_, err := Counts{"a": 1}.WriteTo(&good)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		ops  []checkpointstorage.OperatorState
		want string
	}{
		{"no source", []checkpointstorage.OperatorState{{UID: CountOperatorID, Parallelism: 1, Subtasks: []checkpointstorage.SubtaskState{{Handles: inline([]byte(good.String()))}}}}, "no state for operator"},
		{"unknown operator", []checkpointstorage.OperatorState{{UID: "mystery", Parallelism: 1, Subtasks: []checkpointstorage.SubtaskState{{Handles: inline([]byte{1})}}}}, `unknown operator "mystery"`},
		{"short offset", []checkpointstorage.OperatorState{{UID: SourceOperatorID, Parallelism: 1, Subtasks: []checkpointstorage.SubtaskState{{Handles: inline([]byte{1, 2})}}}}, "unexpected EOF"},
		{"corrupt counts", []checkpointstorage.OperatorState{{UID: CountOperatorID, Parallelism: 1, Subtasks: []checkpointstorage.SubtaskState{{Handles: inline([]byte("garbage"))}}}}, "bad header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := restoreState(t.Context(), &checkpointstorage.CheckpointMetadata{CheckpointID: 3, Operators: tc.ops}, 2)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestConfigValidate(t *testing.T) {
	require.NoError(t, DefaultConfig().Validate())
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"records", func(c *Config) { c.Records = 0 }, "records must be > 0, got 0"},
		{"parallelism low", func(c *Config) { c.Parallelism = 0 }, "parallelism must be between 1 and 128, got 0"},
		{"parallelism high", func(c *Config) { c.Parallelism = 129 }, "got 129"},
		{"interval", func(c *Config) { c.CheckpointInterval = -5 }, "checkpoint interval must be > 0 records, got -5"},
		{"crash after end", func(c *Config) { c.CrashAt = c.Records }, "crash offset must be between 1 and 199999"},
		{"storage", func(c *Config) { c.Storage = "rocksdb" }, `storage must be "memory" or "fs", got "rocksdb"`},
		{"dir", func(c *Config) { c.CheckpointDir = vfs.Path{} }, "checkpoint directory is required"},
		{"vocabulary", func(c *Config) { c.Vocabulary = 0 }, "vocabulary must be > 0"},
		{"rate", func(c *Config) { c.Rate = -1 }, "rate must be >= 0"},
		{"threshold", func(c *Config) { c.FileStateThreshold = 2 << 20 }, "file state threshold must be between 0 and 1048576"},
		{"max state", func(c *Config) { c.MaxStateSize = -1 }, "max state size must be >= 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mod(&cfg)
			err := cfg.Validate()
			require.ErrorIs(t, err, os.ErrInvalid)
			assert.Contains(t, err.Error(), tc.want)
			_, err = Run(t.Context(), cfg, nil)
			require.ErrorIs(t, err, os.ErrInvalid, "Run validates too")
		})
	}
}

func TestStorageFailureIsAnError(t *testing.T) {
	cfg := smallConfig("memory://" + strings.ToLower(t.Name()) + "/checkpoints")
	cfg.MaxStateSize = 64 // far below one subtask's state
	_, err := Run(t.Context(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "subtask")
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Run(ctx, smallConfig(memDir(t)), nil)
	require.ErrorIs(t, err, context.Canceled)
}

// TestOutputCheckCatchesDuplicatesAndLosses: the output check of a good run
// fails once a part file is doubled, or one is lost.
func TestOutputCheckCatchesDuplicatesAndLosses(t *testing.T) {
	ctx := t.Context()
	cfg := smallConfig(memDir(t))
	rep, err := Run(ctx, cfg, nil)
	require.NoError(t, err)
	require.True(t, rep.OK(), "%s %s", rep.Mismatch, rep.Output.Problem)
	fsys := rep.Output.fsys
	list, err := fsys.List(ctx, rep.Output.Dir)
	require.NoError(t, err)
	first := list[0].Path
	require.True(t, strings.HasPrefix(first.Name(), "part-"), first.String())

	check := func() string {
		j := &job{cfg: cfg, report: &Report{Output: OutputReport{Dir: rep.Output.Dir, fsys: fsys}}}
		require.NoError(t, j.verifyOutput(ctx, rep.Expected))
		return j.report.Output.Problem
	}
	_, err = vfs.Copy(ctx, fsys, rep.Output.Dir.Join("part-copy"), fsys, first)
	require.NoError(t, err)
	assert.Contains(t, check(), "more than once")
	require.NoError(t, fsys.Delete(ctx, rep.Output.Dir.Join("part-copy"), false))
	require.Empty(t, check())
	require.NoError(t, fsys.Delete(ctx, first, false))
	assert.Contains(t, check(), "missing")
}
