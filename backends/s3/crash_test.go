package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// crashDirEnv and crashBucketEnv tell TestRecoverableCrashChild where to
// leave its tokens and which bucket to write to.
const (
	crashDirEnv    = "VFSKIT_TEST_RW_CRASH_DIR"
	crashBucketEnv = "VFSKIT_TEST_RW_CRASH_BUCKET"
)

// crashChunk is the size of each chunk the crash test writes: not a divisor
// of the part size, so persists leave tails.
const crashChunk = 1<<20 + 3

// crashChunks is the number of chunks of the whole file.
const crashChunks = 40

// crashTarget is the file the crash test writes.
const crashTarget = "crash/out.bin"

// TestRecoverableCrashChild is the writer TestRecoverableCrash kills: it
// writes chunks to s3://$bucket/crash/out.bin, persists after every third
// and leaves each token in $dir/tok-N (written whole, then renamed), and
// goes on writing until it is killed.
func TestRecoverableCrashChild(t *testing.T) {
	dir, bucket := os.Getenv(crashDirEnv), os.Getenv(crashBucketEnv)
	if dir == "" {
		t.Skip("the child of TestRecoverableCrash")
	}
	ctx := context.Background()
	fsys, err := s3.New(ctx, bucket, s3.Options{PartSize: s3.MinPartSize})
	require.NoError(t, err)
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	out, err := w.Open(ctx, vfs.MustPath("s3://"+bucket+"/"+crashTarget))
	require.NoError(t, err)
	for i := range crashChunks {
		_, err := out.Write(rwtest.Data(i, crashChunk))
		require.NoError(t, err)
		if i%3 == 2 {
			tok, err := out.Persist(ctx)
			require.NoError(t, err)
			tmp := filepath.Join(dir, "tmp")
			require.NoError(t, os.WriteFile(tmp, tok, 0o600))
			require.NoError(t, os.Rename(tmp, filepath.Join(dir, fmt.Sprintf("tok-%d", i/3+1))))
		}
	}
	select {} // wait for the kill
}

// TestRecoverableCrash: a child process writes and persists to s3:// and is
// killed with SIGKILL while it writes on; this process recovers from the last
// token, writes the rest and commits: the file is byte for byte what a
// writer that never crashed would have written, and nothing (multipart
// upload, temporary object) is left after commit and cleanup. vfs.CleanTemp
// between the kill and the recovery removes nothing.
func TestRecoverableCrash(t *testing.T) {
	if os.Getenv(crashDirEnv) != "" {
		t.Skip("in the child")
	}
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	o := optionsFor(srv, nil)
	o.PartSize = s3.MinPartSize
	fsys, bucket := newFS(t, srv, o)
	dir := t.TempDir()

	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRecoverableCrashChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), srv.Env()...), crashDirEnv+"="+dir, crashBucketEnv+"="+bucket)
	log, err := os.Create(filepath.Join(dir, "log"))
	require.NoError(t, err)
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	// Kill it as soon as its fourth token is there: it is writing on, parts
	// in flight.
	const killAt = 4
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("tok-%d", killAt))); err == nil {
			break
		}
		if i == 12000 {
			out, _ := os.ReadFile(log.Name())
			require.FailNow(t, "no token from the child", "token %d never came: %s", killAt, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	target := vfs.MustPath("s3://" + bucket + "/" + crashTarget)
	_, err = fsys.Stat(ctx, target)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing is visible before commit")
	// clean-temp, at any age, leaves the dead stream's upload and tails alone.
	time.Sleep(1100 * time.Millisecond) // past the listing's one-second precision
	removed, err := vfs.CleanTemp(ctx, fsys, target.Parent(), 0)
	require.NoError(t, err)
	require.Empty(t, removed, "clean-temp removed recoverable state")
	require.Len(t, uploadsUnder(t, srv, bucket, target.Parent()), 1, "the stream's multipart upload is still there")

	var toks []vfs.ResumeRecoverable
	for n := 1; ; n++ {
		tok, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("tok-%d", n)))
		if err != nil {
			break
		}
		toks = append(toks, tok)
	}
	require.GreaterOrEqual(t, len(toks), killAt)
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	out, err := w.Recover(ctx, toks[len(toks)-1])
	require.NoError(t, err)
	done := int(out.Pos() / crashChunk)
	require.Equal(t, int64(done*crashChunk), out.Pos(), "the token's position is at a chunk's end")
	require.Equal(t, 3*len(toks), done)
	var want bytes.Buffer
	for i := range crashChunks {
		chunk := rwtest.Data(i, crashChunk)
		want.Write(chunk)
		if i >= done {
			_, err := out.Write(chunk)
			require.NoError(t, err)
		}
	}
	com, err := out.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, com.Commit(ctx))
	rwtest.RequireContent(t, fsys, target, want.Bytes())
	for _, tok := range toks {
		require.NoError(t, w.CleanupRecoverableState(ctx, tok))
	}
	rwtest.RequireOnly(t, fsys, target.Parent(), "out.bin")
	require.Empty(t, uploadsUnder(t, srv, bucket, target.Parent()))
}
