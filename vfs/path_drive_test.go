package vfs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestDriveLikeNamesOutsideLocalPaths: only local paths (no scheme, file) know
// Windows drives. On other schemes a root entry named like a drive ("A:0", "C:")
// is a plain name: absolute, its parent the root, printed and parsed back as it
// is, and never given the drive root's trailing slash.
func TestDriveLikeNamesOutsideLocalPaths(t *testing.T) {
	for _, root := range []string{"s3://bucket/", "memory://m/", "gs://b/"} {
		r := vfs.MustPath(root)
		for _, name := range []string{"A:0", "C:", "c:x", "Z:\\y"} {
			p := r.Join(name)
			assert.True(t, p.IsAbsolute(), "%s.Join(%q) = %s is absolute", root, name, p)
			assert.Equal(t, name, p.Name(), "%s.Join(%q) keeps the name", root, name)
			assert.Equal(t, "/"+name, p.Path(), "%s.Join(%q) has no drive root slash", root, name)
			assert.Equal(t, r, p.Parent(), "%s.Join(%q) is a child of the root", root, name)
			assert.Equal(t, 1, p.Depth())
			back, err := vfs.ParsePath(p.String())
			require.NoError(t, err)
			assert.Equal(t, p, back, "ParsePath(%q) reads back the same path", p.String())
			pof, err := vfs.PathOf(r.Scheme(), r.Authority(), name)
			require.NoError(t, err)
			assert.Equal(t, p, pof, "PathOf agrees with Join")
		}
	}
	// Local paths keep Flink's drive rules.
	assert.False(t, vfs.MustPath("file:/C:").IsAbsolute(), "file:/C: is a drive-relative path, as in Flink")
	assert.True(t, vfs.MustPath("file:/C:/x").IsAbsolute())
	assert.Equal(t, "/C:/", vfs.MustPath("C:/").Path())
}
