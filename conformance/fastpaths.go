package conformance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// fastPathCases check that the optional methods a file system offers
// (vfs.ReadFileFS, vfs.WriteFileFS, vfs.CopyFS, vfs.DirSyncer,
// vfs.OpenBeneathFS) agree with its
// streams: what one way writes, the other reads back byte for byte, with the
// same write modes and errors. Without an optional interface vfs's helpers use
// the streams, and the cases still hold.
//
// They are the cases that catch a layer which changes what Create or Open do
// (encryption, compression, a quota) but inherits a fast path from layer.Base
// that goes straight to the file system below, around the change.
var fastPathCases = []testCase{
	{name: "StreamThenReadFile", run: func(t *testing.T, e *env) {
		p := e.path("streamed")
		want := pattern(11, 0, 70_000)
		e.write(t, p, want)
		got, err := vfs.ReadFile(e.ctx, e.fsys, p)
		require.NoError(t, err, "vfs.ReadFile(%s) of a file written with Create", p)
		requireSameBytes(t, want, got, "vfs.ReadFile(%s) of a file written with Create", p)
		_, err = vfs.ReadFile(e.ctx, e.fsys, e.path("missing"))
		requirePathError(t, err, fs.ErrNotExist, e.path("missing"), "vfs.ReadFile of a missing file")
	}},
	{name: "StreamThenOpenBeneath", run: func(t *testing.T, e *env) {
		// vfs.OpenBeneathFS, which CopyTree, MoveTree and vfs.OpenRegular
		// open files with, reads what Open reads.
		p := e.path("beneath", "file")
		want := pattern(16, 0, 70_000)
		e.write(t, p, want)
		in, err := vfs.OpenRegular(e.ctx, e.fsys, p)
		require.NoError(t, err, "vfs.OpenRegular(%s) of a file written with Create", p)
		got, err := io.ReadAll(in)
		require.NoError(t, errors.Join(err, in.Close()), "read of %s opened with vfs.OpenRegular", p)
		requireSameBytes(t, want, got, "vfs.OpenRegular(%s) of a file written with Create", p)
		ob, ok := e.fsys.(vfs.OpenBeneathFS)
		if !ok {
			return
		}
		in, err = ob.OpenBeneath(e.ctx, e.path(), "beneath/file")
		if errors.Is(err, errors.ErrUnsupported) {
			return
		}
		require.NoError(t, err, "OpenBeneath(%s, %q) of a file written with Create", e.path(), "beneath/file")
		got, err = io.ReadAll(in)
		require.NoError(t, errors.Join(err, in.Close()), "read of %s opened with OpenBeneath", p)
		requireSameBytes(t, want, got, "OpenBeneath(%s, %q) of a file written with Create", e.path(), "beneath/file")
	}},
	{name: "WriteFileThenStream", run: func(t *testing.T, e *env) {
		p := e.path("helper")
		want := pattern(12, 0, 70_000)
		require.NoError(t, vfs.WriteFile(e.ctx, e.fsys, p, want, vfs.NoOverwrite), "vfs.WriteFile(%s)", p)
		e.requireContent(t, p, want)
		err := vfs.WriteFile(e.ctx, e.fsys, p, []byte("other"), vfs.NoOverwrite)
		requirePathError(t, err, fs.ErrExist, p, "vfs.WriteFile(%s, NoOverwrite) onto an existing file", p)
		e.requireContent(t, p, want)
		require.NoError(t, vfs.WriteFile(e.ctx, e.fsys, p, []byte("replaced"), vfs.Overwrite), "vfs.WriteFile(%s, Overwrite)", p)
		e.requireContent(t, p, []byte("replaced"))
	}},
	{name: "CopyFile", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("dst")
		want := pattern(13, 0, 70_000)
		e.write(t, src, want)
		e.write(t, dst, []byte("kept"))
		_, err := vfs.CopyWithMode(e.ctx, e.fsys, dst, e.fsys, src, vfs.NoOverwrite)
		requirePathError(t, err, fs.ErrExist, dst, "vfs.CopyWithMode(%s, %s, NoOverwrite) onto an existing file", dst, src)
		e.requireContent(t, dst, []byte("kept"))
		n, err := vfs.CopyWithMode(e.ctx, e.fsys, dst, e.fsys, src, vfs.Overwrite)
		require.NoError(t, err, "vfs.CopyWithMode(%s, %s, Overwrite)", dst, src)
		require.Equal(t, int64(len(want)), n, "bytes copied")
		e.requireContent(t, dst, want)
		e.requireContent(t, src, want)
	}},
	{name: "StreamStat", run: func(t *testing.T, e *env) {
		// vfs.StatStream (an object store's stream knows the status of the
		// version it reads) must tell what Stat tells.
		p := e.path("stat")
		want := pattern(15, 0, 5_000)
		e.write(t, p, want)
		st, err := e.fsys.Stat(e.ctx, p)
		require.NoError(t, err, "Stat(%s)", p)
		in, err := e.fsys.Open(e.ctx, p)
		require.NoError(t, err, "Open(%s)", p)
		defer in.Close()
		buf := make([]byte, 10)
		_, err = io.ReadFull(in, buf)
		require.NoError(t, err, "Read of %s", p)
		got, err := vfs.StatStream(e.ctx, e.fsys, p, in)
		require.NoError(t, err, "vfs.StatStream(%s) after a read", p)
		require.Equal(t, st.Path, got.Path, "vfs.StatStream(%s): path", p)
		require.Equal(t, st.Size, got.Size, "vfs.StatStream(%s): size", p)
		require.False(t, got.IsDir, "vfs.StatStream(%s): IsDir", p)
		require.True(t, st.ModTime.Equal(got.ModTime), "vfs.StatStream(%s): ModTime %v, Stat says %v", p, got.ModTime, st.ModTime)
	}},
	{name: "CreateUnsynced", run: func(t *testing.T, e *env) {
		ds, ok := e.fsys.(vfs.DirSyncer)
		if !ok {
			t.Skip("the file system does not implement vfs.DirSyncer")
		}
		dir := e.path("dir")
		p := dir.Join("unsynced")
		want := pattern(14, 0, 70_000)
		out, err := ds.CreateUnsynced(e.ctx, p, vfs.NoOverwrite)
		require.NoError(t, err, "CreateUnsynced(%s)", p)
		n, err := out.Write(want)
		require.NoError(t, err, "Write to %s", p)
		require.Equal(t, len(want), n, "Write to %s: short write", p)
		ok, err = vfs.Exists(e.ctx, e.fsys, p)
		require.NoError(t, err, "Exists(%s) before Close", p)
		require.False(t, ok, "%s exists before the Close of its CreateUnsynced stream", p)
		require.NoError(t, out.Close(), "Close of the CreateUnsynced stream to %s", p)
		require.NoError(t, ds.SyncDir(e.ctx, dir), "SyncDir(%s)", dir)
		e.requireContent(t, p, want)
		got, err := vfs.ReadFile(e.ctx, e.fsys, p)
		require.NoError(t, err, "vfs.ReadFile(%s)", p)
		requireSameBytes(t, want, got, "vfs.ReadFile(%s) of a file written with CreateUnsynced", p)

		err = writeClose(e, ds.CreateUnsynced, p, []byte("must not be published"), vfs.NoOverwrite)
		requirePathError(t, err, fs.ErrExist, p, "CreateUnsynced(%s, NoOverwrite) onto an existing file", p)
		e.requireContent(t, p, want)
		require.NoError(t, writeClose(e, ds.CreateUnsynced, p, []byte("replaced"), vfs.Overwrite), "CreateUnsynced(%s, Overwrite)", p)
		e.requireContent(t, p, []byte("replaced"))
	}},
}

// writeClose creates p with create and mode, writes data and closes the
// stream; it returns the first error (the contract lets a refusal come at
// Create or at Close).
func writeClose(e *env, create func(context.Context, vfs.Path, vfs.WriteMode) (vfs.OutputStream, error), p vfs.Path, data []byte, mode vfs.WriteMode) error {
	out, err := create(e.ctx, p, mode)
	if err != nil {
		return err
	}
	_, werr := out.Write(data)
	if err := out.Close(); err != nil {
		return err
	}
	return werr
}

// requireSameBytes requires got to equal want, naming the first difference
// instead of printing both.
func requireSameBytes(t *testing.T, want, got []byte, msgAndArgs ...any) {
	t.Helper()
	if bytes.Equal(want, got) {
		return
	}
	require.Failf(t, "bytes differ", "%s: %d bytes, want %d; first difference at byte %d",
		describe(msgAndArgs), len(got), len(want), firstDiff(want, got))
}
