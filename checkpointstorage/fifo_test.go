//go:build unix

package checkpointstorage_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// neverOpened runs f while watching the FIFO fifo: opening it for writing
// without blocking succeeds only while a reader has it open, which must never
// happen. If it does, the test fails and the write end, closed at once,
// lets the reader go on (it reads nothing).
func neverOpened(t *testing.T, fifo, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
			t.Errorf("%s opened the FIFO %s", what, fifo)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFIFOMetadataIsNeverOpened: a job whose newest chk-N has a FIFO as its
// _metadata (and a FIFO among its state files): listing, the latest
// checkpoint, retention, gc, the audit and loading report it and never open
// it (a FIFO with no writer would block the reader forever).
func TestFIFOMetadataIsNeverOpened(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	base := fileURI(filepath.Join(dir, "ckpt"))
	jobDir, _ := vfskitJob(t, base)
	local := filepath.Join(dir, "ckpt", jobDir.Name())
	fifo := filepath.Join(local, "chk-3", cs.MetadataFileName)
	require.NoError(t, os.MkdirAll(filepath.Dir(fifo), 0o755))
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(local, "shared", "pipe"), 0o644))

	neverOpened(t, fifo, "TakeInventory", func() {
		inv, err := cs.TakeInventory(ctx, jobDir)
		require.NoError(t, err)
		require.Len(t, inv.Snapshots, 3)
		assert.False(t, inv.Snapshots[2].Completed)
		assert.ErrorContains(t, inv.Snapshots[2].Err, "not a regular file")
	})
	neverOpened(t, fifo, "ListCompletedCheckpoints", func() {
		infos, err := cs.ListCompletedCheckpoints(ctx, jobDir)
		require.NoError(t, err)
		assert.Len(t, infos, 2)
	})
	neverOpened(t, fifo, "LatestCompletedCheckpoint", func() {
		info, err := cs.LatestCompletedCheckpoint(ctx, jobDir)
		require.NoError(t, err)
		assert.Equal(t, int64(2), info.CheckpointID)
	})
	neverOpened(t, fifo, "LoadCheckpoint", func() {
		_, _, err := cs.LoadCheckpoint(ctx, jobDir.Join("chk-3").String())
		assert.ErrorContains(t, err, "not a regular file")
	})
	neverOpened(t, fifo, "AuditJob", func() {
		_, err := cs.AuditJob(ctx, jobDir)
		require.NoError(t, err)
	})
	neverOpened(t, fifo, "CollectGarbage", func() {
		jobs, err := cs.CollectGarbage(ctx, jobDir, 1)
		require.NoError(t, err)
		require.Len(t, jobs, 1)
	})
	neverOpened(t, fifo, "RetainCheckpoints", func() {
		_, err := cs.RetainCheckpoints(ctx, jobDir, 1)
		require.NoError(t, err)
	})
	st, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeNamedPipe, "the FIFO is kept: its checkpoint cannot be judged")
}

// TestRemovalLeavesSpecialFiles: a FIFO in a checkpoint that DiscardCheckpoint,
// RetainCheckpoints or CollectGarbage removes is never opened nor deleted:
// the report names it (Special, partly removed), and the checkpoint's other
// files are gone.
func TestRemovalLeavesSpecialFiles(t *testing.T) {
	for _, remove := range []struct {
		name string
		run  func(t *testing.T, job vfs.Path) cs.DiscardReport
	}{
		{"discard", func(t *testing.T, job vfs.Path) cs.DiscardReport {
			r, err := cs.DiscardCheckpoint(t.Context(), job.Join("chk-1"))
			require.ErrorIs(t, err, vfs.ErrNotRegular)
			return r
		}},
		{"retain", func(t *testing.T, job vfs.Path) cs.DiscardReport {
			rs, err := cs.RetainCheckpoints(t.Context(), job, 1)
			require.NoError(t, err)
			require.Len(t, rs, 1)
			return rs[0]
		}},
		{"gc", func(t *testing.T, job vfs.Path) cs.DiscardReport {
			jobs, err := cs.CollectGarbage(t.Context(), job, 1)
			require.NoError(t, err)
			require.Len(t, jobs, 1)
			require.Len(t, jobs[0].Reports, 1)
			return jobs[0].Reports[0]
		}},
	} {
		t.Run(remove.name, func(t *testing.T) {
			dir := t.TempDir()
			job, _ := vfskitJob(t, fileURI(filepath.Join(dir, "ckpt")))
			chk1 := job.Join("chk-1")
			fifo := filepath.FromSlash(chk1.Join("pipe").Path())
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			var r cs.DiscardReport
			neverOpened(t, fifo, remove.name, func() { r = remove.run(t, job) })
			assert.True(t, r.Removed())
			assert.True(t, r.Partial())
			assert.Equal(t, []vfs.Path{chk1.Join("pipe")}, r.Special)
			assert.Empty(t, r.Left)
			st, err := os.Lstat(fifo)
			require.NoError(t, err)
			assert.NotZero(t, st.Mode()&os.ModeNamedPipe, "the FIFO stays")
			entries, err := os.ReadDir(filepath.Dir(fifo))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "the checkpoint's other files are gone")
		})
	}
}
