package record_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/internal/layertest"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/vfs"
)

func TestConformance(t *testing.T) {
	layertest.Conformance(t, func(t *testing.T, inner vfs.FileSystem, dir vfs.Path) (vfs.FileSystem, vfs.Path) {
		return record.New(inner), dir
	})
}

// TestRecordsEveryCall: each operation is recorded once under its own name,
// with its paths and error, and the fast paths reach the layer below as fast
// paths (the helpers do not fall back to Open/Create through the layer).
func TestRecordsEveryCall(t *testing.T) {
	ctx := t.Context()
	spy := layertest.NewSpy(memfs.New())
	rec := record.New(spy)
	a, b, missing := vfs.MustPath("/d/a"), vfs.MustPath("/d/b"), vfs.MustPath("/d/missing")

	require.NoError(t, rec.Mkdirs(ctx, a.Parent()))
	require.NoError(t, vfs.WriteFile(ctx, rec, a, []byte("alpha"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(ctx, rec, a)
	require.NoError(t, err)
	assert.Equal(t, "alpha", string(got))
	_, err = vfs.CopyWithMode(ctx, rec, b, rec, a, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = rec.Stat(ctx, missing)
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = rec.List(ctx, a.Parent())
	require.NoError(t, err)
	require.NoError(t, rec.Rename(ctx, b, missing))
	require.NoError(t, rec.Delete(ctx, a.Parent(), true))

	assert.Equal(t, map[string]int{
		record.OpMkdirs: 1, record.OpWriteFile: 1, record.OpReadFile: 1, record.OpCopyFile: 1,
		record.OpStat: 1, record.OpList: 1, record.OpRename: 1, record.OpDelete: 1,
	}, rec.Counts())
	assert.Zero(t, spy.Calls("Open"), "ReadFile reached the layer below as ReadFile")
	assert.Zero(t, spy.Calls("Create"), "WriteFile and CopyFile reached the layer below as themselves")

	calls := rec.Calls()
	require.Len(t, calls, 8)
	assert.Equal(t, record.Call{Op: record.OpWriteFile, Path: a}, calls[1])
	assert.Equal(t, record.OpCopyFile, calls[3].Op)
	assert.Equal(t, a, calls[3].Path, "CopyFile records its source as Path")
	assert.Equal(t, b, calls[3].Target, "and its destination as Target")
	assert.Equal(t, missing, calls[4].Path)
	assert.True(t, errors.Is(calls[4].Err, fs.ErrNotExist), "the error is recorded: %v", calls[4].Err)
	assert.Equal(t, record.Call{Op: record.OpRename, Path: b, Target: missing}, calls[6])

	assert.Equal(t, 8, len(rec.Reset()), "Reset returns the counts it had")
	assert.Empty(t, rec.Calls())
	assert.Zero(t, rec.Count(record.OpStat))
}

// TestRecordsDirSync: vfs.DirSyncer's methods are recorded under their own
// names and reach the layer below as themselves.
func TestRecordsDirSync(t *testing.T) {
	ctx := t.Context()
	spy := layertest.NewSpy(memfs.New())
	rec := record.New(spy)
	d := vfs.MustPath("/d")
	out, err := rec.CreateUnsynced(ctx, d.Join("a"), vfs.NoOverwrite)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	require.NoError(t, rec.SyncDir(ctx, d))
	require.ErrorIs(t, rec.SyncDir(ctx, d.Join("missing")), fs.ErrNotExist)
	assert.Equal(t, map[string]int{record.OpCreateUnsynced: 1, record.OpSyncDir: 2}, rec.Counts())
	assert.Equal(t, [3]int{1, 2, 0}, [3]int{spy.Calls("CreateUnsynced"), spy.Calls("SyncDir"), spy.Calls("Create")})
}
