package checkpointstorage_test

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// hookedRegistry returns a registry whose scheme of base reaches the file
// system of base (vfs's default registry) through a deleteHookFS.
func hookedRegistry(t *testing.T, base vfs.Path) (*vfs.Registry, *deleteHookFS) {
	t.Helper()
	hooked := &deleteHookFS{Base: layer.Base{Inner: fsOf(t, base)}}
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register(base.Scheme(), func(context.Context, *url.URL) (vfs.FileSystem, error) { return hooked, nil }))
	return reg, hooked
}

// raceDiscard writes a job of two checkpoints on b and has remove discard
// chk-1 through a file system that, at the first delete, writes a new file
// into chk-1 and rewrites one of its state files (a new version, of another
// size). Both stay byte for byte and are named in the report, which says the
// checkpoint was partly removed; everything else of chk-1 is gone, nothing
// else is touched, and chk-2 restores.
func raceDiscard(t *testing.T, b backend, remove func(ctx context.Context, job, chk vfs.Path, reg *vfs.Registry) cs.DiscardReport) {
	ctx := t.Context()
	base := b.base(t)
	job, _ := vfskitJob(t, base)
	inner := fsOf(t, job)
	chk1 := job.Join("chk-1")
	var rewritten vfs.Path
	require.NoError(t, vfs.Walk(ctx, inner, chk1, func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir && st.Name() != cs.MetadataFileName {
			rewritten = st.Path
		}
		return err
	}))
	require.False(t, rewritten.IsZero(), "chk-1 holds a state file")
	late := chk1.Join("late")
	lateBytes, newBytes := []byte("written while the checkpoint is discarded"), []byte("rewritten while the checkpoint is discarded")
	before := snapshot(t, base)
	reg, hooked := hookedRegistry(t, base)
	fired := false
	hooked.hook = func() {
		fired = true
		require.NoError(t, vfs.WriteFile(ctx, inner, late, lateBytes, vfs.NoOverwrite))
		require.NoError(t, vfs.WriteFile(ctx, inner, rewritten, newBytes, vfs.Overwrite))
	}

	r := remove(ctx, job, chk1, reg)
	require.True(t, fired, "the writes raced the delete")
	assert.Equal(t, chk1.String(), r.Dir.String())
	assert.True(t, r.Removed())
	assert.True(t, r.Partial())
	assert.ElementsMatch(t, []vfs.Path{late, rewritten}, r.Left)

	want := map[string]string{}
	for k, v := range before {
		if !strings.HasPrefix(k, chk1.String()+"/") {
			want[k] = v
		}
	}
	want[late.String()], want[rewritten.String()] = string(lateBytes), string(newBytes)
	assert.Equal(t, want, snapshot(t, base), "of chk-1, only the two files written meanwhile are left, with their bytes; nothing else changed")
	_, _, err := cs.LoadCheckpoint(ctx, job.Join("chk-2").String())
	require.NoError(t, err, "the retained checkpoint restores")
}

// TestRetainDeletesOnlyWhatItListed: a file written into a checkpoint that
// RetainCheckpoints discards, and one rewritten in it, while it deletes,
// stay; the report says the checkpoint was partly removed, naming them.
func TestRetainDeletesOnlyWhatItListed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		raceDiscard(t, b, func(ctx context.Context, job, chk vfs.Path, reg *vfs.Registry) cs.DiscardReport {
			rs, err := cs.RetainCheckpoints(ctx, job, 1, cs.WithRegistry(reg))
			require.NoError(t, err, "a partly removed checkpoint is reported, not an error")
			require.Len(t, rs, 1)
			return rs[0]
		})
	})
}

// TestDiscardDeletesOnlyWhatItListed: the same for DiscardCheckpoint, whose
// error then names the files left and wraps vfs.ErrChanged.
func TestDiscardDeletesOnlyWhatItListed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		raceDiscard(t, b, func(ctx context.Context, job, chk vfs.Path, reg *vfs.Registry) cs.DiscardReport {
			r, err := cs.DiscardCheckpoint(ctx, chk, cs.WithRegistry(reg))
			require.ErrorIs(t, err, vfs.ErrChanged)
			assert.ErrorContains(t, err, chk.Join("late").Redacted())
			return r
		})
	})
}

