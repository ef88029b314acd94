package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// path returns the path of elem under the case's directory.
func (e *env) path(elem ...string) vfs.Path { return e.dir.Join(elem...) }

// write creates p with data through Create, Write and Close, and requires success.
func (e *env) write(t *testing.T, p vfs.Path, data []byte) {
	t.Helper()
	e.writeMode(t, p, data, vfs.NoOverwrite)
}

// writeMode is write with an explicit WriteMode.
func (e *env) writeMode(t *testing.T, p vfs.Path, data []byte, mode vfs.WriteMode) {
	t.Helper()
	out, err := e.fsys.Create(e.ctx, p, mode)
	require.NoError(t, err, "Create(%s, %s)", p, mode)
	n, err := out.Write(data)
	require.NoError(t, err, "Write to %s", p)
	require.Equal(t, len(data), n, "Write to %s: short write", p)
	require.Equal(t, int64(len(data)), out.Pos(), "Pos of the stream to %s after writing %d bytes", p, len(data))
	require.NoError(t, out.Close(), "Close of the stream to %s", p)
}

// read reads the whole file at p through Open and requires success.
func (e *env) read(t *testing.T, p vfs.Path) []byte {
	t.Helper()
	in, err := e.fsys.Open(e.ctx, p)
	require.NoError(t, err, "Open(%s)", p)
	data, err := io.ReadAll(in)
	require.NoError(t, err, "reading %s", p)
	require.NoError(t, in.Close(), "Close of the stream reading %s", p)
	return data
}

// requireContent requires that p is a file holding exactly want.
func (e *env) requireContent(t *testing.T, p vfs.Path, want []byte) {
	t.Helper()
	st, err := e.fsys.Stat(e.ctx, p)
	require.NoError(t, err, "Stat(%s)", p)
	require.False(t, st.IsDir, "Stat(%s).IsDir: want a file", p)
	require.Equal(t, int64(len(want)), st.Size, "Stat(%s).Size", p)
	got := e.read(t, p)
	if !bytes.Equal(got, want) {
		require.Failf(t, "wrong content", "%s holds %d bytes %s; want %d bytes %s",
			p, len(got), abbrev(got), len(want), abbrev(want))
	}
}

// requireMissing requires that Stat of p fails with fs.ErrNotExist.
func (e *env) requireMissing(t *testing.T, p vfs.Path) {
	t.Helper()
	_, err := e.fsys.Stat(e.ctx, p)
	requirePathError(t, err, fs.ErrNotExist, p, "Stat(%s) of a path that must not exist", p)
	ok, err := vfs.Exists(e.ctx, e.fsys, p)
	require.NoError(t, err, "Exists(%s)", p)
	require.False(t, ok, "Exists(%s)", p)
}

// requireDir requires that p exists and is a directory.
func (e *env) requireDir(t *testing.T, p vfs.Path) {
	t.Helper()
	st, err := e.fsys.Stat(e.ctx, p)
	require.NoError(t, err, "Stat(%s) of a directory", p)
	require.True(t, st.IsDir, "Stat(%s).IsDir: want a directory", p)
}

// names lists dir and returns the entries' names in the order List gave them.
func (e *env) names(t *testing.T, dir vfs.Path) []string {
	t.Helper()
	list, err := e.fsys.List(e.ctx, dir)
	require.NoError(t, err, "List(%s)", dir)
	out := make([]string, len(list))
	for i, st := range list {
		out[i] = st.Name()
	}
	return out
}

// namesOfEmpty is names for a directory that may have become empty: on an object
// store an empty directory does not exist, so List may fail with fs.ErrNotExist.
func (e *env) namesOfEmpty(t *testing.T, dir vfs.Path) []string {
	t.Helper()
	if e.objectStore {
		if _, err := e.fsys.List(e.ctx, dir); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
	}
	return e.names(t, dir)
}

// createFails requires that creating p with mode fails with target, either at Create
// or, at the latest, at Close (the contract allows both).
func (e *env) createFails(t *testing.T, p vfs.Path, mode vfs.WriteMode, target error) {
	t.Helper()
	out, err := e.fsys.Create(e.ctx, p, mode)
	if err == nil {
		_, werr := out.Write([]byte("must not be published"))
		err = out.Close()
		if err == nil && werr != nil {
			err = werr
		}
	}
	requirePathError(t, err, target, p, "Create(%s, %s)", p, mode)
}

// requirePathError requires that err is an *fs.PathError that names p and that
// errors.Is target.
func requirePathError(t *testing.T, err, target error, p vfs.Path, msgAndArgs ...any) {
	t.Helper()
	requirePathErrorOf(t, err, []error{target}, p, msgAndArgs...)
}

