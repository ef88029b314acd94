package checkpointstorage_test

import (
	"context"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// hostileCheckpoint is a job whose chk-1/_metadata names, as exclusive state,
// files everywhere but in its own directory: another bucket (another memory://
// authority), another scheme (a local file), an S3 bucket, a scheme-less path,
// a sibling job, a directory that only shares the job directory's name as a
// prefix, another checkpoint of the job, and a shared-scope file outside the job.
type hostileCheckpoint struct {
	jobDir, dir vfs.Path
	// victims are the roots whose content must stay byte for byte.
	victims []vfs.Path
	// outside are the references the discard must report.
	outside []vfs.Path
}

func writeHostileCheckpoint(t *testing.T, b backend) hostileCheckpoint {
	t.Helper()
	ctx := t.Context()
	base := b.base(t)
	s, job := newFsStorage(t, base, 0, 0)
	jobDir := s.CheckpointsDirectory()
	other := b.base(t).Join("victim") // another bucket (memory:// authority)
	local := vfs.MustPath("file://" + filepath.ToSlash(t.TempDir())).Join("victim")
	sibling := cs.JobCheckpointsDir(base, cs.NewJobID()).MakeQualified(fsOf(t, base))
	prefixed := jobDir.Parent().Join(jobDir.Name() + "x")
	write := func(p vfs.Path) cs.StreamStateHandle {
		require.NoError(t, vfs.WriteFile(ctx, fsOf(t, p), p, []byte("precious "+p.String()), vfs.NoOverwrite))
		return cs.NewFileStateHandle(p, 1)
	}
	h := hostileCheckpoint{jobDir: jobDir, victims: []vfs.Path{other, local, sibling, prefixed, cs.CheckpointDir(jobDir, 2)}}
	var handles []cs.StreamStateHandle
	for _, p := range []vfs.Path{other.Join("f"), local.Join("f"), sibling.Join("chk-1", "f"), prefixed.Join("f")} {
		handles = append(handles, write(p))
		h.outside = append(h.outside, p)
	}
	// a scheme-less path (it would resolve to the default scheme, file://) and
	// a bucket on a server that does not exist: never contacted
	plain := local.Parent().Join("plain")
	write(plain)
	h.victims = append(h.victims, plain)
	for _, p := range []vfs.Path{vfs.MustPath("s3://someone-elses-bucket/data"), vfs.MustPath(plain.Path())} {
		handles = append(handles, cs.NewFileStateHandle(p, 1))
		h.outside = append(h.outside, p)
	}
	// inside the job but not this checkpoint's: not deleted, not reported
	handles = append(handles, write(cs.CheckpointDir(jobDir, 2).Join("state")))
	sharedOutside := write(other.Join("shared"))
	sharedOutside.(*cs.FileStateHandle).Scope = cs.Shared
	handles = append(handles, sharedOutside)

	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	own := writeState(t, loc, cs.Exclusive, pattern(50, 1), 0)
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, append(handles, own)...))
	require.NoError(t, err)
	loc2, err := s.InitializeLocationForCheckpoint(ctx, 2)
	require.NoError(t, err)
	_, err = cs.FinalizeCheckpoint(ctx, loc2, sampleMetadata(job, 2))
	require.NoError(t, err)
	h.dir = loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
	return h
}

func snapshots(t *testing.T, roots []vfs.Path) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, r := range roots {
		s := snapshot(t, r)
		require.NotEmpty(t, s, r.String())
		out = append(out, s)
	}
	return out
}

// TestDiscardIsConfinedToTheJob: DiscardCheckpoint and RetainCheckpoints of a
// checkpoint whose _metadata names files outside the job directory delete the
// checkpoint and nothing else (every other file stays byte for byte) and report
// each such file; a dry run deletes nothing and reports the same.
func TestDiscardIsConfinedToTheJob(t *testing.T) {
	for _, b := range []backend{memoryBackend, seaweedBackend} {
		for _, how := range []string{"DiscardCheckpoint", "RetainCheckpoints"} {
			t.Run(b.name+"/"+how, func(t *testing.T) {
				testDiscardIsConfined(t, b, how)
			})
		}
	}
}

