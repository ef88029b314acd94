// Package buckettest holds what the tests of the bucket backends that vfs's
// default registry serves by URI (gs://, azblob://) share: the conformance run
// through the registry, and the check that bad bucket names in a URI are
// refused before any request.
package buckettest

import (
	"context"
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
	root := scheme + "://" + bucket + "/"
	fsys, err := vfs.Get(t.Context(), root)
	require.NoError(t, err, "vfs.Get(%q)", root)
	conformance.Run(t, conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := vfs.MustPath(root + "conformance").Join(t.Name())
			t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
			return fsys, dir
		},
	})
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
