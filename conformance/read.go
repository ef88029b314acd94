package conformance

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// openCases check Open's failures.
var openCases = []testCase{
	{name: "Missing", run: func(t *testing.T, e *env) {
		p := e.path("missing")
		e.requireOpenFails(t, p, fs.ErrNotExist, []error{fs.ErrNotExist}, "of a missing file")
	}},
	{name: "Directory", run: func(t *testing.T, e *env) {
		d := e.path("dir")
		e.write(t, d.Join("file"), []byte("x"))
		e.requireOpenFails(t, d, vfs.ErrIsDir, []error{vfs.ErrIsDir, fs.ErrNotExist}, "of a directory")
	}},
	{name: "EmptyDirectory", fileSystemOnly: noEmptyDirs, run: func(t *testing.T, e *env) {
		d := e.path("dir")
		require.NoError(t, e.fsys.Mkdirs(e.ctx, d), "Mkdirs(%s)", d)
		in, err := e.fsys.Open(e.ctx, d)
		if err == nil {
			_ = in.Close()
		}
		requirePathError(t, err, vfs.ErrIsDir, d, "Open(%s) of an empty directory", d)
	}},
}

// seekFileSize is the size of the file the Read cases seek in: past 1 MiB, so that
// backends that read in ranges or blocks cross a boundary.
const seekFileSize = 1<<20 + 13

// seekOffsets are the offsets the Read cases visit: both sides of common buffer
// sizes, the middle, and the end.
func seekOffsets(size int64) []int64 {
	return []int64{0, 1, 7, 8, 9, 4095, 4096, 4097, 65_535, 65_536, 65_537, size / 2, 1 << 20, size - 100, size - 2, size - 1}
}

