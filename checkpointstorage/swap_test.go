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

// swapFS is file:// that runs swap once, at the first call that at
// matches: the moment a checkpoint is swapped under the tool removing it.
type swapFS struct {
	layer.Base
	at   func(op string, p vfs.Path) bool
	once sync.Once
	swap func()
}

func (s *swapFS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	if s.at("open", p) {
		s.once.Do(s.swap)
	}
	return s.Base.Open(ctx, p)
}

func (s *swapFS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	if s.at("open", dir.Join(rel)) {
		s.once.Do(s.swap)
	}
	return s.Base.OpenBeneath(ctx, dir, rel)
}

func (s *swapFS) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	if s.at("delete", p) {
		s.once.Do(s.swap)
	}
	return s.Base.DeleteVersion(ctx, p, v)
}

// TestGCThroughASwappedCheckpointDeletesNothingOutsideTheJob: while
// CollectGarbage (gc --retain 1) removes chk-1, chk-1 is swapped for a
// symbolic link to a copy of it made with cp -a (same names, sizes and
// modification times: a backup) and the original is moved aside — before gc
// reads its _metadata, after gc listed it, or once gc deleted its _metadata
// and goes on with the rest. The copy and the original are outside the job: nothing of either is
// deleted, byte for byte, and the link stays; the files gc listed and did
// not delete are in Left, with chk-1, or the checkpoint is kept. A
// regression test: when a file:// version was its size and modification
// time only, gc deleted the copy's files through the link.
func TestGCThroughASwappedCheckpointDeletesNothingOutsideTheJob(t *testing.T) {
	cp, err := exec.LookPath("cp")
	require.NoError(t, err, "the test makes the copy with cp -a")
	for _, c := range []struct {
		name  string
		at    func(job vfs.Path) func(op string, p vfs.Path) bool
		files int // in the copy
	}{
		{"before its _metadata is read", func(job vfs.Path) func(string, vfs.Path) bool {
			return func(op string, p vfs.Path) bool { return op == "open" && p == job.Join("chk-1", cs.MetadataFileName) }
		}, 7},
		{"after it is listed, before its _metadata is deleted", func(job vfs.Path) func(string, vfs.Path) bool {
			return func(op string, p vfs.Path) bool { return op == "delete" && p == job.Join("chk-1", cs.MetadataFileName) }
		}, 7},
		{"after its _metadata is deleted", func(job vfs.Path) func(string, vfs.Path) bool {
			return func(op string, p vfs.Path) bool {
				_, in := p.Rel(job.Join("chk-1"))
				return op == "delete" && in && p.Name() != cs.MetadataFileName
			}
		}, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
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
			fsys := &swapFS{Base: layer.Base{Inner: local.New()}, at: c.at(job), swap: func() {
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
			assert.Len(t, backupBefore, c.files, "the files of the copy")
			assert.Equal(t, backupBefore, localTree(t, backup), "nothing of the copy is deleted or changed")
			assert.Equal(t, asideBefore, localTree(t, aside), "nothing of the original moved aside is deleted or changed")
			target, err := os.Readlink(chk)
			require.NoError(t, err, "the link stays")
			assert.Equal(t, filepath.Join(backup, "chk-1"), target)
			require.Len(t, jobs, 1)
			require.Len(t, jobs[0].Reports, 1)
			r := jobs[0].Reports[0]
			assert.Equal(t, job.Join("chk-1"), r.Dir)
			if r.Kept == "" {
				assert.True(t, r.Partial(), "chk-1 is reported partly removed")
				assert.Len(t, r.Left, c.files+1, "every file listed in chk-1 after its _metadata is left (what the link leads to is another file), and chk-1: %v", r.Left)
				assert.Contains(t, r.Left, job.Join("chk-1"))
			}
		})
	}
}