// requirePathErrorOf requires that err is an *fs.PathError that names p and that
// errors.Is one of targets.
func requirePathErrorOf(t *testing.T, err error, targets []error, p vfs.Path, msgAndArgs ...any) {
	t.Helper()
	what := describe(msgAndArgs)
	want := make([]string, len(targets))
	for i, target := range targets {
		want[i] = fmt.Sprintf("%q", target)
	}
	wants := strings.Join(want, " or ")
	require.Error(t, err, "%s: want an error wrapping %s", what, wants)
	if !slices.ContainsFunc(targets, func(target error) bool { return errors.Is(err, target) }) {
		require.Failf(t, "wrong error", "%s: got %q (%T); want an error that errors.Is %s", what, err, err, wants)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		require.Failf(t, "not a *fs.PathError", "%s: got %q (%T); want an *fs.PathError", what, err, err)
	}
	if want := p.Path(); !strings.Contains(pe.Path, want) {
		require.Failf(t, "error names the wrong path", "%s: PathError.Path is %q; want it to name %q", what, pe.Path, want)
	}
}

// requireOpenFails requires that p cannot be read: Open fails with target. On an
// object store, whose Open may be lazy (it need send no request), Open may
// instead succeed; then the first Read, and the first ReadAt of a stream opened
// again, must each fail with one of lazyTargets.
func (e *env) requireOpenFails(t *testing.T, p vfs.Path, target error, lazyTargets []error, msgAndArgs ...any) {
	t.Helper()
	what := describe(msgAndArgs)
	in, err := e.fsys.Open(e.ctx, p)
	if err != nil || !e.objectStore {
		if err == nil {
			_ = in.Close()
		}
		requirePathError(t, err, target, p, "Open(%s) %s", p, what)
		return
	}
	n, err := in.Read(make([]byte, 16))
	_ = in.Close()
	require.Zero(t, n, "Open(%s) %s succeeded (lazily, as an object store may), then Read returned bytes", p, what)
	requirePathErrorOf(t, err, lazyTargets, p, "Open(%s) %s succeeded (lazily, as an object store may), then the first Read", p, what)

	in, err = e.fsys.Open(e.ctx, p)
	if err != nil {
		requirePathError(t, err, target, p, "Open(%s) %s, a second time", p, what)
		return
	}
	n, err = in.ReadAt(make([]byte, 16), 0)
	_ = in.Close()
	require.Zero(t, n, "Open(%s) %s succeeded (lazily, as an object store may), then ReadAt returned bytes", p, what)
	requirePathErrorOf(t, err, lazyTargets, p, "Open(%s) %s succeeded (lazily, as an object store may), then the first ReadAt", p, what)
}

func describe(msgAndArgs []any) string {
	if len(msgAndArgs) == 0 {
		return "operation"
	}
	if format, ok := msgAndArgs[0].(string); ok {
		return fmt.Sprintf(format, msgAndArgs[1:]...)
	}
	return fmt.Sprint(msgAndArgs...)
}

// requireSorted requires that names are strictly increasing.
func requireSorted(t *testing.T, names []string, dir vfs.Path) {
	t.Helper()
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			require.Failf(t, "List is not sorted", "List(%s): entry %d %q is not before entry %d %q",
				dir, i-1, names[i-1], i, names[i])
		}
	}
}

// requireSameNames requires that got holds exactly the names in want, in any order.
func requireSameNames(t *testing.T, want, got []string, msgAndArgs ...any) {
	t.Helper()
	w, g := slices.Clone(want), slices.Clone(got)
	slices.Sort(w)
	slices.Sort(g)
	require.Equal(t, w, g, msgAndArgs...)
}

// abbrev shows a short prefix of data in messages.
func abbrev(data []byte) string {
	if len(data) <= 32 {
		return fmt.Sprintf("%q", data)
	}
	return fmt.Sprintf("%q...", data[:32])
}

// pattern returns n bytes of the test pattern of stream seed starting at offset off.
func pattern(seed uint64, off int64, n int) []byte {
	b := make([]byte, n)
	fillPattern(b, seed, off)
	return b
}

// fillPattern fills b with the test pattern of stream seed starting at offset off.
// Every aligned 8-byte word is a hash of its index and the seed, so the pattern is
// incompressible, differs between seeds, and any misplaced, repeated or dropped byte
// shows at once; yet any offset can be regenerated without keeping the data.
func fillPattern(b []byte, seed uint64, off int64) {
	for i := range b {
		pos := uint64(off) + uint64(i)
		b[i] = byte(splitmix64(seed^(pos/8)*0x9e3779b97f4a7c15) >> (8 * (pos % 8)))
	}
}

// splitmix64 is the SplitMix64 finalizer: a fast, well-mixed 64-bit hash.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// requireRenameError requires that err, from Rename(src, dst), is an *fs.PathError
// that errors.Is target and names src or dst.
func requireRenameError(t *testing.T, err, target error, src, dst vfs.Path) {
	t.Helper()
	what := fmt.Sprintf("Rename(%q, %q)", src, dst)
	require.Error(t, err, "%s: want an error wrapping %v", what, target)
	if !errors.Is(err, target) {
		require.Failf(t, "wrong error", "%s: got %q (%T); want an error that errors.Is %q", what, err, err, target)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		require.Failf(t, "not a *fs.PathError", "%s: got %q (%T); want an *fs.PathError", what, err, err)
	}
	if !strings.Contains(pe.Path, src.Path()) && !strings.Contains(pe.Path, dst.Path()) {
		require.Failf(t, "error names the wrong path", "%s: PathError.Path is %q; want it to name %q or %q", what, pe.Path, src.Path(), dst.Path())
	}
}
