// Package nametest checks that names a store keeps in another form (gocloud's
// drivers store some characters escaped) come back as they were written.
package nametest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// RoundTrip creates a file named n holding n under dir for each of names,
// then checks that listing dir shows exactly names and that every listed
// entry reads back its own name.
func RoundTrip(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, names []string) {
	t.Helper()
	for _, n := range names {
		require.NoError(t, vfs.WriteFile(t.Context(), fsys, dir.Join(n), []byte(n), vfs.NoOverwrite), "%q", n)
	}
	entries, err := fsys.List(t.Context(), dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
		data, err := vfs.ReadFile(t.Context(), fsys, e.Path)
		require.NoError(t, err, "%q", e.Name())
		assert.Equal(t, e.Name(), string(data))
	}
	assert.ElementsMatch(t, names, got)
}