// TestDisposeStorageLocationDeletesOnlyWhatItListed: the same for
// DisposeStorageLocation of the checkpoint, whose error names the files
// left and wraps vfs.ErrChanged.
func TestDisposeStorageLocationDeletesOnlyWhatItListed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		raceDiscard(t, b, func(ctx context.Context, job, chk vfs.Path, reg *vfs.Registry) cs.DiscardReport {
			loc, err := cs.ResolveCheckpointPointer(ctx, chk.String(), cs.WithRegistry(reg))
			require.NoError(t, err)
			err = loc.DisposeStorageLocation(ctx)
			require.ErrorIs(t, err, vfs.ErrChanged)
			r := cs.DiscardReport{Dir: chk}
			for _, e := range fileNames(t, chk) {
				p := chk.Join(e)
				require.ErrorContains(t, err, p.Redacted(), "the error names each file left")
				r.Left = append(r.Left, p)
			}
			return r
		})
	})
}

// TestDiscardKeepsAMetadataChangedAfterItWasRead: when the _metadata of the
// checkpoint is replaced after it was read (here at the first delete),
// nothing of the checkpoint is deleted.
func TestDiscardKeepsAMetadataChangedAfterItWasRead(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		job, _ := vfskitJob(t, base)
		chk1 := job.Join("chk-1")
		other, err := vfs.ReadFile(ctx, fsOf(t, job), job.Join("chk-2", cs.MetadataFileName))
		require.NoError(t, err)
		reg, hooked := hookedRegistry(t, base)
		hooked.hook = func() {
			require.NoError(t, vfs.WriteFile(ctx, hooked.Inner, chk1.Join(cs.MetadataFileName), other, vfs.Overwrite))
		}
		before := snapshot(t, base)
		r, err := cs.DiscardCheckpoint(ctx, chk1, cs.WithRegistry(reg))
		require.ErrorIs(t, err, vfs.ErrChanged)
		assert.False(t, r.Removed())
		assert.Contains(t, r.Kept, cs.MetadataFileName+" changed")
		before[chk1.Join(cs.MetadataFileName).String()] = string(other)
		assert.Equal(t, before, snapshot(t, base), "nothing deleted")
	})
}

// openHookFS runs hook once, before the first Open of at after after
// exists.
type openHookFS struct {
	layer.Base
	at, after vfs.Path
	once      sync.Once
	hook      func()
}

func (f *openHookFS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	f.before(ctx, p)
	return f.Inner.Open(ctx, p)
}

// OpenBeneath is an open of dir/rel, as Open (vfs.OpenRegular opens with it).
func (f *openHookFS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	f.before(ctx, dir.Join(rel))
	return f.Base.OpenBeneath(ctx, dir, rel)
}

func (f *openHookFS) before(ctx context.Context, p vfs.Path) {
	if p == f.at {
		if ok, err := vfs.Exists(ctx, f.Inner, f.after); err == nil && ok {
			f.once.Do(f.hook)
		}
	}
}

// TestRelocateUndoLeavesAReplacedMetadata: a relocation whose verification
// fails undoes what it wrote, but a _metadata at the destination that someone
// else replaced after Relocate wrote it (here just before the verification
// opens it) stays byte for byte, named in the error, and so do the files
// copied (it may reference them); the other checkpoint's _metadata, still
// Relocate's, is deleted.
func TestRelocateUndoLeavesAReplacedMetadata(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		base := b.base(t)
		src, _ := vfskitJob(t, base.Join("src"))
		dst := base.Join("dst", "job")
		replaced, ours := dst.Join("chk-1", cs.MetadataFileName), dst.Join("chk-2", cs.MetadataFileName)
		theirs := []byte("someone else's _metadata")
		// Relocate writes chk-1's _metadata, then chk-2's, then verifies:
		// chk-1's is replaced when it is opened after chk-2's was written.
		hooked := &openHookFS{Base: layer.Base{Inner: fsOf(t, base)}, at: replaced, after: ours}
		fired := false
		hooked.hook = func() {
			fired = true
			require.NoError(t, vfs.WriteFile(ctx, hooked.Inner, replaced, theirs, vfs.Overwrite))
		}
		reg := vfs.NewRegistry()
		require.NoError(t, reg.Register(base.Scheme(), func(context.Context, *url.URL) (vfs.FileSystem, error) { return hooked, nil }))

		_, err := cs.Relocate(ctx, src, dst, cs.WithRegistry(reg))
		require.True(t, fired, "the _metadata was replaced before the verification opened it")
		require.Error(t, err)
		assert.ErrorContains(t, err, replaced.Redacted())
		got, err := vfs.ReadFile(ctx, hooked.Inner, replaced)
		require.NoError(t, err)
		assert.Equal(t, theirs, got, "the replaced _metadata stays")
		assert.False(t, exists(t, ours), "Relocate's own _metadata is deleted")
		left := snapshot(t, dst)
		assert.Greater(t, len(left), 1, "the copied state stays beside the _metadata that stays")
	})
}