func testDiscardIsConfined(t *testing.T, b backend, how string) {
	ctx := t.Context()
	h := writeHostileCheckpoint(t, b)
	before := snapshots(t, h.victims)
	discard := func(opts ...cs.Option) cs.DiscardReport {
		if how == "DiscardCheckpoint" {
			r, err := cs.DiscardCheckpoint(ctx, h.dir, opts...)
			require.NoError(t, err)
			return r
		}
		rs, err := cs.RetainCheckpoints(ctx, h.jobDir, 1, opts...)
		require.NoError(t, err)
		require.Len(t, rs, 1)
		return rs[0]
	}
	dry := discard(cs.WithDryRun())
	require.Equal(t, h.outside, dry.Outside)
	require.Empty(t, dry.Files)
	require.Nil(t, dry.Undecodable)
	require.True(t, exists(t, h.dir.Join(cs.MetadataFileName)), "a dry run deletes nothing")

	r := discard()
	require.Equal(t, h.dir, r.Dir)
	require.Equal(t, int64(1), r.CheckpointID)
	require.Equal(t, h.outside, r.Outside)
	require.False(t, exists(t, h.dir))
	require.Equal(t, before, snapshots(t, h.victims), "nothing outside the checkpoint was touched")
}

// TestDiscardRefusesDotDotPaths: a _metadata that names a file through ".."
// (which vfskit never writes) cannot be decoded, so the checkpoint is kept
// whole and the file it names is not touched.
func TestDiscardRefusesDotDotPaths(t *testing.T) {
	ctx := t.Context()
	base := memoryBackend.base(t)
	s, job := newFsStorage(t, base, 0, 0)
	fsys := fsOf(t, base)
	victim := base.MakeQualified(fsys).Join("victim")
	require.NoError(t, vfs.WriteFile(ctx, fsys, victim, []byte("precious"), vfs.NoOverwrite))
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()
	dotdot := dir.String() + "/../../../victim"
	m := sampleMetadata(job, 1)
	m.Operators[0].Subtasks = []cs.SubtaskState{{Index: 0, Handles: []metadata.Handle{&metadata.FileStateHandle{Path: dotdot, Size: 8}}}}
	data, err := m.MarshalBinary()
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join(cs.MetadataFileName), data, vfs.NoOverwrite))
	before := snapshot(t, base)

	r, err := cs.DiscardCheckpoint(ctx, dir)
	require.ErrorIs(t, err, cs.ErrCorruptMetadata)
	require.NotNil(t, r.Undecodable)
	rs, err := cs.RetainCheckpoints(ctx, s.CheckpointsDirectory(), 1)
	require.NoError(t, err)
	require.Empty(t, rs, "one checkpoint, undecodable: nothing to discard")
	require.Equal(t, before, snapshot(t, base))
}

