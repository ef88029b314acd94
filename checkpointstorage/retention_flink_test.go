package checkpointstorage_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/internal/fixtures"
	"github.com/vfskit/vfskit/vfs"
)

// flinkJobFixture is an incremental RocksDB job directory that Flink wrote
// (chk-6 and shared/), among the fixtures.
const flinkJobFixture = "gimral-offset-translator/state/checkpoint/494ff033ac9eadd8d03630bec6e3fb42"

// copyFlinkJob copies the fixture job directory into a temporary directory
// (never into the repository) and returns the copy's path.
func copyFlinkJob(t *testing.T) string {
	t.Helper()
	src := filepath.Join(fixtures.FlinkMetadataDir(t), filepath.FromSlash(flinkJobFixture))
	if _, err := os.Stat(src); err != nil {
		t.Skipf("Flink fixture %s not found: %v", flinkJobFixture, err)
	}
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

// TestRetainOnFlinkCheckpoints runs retention over a copy of a job directory
// Flink wrote, with three checkpoints: chk-5 whose _metadata is cut short (it
// cannot be decoded), chk-6 and chk-7 (Flink's chk-6, twice). Keeping one, it
// discards chk-6 only: chk-5 is kept and reported, and everything else —
// chk-7, the job's shared/ files, which chk-6 references — stays byte for byte.
func TestRetainOnFlinkCheckpoints(t *testing.T) {
	ctx := t.Context()
	job := copyFlinkJob(t)
	chk6 := filepath.Join(job, "chk-6")
	require.NoError(t, os.CopyFS(filepath.Join(job, "chk-7"), os.DirFS(chk6)))
	require.NoError(t, os.CopyFS(filepath.Join(job, "chk-5"), os.DirFS(chk6)))
	meta5 := filepath.Join(job, "chk-5", cs.MetadataFileName)
	data, err := os.ReadFile(meta5)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(meta5, data[:len(data)/2], 0o644))

	jobDir := vfs.MustPath("file://" + filepath.ToSlash(job))
	top := jobDir.Parent()
	before := snapshot(t, top)
	rs, err := cs.RetainCheckpoints(ctx, jobDir, 1)
	require.NoError(t, err)
	require.Len(t, rs, 2)
	require.Equal(t, int64(5), rs[0].CheckpointID)
	require.ErrorIs(t, rs[0].Undecodable, metadata.ErrCorrupt)
	require.Equal(t, int64(6), rs[1].CheckpointID)
	require.Nil(t, rs[1].Undecodable)
	require.Empty(t, rs[1].Files)
	for _, p := range rs[1].Outside {
		require.False(t, strings.HasPrefix(p.Path(), jobDir.Path()+"/"), "%s is inside the job", p)
	}

	want := map[string]string{}
	prefix := jobDir.Join("chk-6").String() + "/"
	for k, v := range before {
		if !strings.HasPrefix(k, prefix) {
			want[k] = v
		}
	}
	require.Less(t, len(want), len(before), "chk-6 had files")
	require.Equal(t, want, snapshot(t, top), "only chk-6 was deleted")

	// the checkpoint kept restores: its _metadata decodes and its relative
	// files are there
	m, _, err := cs.LoadCheckpoint(ctx, jobDir.Join("chk-7").String())
	require.NoError(t, err)
	require.Equal(t, metadata.FormatFlink, m.Format)
}
