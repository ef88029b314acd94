// Package buckettest holds what the tests of the bucket backends that vfs's
// default registry serves by URI (gs://, azblob://) share: the conformance run
// through the registry, the check that bad bucket names in a URI are refused
// before any request, and the check that a stream reads one version.
package buckettest

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/vfs"
)

// Conformance runs the whole conformance suite on scheme://bucket/ as vfs.Get
// serves it (so Scheme/Registry runs too), each case in its own directory
// below /conformance, deleted when the case ends. The bucket must exist and
// the test binary must have registered scheme (a blank import of the backend).
func Conformance(t *testing.T, scheme, bucket string) {
	t.Helper()
	ConformanceWith(t, scheme, bucket, nil)
}

// ConformanceWith is Conformance with the harness edited by edit (when not
// nil) before the run: a backend adds OtherFileSystem or
// RecoverableLeftovers.
func ConformanceWith(t *testing.T, scheme, bucket string, edit func(h *conformance.Harness)) {
	t.Helper()
	root := scheme + "://" + bucket + "/"
	fsys, err := vfs.Get(t.Context(), root)
	require.NoError(t, err, "vfs.Get(%q)", root)
	h := conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := vfs.MustPath(root + "conformance").Join(t.Name())
			t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
			return fsys, dir
		},
	}
	if edit != nil {
		edit(&h)
	}
	conformance.Run(t, h)
}

// BadNames requires that vfs.Get refuse every URI of cases with an error wrapping fs.ErrInvalid whose message contains the
// URI's entry in cases (what is wrong with it) and never the word "secret"
// (give the cases with user info the password "secret": it must not leak).
func BadNames(t *testing.T, cases map[string]string) {
	t.Helper()
	for uri, want := range cases {
		_, err := vfs.Get(t.Context(), uri)
		require.ErrorIs(t, err, fs.ErrInvalid, uri)
		assert.Contains(t, err.Error(), want, uri)
		assert.NotContains(t, err.Error(), "secret", uri)
	}
}

// OneVersion checks on the file systems of a bucket backend (one plain, one
// with Strict, whose Open's HEAD pins the version) that a stream reads one
// version: a stream whose first request was a GET or a HEAD reads the
// unchanged object in pieces byte for byte (the two requests tell the
// version in the same form), and after the object is replaced by one of the
// same size, its next read fails with vfs.ErrChanged and returns no byte.
func OneVersion(t *testing.T, plain, strict vfs.FileSystem, dir vfs.Path) {
	t.Helper()
	const size = 10_000
	v1 := bytes.Repeat([]byte{'1'}, size)
	v2 := bytes.Repeat([]byte{'2'}, size)
	for name, fsys := range map[string]vfs.FileSystem{"plain": plain, "strict": strict} {
		for _, first := range []string{"GET", "HEAD"} {
			ctx := t.Context()
			p := dir.Join(name + "-" + first)
			require.NoError(t, vfs.WriteFile(ctx, fsys, p, v1, vfs.Overwrite))
			in, err := fsys.Open(ctx, p)
			require.NoError(t, err)
			buf := make([]byte, 100)
			if first == "GET" {
				_, err = in.ReadAt(buf, 0)
			} else {
				_, err = in.Seek(-100, io.SeekEnd) // a HEAD, unless Strict's Open sent it
			}
			require.NoError(t, err, "%s: the first request (%s)", name, first)
			for _, off := range []int64{10, 5000, size - 100} {
				_, err := in.ReadAt(buf, off)
				require.NoError(t, err, "%s, first request %s: ReadAt(%d) of the unchanged object", name, first, off)
				require.Equal(t, v1[off:off+100], buf)
			}
			require.NoError(t, vfs.WriteFile(ctx, fsys, p, v2, vfs.Overwrite))
			n, err := in.ReadAt(buf, 200)
			require.ErrorIs(t, err, vfs.ErrChanged, "%s, first request %s: ReadAt after the object was replaced", name, first)
			require.Zero(t, n)
			_, err = in.Seek(0, io.SeekStart)
			require.NoError(t, err)
			n, err = in.Read(buf)
			require.ErrorIs(t, err, vfs.ErrChanged, "%s, first request %s: Read after the object was replaced", name, first)
			require.Zero(t, n)
			require.NoError(t, in.Close())
		}
	}
}

// ConditionalDelete checks a store's conditional delete (del, the store's
// blobfs.ConditionalDeleter.DeleteVersion on key of fsys's bucket): it refuses
// a wrong version with HTTP 412 (or 404) and keeps the object, and deletes the version
// a stream read. dir is a directory of fsys whose key is dirKey.
func ConditionalDelete(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, dirKey string, del func(key, version string) error, wrong string) {
	t.Helper()
	ctx := t.Context()
	p, key := dir.Join("f"), dirKey+"/f"
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("version one"), vfs.NoOverwrite))
	in, err := fsys.Open(ctx, p)
	require.NoError(t, err)
	_, err = io.ReadAll(in)
	require.NoError(t, err)
	v, err := vfs.StreamVersion(ctx, fsys, p, in)
	require.NoError(t, err)
	require.NoError(t, in.Close())
	require.NotEmpty(t, v.ID, "the stream tells the store's version of what it read")

	err = del(key, wrong)
	var status interface{ HTTPStatusCode() int }
	require.ErrorAs(t, err, &status, "a delete conditional on a version the object is not at")
	require.Contains(t, []int{404, 412}, status.HTTPStatusCode(), "%v", err)
	got, err := vfs.ReadFile(ctx, fsys, p)
	require.NoError(t, err, "the object is still there")
	require.Equal(t, "version one", string(got))

	require.NoError(t, del(key, v.ID), "a delete conditional on the version read")
	ok, err := vfs.Exists(ctx, fsys, p)
	require.NoError(t, err)
	require.False(t, ok, "the version read is deleted")
}