// TestRetainKeepsUndecodableCheckpoints: retention never deletes a checkpoint
// whose _metadata cannot be decoded, and does not count it towards retain, so
// the retained ones restore.
func TestRetainKeepsUndecodableCheckpoints(t *testing.T) {
	ctx := t.Context()
	s, job := newFsStorage(t, memoryBackend.base(t), 0, 0)
	jobDir := s.CheckpointsDirectory()
	fsys := fsOf(t, jobDir)
	for id := int64(1); id <= 5; id++ {
		loc, err := s.InitializeLocationForCheckpoint(ctx, id)
		require.NoError(t, err)
		h := writeState(t, loc, cs.Exclusive, pattern(40, byte(id)), 0)
		c, err := cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, id, h))
		require.NoError(t, err)
		if id == 2 || id == 5 { // a bit flip, and a foreign format
			p := c.MetadataHandle().(*cs.FileStateHandle).FilePath
			data, err := vfs.ReadFile(ctx, fsys, p)
			require.NoError(t, err)
			data[len(data)/2] ^= 1
			if id == 5 {
				data = []byte("\x00\x00\x00\x00 not a metadata file")
			}
			require.NoError(t, fsys.Delete(ctx, p, false))
			require.NoError(t, vfs.WriteFile(ctx, fsys, p, data, vfs.NoOverwrite))
		}
	}
	before := snapshot(t, cs.CheckpointDir(jobDir, 2))
	rs, err := cs.RetainCheckpoints(ctx, jobDir, 2)
	require.NoError(t, err)
	var discarded, kept []int64
	for _, r := range rs {
		if r.Undecodable != nil {
			require.ErrorIs(t, r.Undecodable, cs.ErrCorruptMetadata)
			kept = append(kept, r.CheckpointID)
		} else {
			discarded = append(discarded, r.CheckpointID)
		}
	}
	require.Equal(t, []int64{1}, discarded, "chk-3 and chk-4 are the newest two that decode")
	require.Equal(t, []int64{2, 5}, kept)
	infos, err := cs.ListCompletedCheckpoints(ctx, jobDir)
	require.NoError(t, err)
	require.Equal(t, []int64{3, 4}, checkpointIDs(infos), "the undecodable ones are not completed")
	require.Equal(t, before, snapshot(t, cs.CheckpointDir(jobDir, 2)), "the undecodable checkpoint is untouched")
	for _, id := range []int64{3, 4} {
		m, _, err := cs.LoadCheckpoint(ctx, cs.CheckpointDir(jobDir, id).String())
		require.NoError(t, err)
		checkRestored(t, m, [][]byte{pattern(40, byte(id))})
	}
}

// TestHandlePathNeverConfiguresAFileSystem: a state file whose name holds
// "?region=..." opens, reads and is discarded as that file, and the file
// system it lives on is created without options: the name is never read as a
// URI query.
func TestHandlePathNeverConfiguresAFileSystem(t *testing.T) {
	ctx := t.Context()
	meta := memoryBackend.base(t)
	stateFS := memfs.New()
	name := "state?region=eu-evil-1&endpoint=attacker"
	statePath := vfs.MustPath(stateFS.URI().String()).Join("dir", name)
	require.Equal(t, name, statePath.Name())
	require.NoError(t, vfs.WriteFile(ctx, stateFS, statePath, []byte("state bytes"), vfs.NoOverwrite))

	var mu sync.Mutex
	var queries []string
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register("memory", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		mu.Lock()
		queries = append(queries, u.RawQuery)
		mu.Unlock()
		return vfs.Get(ctx, (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/"}).String())
	}))
	s, job := newFsStorage(t, meta, 0, 0)
	loc, err := s.InitializeLocationForCheckpoint(ctx, 1)
	require.NoError(t, err)
	_, err = cs.FinalizeCheckpoint(ctx, loc, sampleMetadata(job, 1, cs.NewFileStateHandle(statePath, 11)))
	require.NoError(t, err)
	dir := loc.(*cs.FsCheckpointStorageLocation).CheckpointDir()

	m, _, err := cs.LoadCheckpoint(ctx, dir.String(), cs.WithRegistry(reg))
	require.NoError(t, err)
	checkRestored(t, m, [][]byte{[]byte("state bytes")})
	require.NoError(t, m.Handles()[0].(cs.StreamStateHandle).DiscardState(ctx))
	ok, err := vfs.Exists(ctx, stateFS, statePath)
	require.NoError(t, err)
	require.False(t, ok, "the named file is the one discarded")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, queries, 2, "one file system for the metadata, one for the state")
	for _, q := range queries {
		require.Empty(t, q, "no file system is configured from a state handle's path")
	}
}
