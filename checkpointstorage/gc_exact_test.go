package checkpointstorage_test

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// deleteHookFS runs hook once, before the first Delete or DeleteVersion it
// is asked for; both then go to the file system below (its own conditional
// delete).
type deleteHookFS struct {
	layer.Base
	once sync.Once
	hook func()
}

func (f *deleteHookFS) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	f.once.Do(f.hook)
	return f.Inner.Delete(ctx, p, recursive)
}

func (f *deleteHookFS) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	f.once.Do(f.hook)
	return f.Base.DeleteVersion(ctx, p, v)
}

// TestGCDeletesOnlyWhatItListed: while gc removes an old checkpoint, a file
// is written into it and one of its files is rewritten. Both stay byte for
// byte, gc reports the checkpoint as partly removed naming them, and the rest
// of the checkpoint is gone.
func TestGCDeletesOnlyWhatItListed(t *testing.T) {
	ctx := t.Context()
	base := memPath("memory://gc-exact/ckpt")
	reg := vfs.NewRegistry()
	var inner vfs.FileSystem
	var hooked *deleteHookFS
	require.NoError(t, reg.Register("memory", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		fsys, err := memfs.Factory(ctx, u)
		if err != nil || u.Host != base.Authority() {
			return fsys, err
		}
		if hooked == nil {
			inner = fsys
			hooked = &deleteHookFS{Base: layer.Base{Inner: fsys}}
		}
		return hooked, nil
	}))
	job, _ := vfskitJob(t, base, cs.WithRegistry(reg))
	chk1 := job.Join("chk-1")
	var listed []vfs.Path
	require.NoError(t, vfs.Walk(ctx, inner, chk1, func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir && st.Name() != cs.MetadataFileName {
			listed = append(listed, st.Path)
		}
		return err
	}))
	require.NotEmpty(t, listed)
	late, rewritten := chk1.Join("late"), listed[0]
	lateBytes, newBytes := []byte("written during gc"), []byte("rewritten during gc")
	hooked.hook = func() {
		require.NoError(t, vfs.WriteFile(ctx, inner, late, lateBytes, vfs.NoOverwrite))
		require.NoError(t, vfs.WriteFile(ctx, inner, rewritten, newBytes, vfs.Overwrite))
	}

	jobs, err := cs.CollectGarbage(ctx, job, 1, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.Len(t, jobs[0].Reports, 1)
	r := jobs[0].Reports[0]
	assert.Equal(t, chk1, r.Dir)
	assert.True(t, r.Removed())
	assert.True(t, r.Partial())
	assert.ElementsMatch(t, []vfs.Path{late, rewritten}, r.Left)

	got, err := vfs.ReadFile(ctx, inner, late)
	require.NoError(t, err)
	assert.Equal(t, lateBytes, got)
	got, err = vfs.ReadFile(ctx, inner, rewritten)
	require.NoError(t, err)
	assert.Equal(t, newBytes, got)
	var left []vfs.Path
	require.NoError(t, vfs.Walk(ctx, inner, chk1, func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir {
			left = append(left, st.Path)
		}
		return err
	}))
	assert.ElementsMatch(t, []vfs.Path{late, rewritten}, left, "everything gc listed and nobody touched is gone")
	_, _, err = cs.LoadCheckpoint(ctx, job.Join("chk-2").String(), cs.WithRegistry(reg))
	require.NoError(t, err, "the retained checkpoint restores")
}
