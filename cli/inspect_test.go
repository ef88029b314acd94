package cli

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// TestCheckpointsInspectHandleKinds writes a checkpoint with one handle of each
// kind — shared state in a file (file), exclusive state in the checkpoint
// directory (relative) and small state inside the metadata (inline) — and
// checks that inspect renders each kind with its size and location.
func TestCheckpointsInspectHandleKinds(t *testing.T) {
	ctx := t.Context()
	base := vfs.MustPath("file://" + t.TempDir())
	job, err := checkpointstorage.ParseJobID(testJobID)
	require.NoError(t, err)
	storage, err := checkpointstorage.NewFsCheckpointStorage(ctx, job, base, vfs.Path{}, 1024, 4096)
	require.NoError(t, err)
	loc, err := storage.InitializeLocationForCheckpoint(ctx, 3)
	require.NoError(t, err)
	factory, err := storage.ResolveCheckpointStorageLocation(ctx, 3, loc.LocationReference())
	require.NoError(t, err)
	write := func(scope checkpointstorage.StateScope, size int) checkpointstorage.StreamStateHandle {
		out, err := factory.CreateCheckpointStateOutputStream(ctx, scope)
		require.NoError(t, err)
		_, err = out.Write(bytes.Repeat([]byte{'x'}, size))
		require.NoError(t, err)
		h, err := out.CloseAndGetHandle(ctx)
		require.NoError(t, err)
		return h
	}
	shared, exclusive, small := write(checkpointstorage.Shared, 3000), write(checkpointstorage.Exclusive, 2048), write(checkpointstorage.Exclusive, 10)
	require.Equal(t, checkpointstorage.KindFile, checkpointstorage.KindOf(shared))
	require.Equal(t, checkpointstorage.KindRelativeFile, checkpointstorage.KindOf(exclusive))
	require.Equal(t, checkpointstorage.KindInline, checkpointstorage.KindOf(small))
	_, err = checkpointstorage.FinalizeCheckpoint(ctx, loc, &checkpointstorage.CheckpointMetadata{
		JobID: job, CheckpointID: 3, Timestamp: time.Unix(1700000000, 0),
		Operators: []checkpointstorage.OperatorState{{
			UID: "op", Parallelism: 2, MaxParallelism: 8,
			Subtasks: []checkpointstorage.SubtaskState{
				{Index: 0, Handles: []metadata.Handle{shared, small}},
				{Index: 1, Handles: []metadata.Handle{exclusive}},
			},
		}},
	})
	require.NoError(t, err)

	chk := base.String() + "/" + testJobID + "/chk-3"
	text := ok(t, "checkpoints", "inspect", chk)
	assert.Contains(t, text, "Checkpoint 3 of job "+testJobID+"\n")
	assert.Contains(t, text, "taken:     2023-11-14T22:13:20Z\n")
	assert.Contains(t, text, "state:     4.9 KiB in 3 handles (1 inline, 1 file, 1 relative)\n")
	assert.Contains(t, text, "\nfiles: 2 files referenced, each listed once; 10 B inline in the metadata\n")
	assert.NotContains(t, text, "named", "inline state names no file")
	assert.Contains(t, text, "operator op (parallelism 2, max parallelism 8)\n")
	assert.Regexp(t, `\n  subtask 0\n    file\s+2\.9 KiB  `+regexp.QuoteMeta(base.String()+"/"+testJobID+"/shared/")+`\S+ \(SHARED\)\n`+
		`    inline\s+10 B  in the metadata \(no file\)\n  subtask 1\n    relative\s+2\.0 KiB  \S+ → `+regexp.QuoteMeta(chk+"/"), text)

	var view checkpointView
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "inspect", "--json", chk)), &view))
	require.Len(t, view.Operators, 1)
	require.Len(t, view.Operators[0].Subtasks, 2)
	hs := view.Operators[0].Subtasks[0].Handles
	require.Len(t, hs, 2)
	assert.Equal(t, "file", hs[0].Kind)
	assert.Equal(t, int64(3000), hs[0].Size)
	assert.Equal(t, "SHARED", hs[0].Scope)
	assert.Equal(t, "inline", hs[1].Kind)
	assert.Equal(t, int64(10), hs[1].Size)
	rel := view.Operators[0].Subtasks[1].Handles[0]
	assert.Equal(t, "relative", rel.Kind)
	assert.Equal(t, int64(2048), rel.Size)
	assert.NotEmpty(t, rel.RelativePath)
	assert.Equal(t, chk+"/"+rel.RelativePath, rel.Path)
	for _, f := range view.Files {
		assert.Nil(t, f.Present, "without --verify presence is not checked: %s", f.Path)
	}

	// --verify: every file present, then the relative one removed.
	view = checkpointView{}
	require.NoError(t, json.Unmarshal([]byte(ok(t, "checkpoints", "inspect", "--verify", "--json", chk)), &view))
	require.Len(t, view.Files, 2)
	for _, f := range view.Files {
		require.NotNil(t, f.Present, "--verify checks %s", f.Path)
		assert.True(t, *f.Present, "%s is there", f.Path)
		assert.Empty(t, f.Problem)
	}
	assert.Contains(t, ok(t, "checkpoints", "inspect", "--verify", chk), "OK: ")
	fsys, err := vfs.MustPath(rel.Path).FileSystem(ctx)
	require.NoError(t, err)
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath(rel.Path), false))
	r := vfskit(t, "checkpoints", "inspect", "--verify", "--json", chk)
	require.Equal(t, ExitFailure, r.code, "a missing file fails --verify: %s", r.stderr)
	assert.Contains(t, r.stderr, "1 of 2 referenced files missing")
	view = checkpointView{}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &view), "the document is printed before the failure")
	for _, f := range view.Files {
		require.NotNil(t, f.Present)
		if f.Path == rel.Path {
			assert.False(t, *f.Present, "the removed file is reported missing")
			assert.Equal(t, "missing", f.Problem)
		} else {
			assert.True(t, *f.Present, "%s is still there", f.Path)
		}
	}
	r = vfskit(t, "checkpoints", "inspect", "--verify", chk)
	require.Equal(t, ExitFailure, r.code)
	assert.Contains(t, r.stdout, "missing: "+rel.Path+"\n", "text output names the missing file")
}
