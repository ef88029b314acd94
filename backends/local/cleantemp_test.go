package local_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/vfs"
)

const killedWriterEnv = "VFSKIT_TEST_KILLED_WRITER"

// TestKilledWriterChild writes half a file to the path in killedWriterEnv, says
// so on stdout and waits to be killed. It runs only as TestCleanTemp's child.
func TestKilledWriterChild(t *testing.T) {
	target := os.Getenv(killedWriterEnv)
	if target == "" {
		t.Skip("runs only as the child process of TestCleanTemp")
	}
	ctx := context.Background()
	fsys := local.New()
	out, err := fsys.Create(ctx, vfs.MustPath(target), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte(strings.Repeat("half of it ", 1000)))
	require.NoError(t, err)
	require.NoError(t, out.Sync())
	os.Stdout.WriteString("\nwriting\n")
	time.Sleep(time.Hour) // killed long before
}

// TestCleanTemp kills a writer with SIGKILL in the middle of a write on file://
// and checks that CleanTemp removes the temporary file it left once that file is
// stale, and nothing else: not the temporary file of a write in flight, not files
// that only look like temporary files, not what a symbolic link points to.
func TestCleanTemp(t *testing.T) {
	if os.Getenv(killedWriterEnv) != "" {
		t.Skip("this is the child process")
	}
	ctx := context.Background()
	fsys := local.New()
	root := t.TempDir()
	dir := vfs.MustPath(root).MakeQualified(fsys)
	sub := filepath.Join(root, "sub")
	require.NoError(t, os.Mkdir(sub, 0o777))

	// The killed writer's temporary file.
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestKilledWriterChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), killedWriterEnv+"="+filepath.Join(sub, "report.csv"))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "writing" {
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait(), "the writer was killed")
	leftover, err := filepath.Glob(filepath.Join(sub, ".vfskit-tmp-*"))
	require.NoError(t, err)
	require.Len(t, leftover, 1, "the killed writer left its temporary file")
	assert.NoFileExists(t, filepath.Join(sub, "report.csv"), "and published nothing")

	// Look-alikes, all old: not ours, so never removed.
	old := time.Now().Add(-48 * time.Hour)
	outside := filepath.Join(t.TempDir(), ".vfskit-tmp-1")
	lookAlikes := []string{
		filepath.Join(root, ".vfskit-tmp-report.txt"), // not a write id and its check
		filepath.Join(root, ".vfskit-tmp-1"),
		filepath.Join(root, ".vfskit-tmp-0123456789abcdef01234567"), // a wrong check
		filepath.Join(root, ".vfskit-tmp-"),
		filepath.Join(root, "x.vfskit-tmp-1"),
		filepath.Join(root, ".VFSKIT-TMP-1"),
		outside, // reached only through a symbolic link
	}
	for _, n := range lookAlikes {
		require.NoError(t, os.WriteFile(n, []byte("keep me"), 0o666))
	}
	require.NoError(t, os.Mkdir(filepath.Join(root, ".vfskit-tmp-2"), 0o777)) // a directory
	require.NoError(t, os.Symlink(outside, filepath.Join(root, ".vfskit-tmp-3")))
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(root, "link")))
	for _, n := range append(lookAlikes, filepath.Join(root, ".vfskit-tmp-2"), leftover[0]) {
		require.NoError(t, os.Chtimes(n, old, old))
	}

	// A write in flight: its temporary file is fresh.
	inflight, err := fsys.Create(ctx, dir.Join("sub", "live.csv"), vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = inflight.Write([]byte("still writing"))
	require.NoError(t, err)
	require.NoError(t, inflight.Flush())

	want := []vfs.Path{dir.Join("sub", filepath.Base(leftover[0]))}
	found, err := vfs.FindTemp(ctx, fsys, dir, time.Hour)
	require.NoError(t, err)
	assert.Equal(t, want, found)
	assert.FileExists(t, leftover[0], "a dry run removes nothing")

	removed, err := vfs.CleanTemp(ctx, fsys, dir, time.Hour)
	require.NoError(t, err)
	assert.Equal(t, want, removed)
	assert.NoFileExists(t, leftover[0], "the stale temporary file is gone")
	for _, n := range lookAlikes {
		data, err := os.ReadFile(n)
		require.NoError(t, err, "%s stays", n)
		assert.Equal(t, "keep me", string(data))
	}
	assert.DirExists(t, filepath.Join(root, ".vfskit-tmp-2"))
	_, err = os.Lstat(filepath.Join(root, ".vfskit-tmp-3"))
	assert.NoError(t, err, "a symbolic link stays")

	require.NoError(t, inflight.Close(), "the write in flight still publishes")
	got, err := vfs.ReadFile(ctx, fsys, dir.Join("sub", "live.csv"))
	require.NoError(t, err)
	assert.Equal(t, "still writing", string(got))

	// With no age limit the in-flight file would have counted; now none is left.
	removed, err = vfs.CleanTemp(ctx, fsys, dir, 0)
	require.NoError(t, err)
	assert.Empty(t, removed)
	_, err = vfs.CleanTemp(ctx, fsys, dir, -time.Second)
	assert.ErrorIs(t, err, os.ErrInvalid)
	_, err = vfs.CleanTemp(ctx, fsys, dir.Join("missing"), time.Hour)
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = vfs.CleanTemp(ctx, fsys, dir.Join("x.vfskit-tmp-1"), time.Hour)
	assert.ErrorIs(t, err, vfs.ErrNotDir)
}