// readCases check Read, Seek with every whence, and ReadAt, including behaviour at
// and past the end of the file.
var readCases = []testCase{
	{name: "Seek", run: func(t *testing.T, e *env) {
		in, size := e.openSeekFile(t)
		const n = 100
		buf := make([]byte, n)
		for _, off := range seekOffsets(size) {
			pos, err := in.Seek(off, io.SeekStart)
			require.NoError(t, err, "Seek(%d, SeekStart)", off)
			require.Equal(t, off, pos, "Seek(%d, SeekStart)", off)
			want := pattern(7, off, int(min(n, size-off)))
			got, err := io.ReadFull(in, buf)
			if len(want) < n {
				require.ErrorIs(t, err, io.ErrUnexpectedEOF, "ReadFull of %d bytes at %d, %d before the end", n, off, size-off)
			} else {
				require.NoError(t, err, "ReadFull of %d bytes at %d", n, off)
			}
			require.True(t, bytes.Equal(want, buf[:got]), "bytes read after Seek(%d, SeekStart) are wrong", off)

			// SeekCurrent reports and moves relative to the position after the read.
			cur, err := in.Seek(0, io.SeekCurrent)
			require.NoError(t, err, "Seek(0, SeekCurrent)")
			require.Equal(t, off+int64(got), cur, "Seek(0, SeekCurrent) after reading %d bytes at %d", got, off)
			back, err := in.Seek(-int64(got), io.SeekCurrent)
			require.NoError(t, err, "Seek(%d, SeekCurrent)", -got)
			require.Equal(t, off, back, "Seek(%d, SeekCurrent) from %d", -got, cur)
			m, err := io.ReadFull(in, buf[:got])
			require.NoError(t, err, "re-reading %d bytes at %d", got, off)
			require.True(t, bytes.Equal(want, buf[:m]), "bytes re-read after Seek(%d, SeekCurrent) are wrong", -got)

			// SeekEnd counts back from the end.
			fromEnd := off - size
			pos, err = in.Seek(fromEnd, io.SeekEnd)
			require.NoError(t, err, "Seek(%d, SeekEnd)", fromEnd)
			require.Equal(t, off, pos, "Seek(%d, SeekEnd) of a %d-byte file", fromEnd, size)
			m, _ = io.ReadFull(in, buf)
			require.True(t, bytes.Equal(want, buf[:m]), "bytes read after Seek(%d, SeekEnd) are wrong", fromEnd)
		}

		// At the end, Read returns 0, io.EOF.
		pos, err := in.Seek(0, io.SeekEnd)
		require.NoError(t, err, "Seek(0, SeekEnd)")
		require.Equal(t, size, pos, "Seek(0, SeekEnd)")
		m, err := in.Read(buf)
		require.Zero(t, m, "Read at the end of the file")
		require.ErrorIs(t, err, io.EOF, "Read at the end of the file")

		// Seeking before the start is an error (io.Seeker); so is an unknown whence.
		_, err = in.Seek(-1, io.SeekStart)
		require.Error(t, err, "Seek(-1, SeekStart) must fail")
		_, err = in.Seek(-size-1, io.SeekEnd)
		require.Error(t, err, "Seek(%d, SeekEnd) must fail", -size-1)
		_, err = in.Seek(0, 42)
		require.Error(t, err, "Seek with whence 42 must fail")

		// The stream still works after the failed seeks.
		pos, err = in.Seek(10, io.SeekStart)
		require.NoError(t, err, "Seek(10, SeekStart) after failed seeks")
		require.Equal(t, int64(10), pos)
		_, err = io.ReadFull(in, buf)
		require.NoError(t, err, "Read after failed seeks")
		require.True(t, bytes.Equal(pattern(7, 10, n), buf), "bytes read at 10 after failed seeks are wrong")
	}},
	{name: "ReadAt", run: func(t *testing.T, e *env) {
		in, size := e.openSeekFile(t)
		const n = 100
		buf := make([]byte, n)
		for _, off := range seekOffsets(size) {
			m, err := in.ReadAt(buf, off)
			want := pattern(7, off, int(min(n, size-off)))
			require.Equal(t, len(want), m, "ReadAt(%d bytes, %d) of a %d-byte file", n, off, size)
			switch {
			case m < n:
				require.ErrorIs(t, err, io.EOF, "ReadAt(%d bytes, %d): a short read must say io.EOF", n, off)
			case off+n < size:
				require.NoError(t, err, "ReadAt(%d bytes, %d)", n, off)
			default: // a full read that ends exactly at the end: nil or io.EOF
				if err != nil {
					require.ErrorIs(t, err, io.EOF, "ReadAt(%d bytes, %d) ending at the end of the file", n, off)
				}
			}
			require.True(t, bytes.Equal(want, buf[:m]), "ReadAt(%d bytes, %d) returned the wrong bytes", n, off)
		}
		for _, off := range []int64{size, size + 1, size + 1<<20} {
			m, err := in.ReadAt(buf, off)
			require.Zero(t, m, "ReadAt at %d, past the end of a %d-byte file", off, size)
			require.ErrorIs(t, err, io.EOF, "ReadAt at %d, past the end of a %d-byte file", off, size)
		}
		m, err := in.ReadAt(buf, -1)
		require.Error(t, err, "ReadAt at -1 must fail")
		require.Zero(t, m, "ReadAt at -1")
	}},
	{name: "ReadAtKeepsOffset", run: func(t *testing.T, e *env) {
		// ReadAt does not move the offset Read uses.
		in, size := e.openSeekFile(t)
		buf := make([]byte, 10)
		_, err := io.ReadFull(in, buf)
		require.NoError(t, err, "first Read")
		_, err = in.ReadAt(make([]byte, 1000), size/2)
		require.NoError(t, err, "ReadAt in the middle")
		_, err = io.ReadFull(in, buf)
		require.NoError(t, err, "Read after ReadAt")
		require.True(t, bytes.Equal(pattern(7, 10, 10), buf), "Read after ReadAt did not continue at offset 10")
		pos, err := in.Seek(0, io.SeekCurrent)
		require.NoError(t, err, "Seek(0, SeekCurrent)")
		require.Equal(t, int64(20), pos, "offset after reading 20 bytes around a ReadAt")
	}},
	{name: "IOTest", run: func(t *testing.T, e *env) {
		// testing/iotest's reader checks: tiny reads, Read(nil), Seek and ReadAt.
		// They read one byte at a time, each ReadAt a request on an object store,
		// so object stores get the small sizes only.
		sizes := []int{0, 1, 4097, 70_001}
		if e.objectStore {
			sizes = sizes[:3]
		}
		for _, size := range sizes {
			p := e.path("iotest", "file")
			want := pattern(12, 0, size)
			e.writeMode(t, p, want, vfs.Overwrite)
			in, err := e.fsys.Open(e.ctx, p)
			require.NoError(t, err, "Open(%s)", p)
			require.NoError(t, iotest.TestReader(in, want), "iotest.TestReader on a %d-byte file", size)
			require.NoError(t, in.Close(), "Close of the stream reading %s", p)
		}
	}},
	{name: "EmptyFile", run: func(t *testing.T, e *env) {
		p := e.path("empty")
		e.write(t, p, nil)
		in, err := e.fsys.Open(e.ctx, p)
		require.NoError(t, err, "Open(%s)", p)
		defer in.Close()
		buf := make([]byte, 10)
		n, err := in.Read(buf)
		require.Zero(t, n, "Read of an empty file")
		require.ErrorIs(t, err, io.EOF, "Read of an empty file")
		n, err = in.ReadAt(buf, 0)
		require.Zero(t, n, "ReadAt(0) of an empty file")
		require.ErrorIs(t, err, io.EOF, "ReadAt(0) of an empty file")
		pos, err := in.Seek(0, io.SeekEnd)
		require.NoError(t, err, "Seek(0, SeekEnd) of an empty file")
		require.Zero(t, pos, "Seek(0, SeekEnd) of an empty file")
	}},
	{name: "OneVersion", run: func(t *testing.T, e *env) {
		// A stream reads the version of the file it started with: after the file
		// is replaced, and after it is deleted, every read returns bytes of that
		// version or fails with vfs.ErrChanged; never bytes of another version.
		const size = 70_000
		p := e.path("versioned")
		v1 := pattern(21, 0, size)
		e.write(t, p, v1)
		in, err := e.fsys.Open(e.ctx, p)
		require.NoError(t, err, "Open(%s)", p)
		defer in.Close()
		buf := make([]byte, 1000)
		_, err = io.ReadFull(in, buf)
		require.NoError(t, err, "the first Read")
		require.True(t, bytes.Equal(v1[:1000], buf), "the first Read returned the wrong bytes")

		for _, change := range []string{"replaced", "deleted"} {
			if change == "replaced" {
				e.writeMode(t, p, pattern(22, 0, size), vfs.Overwrite)
			} else {
				require.NoError(t, e.fsys.Delete(e.ctx, p, false), "Delete(%s)", p)
			}
			requireOldOrChanged := func(n int, err error, off int64, what string) {
				t.Helper()
				if err != nil {
					require.ErrorIs(t, err, vfs.ErrChanged, "%s after the file was %s: the only error allowed is vfs.ErrChanged", what, change)
					require.Zero(t, n, "%s after the file was %s failed with vfs.ErrChanged but returned bytes", what, change)
					return
				}
				require.True(t, bytes.Equal(v1[off:off+int64(n)], buf[:n]),
					"%s after the file was %s returned bytes that are not the version the stream began reading", what, change)
			}
			for _, off := range []int64{30_000, 4096, 1000} {
				n, err := in.ReadAt(buf, off)
				requireOldOrChanged(n, err, off, fmt.Sprintf("ReadAt(%d bytes, %d)", len(buf), off))
				if _, err := in.Seek(off, io.SeekStart); err != nil {
					require.ErrorIs(t, err, vfs.ErrChanged, "Seek(%d) after the file was %s", off, change)
					continue
				}
				n, err = io.ReadFull(in, buf)
				requireOldOrChanged(n, err, off, fmt.Sprintf("Read after Seek(%d)", off))
			}
		}
	}},
	{name: "ReadAfterClose", run: func(t *testing.T, e *env) {
		p := e.path("file")
		e.write(t, p, []byte("data"))
		in, err := e.fsys.Open(e.ctx, p)
		require.NoError(t, err, "Open(%s)", p)
		require.NoError(t, in.Close(), "Close")
		n, err := in.Read(make([]byte, 4))
		require.Error(t, err, "Read after Close must fail")
		require.Zero(t, n, "bytes returned by a Read after Close")
	}},
}

// openSeekFile writes the file the Read cases work on, opens it for the rest of
// the case (it is closed when the case ends) and returns the stream and the
// file's size.
func (e *env) openSeekFile(t *testing.T) (vfs.InputStream, int64) {
	t.Helper()
	p := e.path("seek")
	e.write(t, p, pattern(7, 0, seekFileSize))
	in, err := e.fsys.Open(e.ctx, p)
	require.NoError(t, err, "Open(%s)", p)
	t.Cleanup(func() { _ = in.Close() })
	return in, seekFileSize
}
