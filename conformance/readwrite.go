package conformance

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// readWriteCases are create/open round trips of files of every size.
var readWriteCases = []testCase{
	{name: "Empty", run: func(t *testing.T, e *env) {
		p := e.path("empty")
		e.write(t, p, nil)
		e.requireContent(t, p, nil)
		data, err := vfs.ReadFile(e.ctx, e.fsys, p)
		require.NoError(t, err, "vfs.ReadFile(%s)", p)
		require.Empty(t, data, "vfs.ReadFile(%s) of an empty file", p)
	}},
	{name: "Small", run: func(t *testing.T, e *env) {
		p := e.path("small")
		e.write(t, p, []byte("hello, conformance\n"))
		e.requireContent(t, p, []byte("hello, conformance\n"))
	}},
	{name: "ManySmallWrites", run: func(t *testing.T, e *env) {
		// Byte-sized writes with Flush and Sync in between: Pos counts every byte and
		// neither Flush nor Sync publishes or loses anything.
		p := e.path("bytes")
		want := pattern(3, 0, 10_000)
		out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
		require.NoError(t, err, "Create(%s)", p)
		for i := range want {
			n, err := out.Write(want[i : i+1])
			require.NoError(t, err, "Write of byte %d to %s", i, p)
			require.Equal(t, 1, n, "Write of byte %d to %s", i, p)
			require.Equal(t, int64(i+1), out.Pos(), "Pos after %d bytes", i+1)
			switch i % 2500 {
			case 0:
				require.NoError(t, out.Flush(), "Flush after %d bytes", i+1)
			case 1250:
				require.NoError(t, out.Sync(), "Sync after %d bytes", i+1)
			}
		}
		require.NoError(t, out.Close(), "Close of %s", p)
		e.requireContent(t, p, want)
	}},
	{name: "Large", run: func(t *testing.T, e *env) {
		requireLargeRoundTrip(t, e, e.path("large"), e.h.LargeFileSize)
	}},
	{name: "HelperRoundTrip", run: func(t *testing.T, e *env) {
		// vfs.WriteFile and vfs.ReadFile use the backend's optional fast paths when it
		// has them; they must agree with the streams.
		p := e.path("helpers")
		want := pattern(5, 0, 70_000)
		require.NoError(t, vfs.WriteFile(e.ctx, e.fsys, p, want, vfs.NoOverwrite), "vfs.WriteFile(%s)", p)
		got, err := vfs.ReadFile(e.ctx, e.fsys, p)
		require.NoError(t, err, "vfs.ReadFile(%s)", p)
		require.True(t, bytes.Equal(want, got), "vfs.ReadFile(%s) returned %d bytes that differ from the %d written", p, len(got), len(want))
		e.requireContent(t, p, want)
	}},
	{name: "Copy", run: func(t *testing.T, e *env) {
		src, dst := e.path("src"), e.path("sub", "dst")
		want := pattern(6, 0, 100_000)
		e.write(t, src, want)
		n, err := vfs.Copy(e.ctx, e.fsys, dst, e.fsys, src)
		require.NoError(t, err, "vfs.Copy(%s, %s)", dst, src)
		require.Equal(t, int64(len(want)), n, "bytes copied")
		e.requireContent(t, dst, want)
		e.requireContent(t, src, want)
	}},
}

// largeChunkSizes are the sizes, cycled, of the writes of a large file: odd sizes
// that straddle every plausible buffer and part boundary.
var largeChunkSizes = []int{1, 7, 4096, 65_537, 1<<20 - 1, 333_333, 8191, 2 << 20, 99}

// requireLargeRoundTrip writes size bytes to p in many chunks, then reads them back
// in chunks and at random offsets, comparing with the pattern without holding the
// whole file in memory.
func requireLargeRoundTrip(t *testing.T, e *env, p vfs.Path, size int64) {
	t.Helper()
	out, err := e.fsys.Create(e.ctx, p, vfs.NoOverwrite)
	require.NoError(t, err, "Create(%s)", p)
	buf := make([]byte, 0, 2<<20)
	var written int64
	for i := 0; written < size; i++ {
		n := int(min(int64(largeChunkSizes[i%len(largeChunkSizes)]), size-written))
		buf = buf[:n]
		fillPattern(buf, 7, written)
		m, err := out.Write(buf)
		require.NoError(t, err, "Write of %d bytes at offset %d to %s", n, written, p)
		require.Equal(t, n, m, "Write at offset %d to %s: short write", written, p)
		written += int64(n)
		require.Equal(t, written, out.Pos(), "Pos after writing %d bytes", written)
	}
	require.NoError(t, out.Close(), "Close of %s after %d bytes", p, size)

	st, err := e.fsys.Stat(e.ctx, p)
	require.NoError(t, err, "Stat(%s)", p)
	require.Equal(t, size, st.Size, "Stat(%s).Size", p)

	in, err := e.fsys.Open(e.ctx, p)
	require.NoError(t, err, "Open(%s)", p)
	defer in.Close()
	got, want := make([]byte, 256<<10+3), make([]byte, 256<<10+3)
	var off int64
	for {
		n, err := io.ReadFull(in, got)
		if n > 0 {
			fillPattern(want[:n], 7, off)
			if !bytes.Equal(got[:n], want[:n]) {
				require.Failf(t, "wrong content", "%s: the %d bytes read at offset %d differ from those written (first differing byte at %d)",
					p, n, off, off+int64(firstDiff(got[:n], want[:n])))
			}
			off += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		require.NoError(t, err, "reading %s at offset %d", p, off)
	}
	require.Equal(t, size, off, "bytes read back from %s", p)

	for _, at := range []int64{0, 1, size / 3, size/2 - 5, size - 4097, size - 1} {
		if at < 0 || at >= size {
			continue
		}
		n := int(min(4096, size-at))
		b := make([]byte, n)
		m, err := in.ReadAt(b, at)
		if m < n || err != nil && err != io.EOF {
			require.NoError(t, err, "ReadAt(%d bytes, %d) of %s", n, at, p)
		}
		require.Equal(t, n, m, "ReadAt(%d bytes, %d) of %s", n, at, p)
		require.True(t, bytes.Equal(pattern(7, at, n), b), "ReadAt(%d bytes, %d) of %s returned the wrong bytes", n, at, p)
	}
	require.NoError(t, in.Close(), "Close of the stream reading %s", p)
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
