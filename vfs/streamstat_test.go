package vfs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// statStream is a stream that tells a fixed status, or fails with err.
type statStream struct {
	vfs.InputStream
	st  vfs.FileStatus
	err error
}

func (s statStream) Stat() (vfs.FileStatus, error) { return s.st, s.err }

// TestStatStream: the stream's own status when it tells one (even an error),
// else — a stream without StreamStater, or one that answers
// errors.ErrUnsupported — the file system's Stat.
func TestStatStream(t *testing.T) {
	ctx := t.Context()
	fsys := memfs.New()
	p := vfs.MustPath(fsys.URI().JoinPath("f").String())
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("abc"), vfs.NoOverwrite))
	in, err := fsys.Open(ctx, p)
	require.NoError(t, err)
	defer in.Close()
	want, err := fsys.Stat(ctx, p)
	require.NoError(t, err)

	st, err := vfs.StatStream(ctx, fsys, p, in)
	require.NoError(t, err)
	require.Equal(t, want, st, "no StreamStater: Stat")

	own := vfs.FileStatus{Path: p, Size: 99, ModTime: time.Unix(1, 0)}
	st, err = vfs.StatStream(ctx, fsys, p, statStream{InputStream: in, st: own})
	require.NoError(t, err)
	require.Equal(t, own, st, "the stream's own")

	st, err = vfs.StatStream(ctx, fsys, p, statStream{InputStream: in, err: fmt.Errorf("no time: %w", errors.ErrUnsupported)})
	require.NoError(t, err)
	require.Equal(t, want, st, "ErrUnsupported: Stat")

	below := vfs.FileStatus{Path: vfs.MustPath("s3://bucket/root/f"), Size: 99, ModTime: time.Unix(1, 0)}
	st, err = vfs.StatStream(ctx, fsys, vfs.MustPath("/f"), statStream{InputStream: in, st: below})
	require.NoError(t, err)
	require.Equal(t, own, st, "the stream's own size and time, under the path asked for, qualified")

	_, err = vfs.StatStream(ctx, fsys, p, statStream{InputStream: in, err: vfs.NewPathError("stat", p, fs.ErrClosed)})
	require.ErrorIs(t, err, fs.ErrClosed, "the stream's error")
}
