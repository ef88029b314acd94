package checkpointstorage_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// swapOnDelete is file:// that, at the first conditional delete of a file
// below dir other than its _metadata, runs swap once first: the moment after
// the checkpoint was listed, read and its _metadata deleted.
type swapOnDelete struct {
	layer.Base
	dir  vfs.Path
	once sync.Once
	swap func()
}

func (s *swapOnDelete) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	if _, in := p.Rel(s.dir); in && p != s.dir && p.Name() != cs.MetadataFileName {
		s.once.Do(s.swap)
	}
	return s.Base.DeleteVersion(ctx, p, v)
}

// TestGCThroughASwappedCheckpointDeletesNothingOutsideTheJob: while
// CollectGarbage (gc --retain 1) removes chk-1, chk-1 is swapped for a
// symbolic link to a copy of it made with cp -a (same names, sizes and
// modification times: a backup) and the original is moved aside. The copy
// and the original are outside the job: nothing of either is deleted, byte
// for byte; the files gc listed and did not delete are in Left, with chk-1,
// and the link stays. A
// regression test: when a file:// version was its size and modification
// time only, gc deleted the copy's files through the link.
func TestGCThroughASwappedCheckpointDeletesNothingOutsideTheJob(t *testing.T) {
	cp, err := exec.LookPath("cp")
	require.NoError(t, err, "the test makes the copy with cp -a")
	ctx := t.Context()
	dir := t.TempDir()
	base := fileURI(filepath.Join(dir, "ckpt"))
	job, _ := vfskitJob(t, base)
	chk := filepath.Join(dir, "ckpt", job.Name(), "chk-1")
	for i := range 5 {
		require.NoError(t, os.WriteFile(filepath.Join(chk, fmt.Sprintf("state-%d", i)), []byte(fmt.Sprintf("state %d", i)), 0o644))
	}
	backup, aside := filepath.Join(dir, "backup"), filepath.Join(dir, "aside")
	require.NoError(t, os.Mkdir(backup, 0o755))
	require.NoError(t, os.Mkdir(aside, 0o755))
	var backupBefore, asideBefore map[string]string
	fsys := &swapOnDelete{Base: layer.Base{Inner: local.New()}, dir: job.Join("chk-1"), swap: func() {
		out, err := exec.Command(cp, "-a", chk, backup).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.NoError(t, os.Rename(chk, filepath.Join(aside, "chk-1")))
		require.NoError(t, os.Symlink(filepath.Join(backup, "chk-1"), chk))
		backupBefore, asideBefore = localTree(t, backup), localTree(t, aside)
	}}
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register("file", func(context.Context, *url.URL) (vfs.FileSystem, error) { return fsys, nil }))

	jobs, err := cs.CollectGarbage(ctx, job, 1, cs.WithRegistry(reg))
	require.NoError(t, err)
	require.NotNil(t, backupBefore, "the swap happened")
	assert.Len(t, backupBefore, 6, "the copy holds the state file and five more (its _metadata was deleted before the swap)")
	assert.Equal(t, backupBefore, localTree(t, backup), "nothing of the copy is deleted or changed")
	assert.Equal(t, asideBefore, localTree(t, aside), "nothing of the original moved aside is deleted or changed")
	require.Len(t, jobs, 1)
	require.Len(t, jobs[0].Reports, 1)
	r := jobs[0].Reports[0]
	assert.Equal(t, job.Join("chk-1"), r.Dir)
	assert.Len(t, r.Left, 7, "every file listed in chk-1 after its _metadata is left (what the link leads to is another file), and chk-1: %v", r.Left)
	assert.Contains(t, r.Left, job.Join("chk-1"))
	target, err := os.Readlink(chk)
	require.NoError(t, err, "the link stays")
	assert.Equal(t, filepath.Join(backup, "chk-1"), target)
}
