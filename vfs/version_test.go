package vfs_test

import (
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

func TestVersionMatches(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	sec := at.Truncate(time.Second)
	for _, c := range []struct {
		name string
		a, b vfs.Version
		want bool
	}{
		{"same size and time", vfs.Version{Size: 1, ModTime: at}, vfs.Version{Size: 1, ModTime: at}, true},
		{"other size", vfs.Version{Size: 1, ModTime: at}, vfs.Version{Size: 2, ModTime: at}, false},
		{"other nanoseconds", vfs.Version{Size: 1, ModTime: at}, vfs.Version{Size: 1, ModTime: at.Add(1)}, false},
		{"whole seconds on one side", vfs.Version{Size: 1, ModTime: at}, vfs.Version{Size: 1, ModTime: sec}, true},
		{"other second", vfs.Version{Size: 1, ModTime: at}, vfs.Version{Size: 1, ModTime: sec.Add(time.Second)}, false},
		{"same ID", vfs.Version{Size: 1, ID: "e1"}, vfs.Version{Size: 1, ModTime: at, ID: "e1"}, true},
		{"other ID, same time", vfs.Version{Size: 1, ModTime: at, ID: "e1"}, vfs.Version{Size: 1, ModTime: at, ID: "e2"}, false},
		{"same ID, other time", vfs.Version{Size: 1, ModTime: at, ID: "e1"}, vfs.Version{Size: 1, ModTime: at.Add(1), ID: "e1"}, false},
		{"nothing to prove", vfs.Version{Size: 1}, vfs.Version{Size: 1}, false},
	} {
		assert.Equal(t, c.want, c.a.Matches(c.b), c.name)
		assert.Equal(t, c.want, c.b.Matches(c.a), c.name+" (swapped)")
	}
}

// TestVersionOfHoldsTheFileID: the version of a status holds its FileID as
// the ID, "device:inode" in decimal, the form a file:// stream tells; a copy
// alike in size and time but with another inode is another version.
func TestVersionOfHoldsTheFileID(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	st := vfs.FileStatus{Path: vfs.MustPath("/f"), Size: 5, ModTime: at, FileID: vfs.FileID{Dev: 2049, Ino: 131}}
	v := vfs.VersionOf(st)
	assert.Equal(t, vfs.Version{Size: 5, ModTime: at, ID: "2049:131"}, v)
	st.FileID.Ino++
	assert.False(t, v.Matches(vfs.VersionOf(st)), "a copy with another inode")
	assert.True(t, v.Matches(vfs.Version{Size: 5, ModTime: at}), "a version without an ID is compared by size and time")
	assert.Empty(t, vfs.FileID{}.String())
	assert.True(t, vfs.FileID{}.IsZero())
	assert.Equal(t, vfs.Version{Size: 5, ModTime: at}, vfs.VersionOf(vfs.FileStatus{Size: 5, ModTime: at}), "no FileID, no ID")
}

// TestDeleteVersionFallback: on a file system without DeleteVersionFS the
// helper compares a Stat with the version and deletes only on a match.
func TestDeleteVersionFallback(t *testing.T) {
	mem, dir := memfs.NewTest(t)
	fsys := layer.Streams(mem) // hides the conditional delete
	_, ok := fsys.(vfs.DeleteVersionFS)
	require.False(t, ok)
	p := dir.Join("f")
	require.NoError(t, vfs.WriteFile(bg, fsys, p, []byte("one"), vfs.NoOverwrite))
	in, err := fsys.Open(bg, p)
	require.NoError(t, err)
	_, err = io.ReadAll(in)
	require.NoError(t, err)
	v, err := vfs.StreamVersion(bg, fsys, p, in)
	require.NoError(t, err)
	require.NoError(t, in.Close())

	require.NoError(t, vfs.WriteFile(bg, fsys, p, []byte("two"), vfs.Overwrite))
	err = vfs.DeleteVersion(bg, fsys, p, v)
	require.ErrorIs(t, err, vfs.ErrChanged)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	got, err := vfs.ReadFile(bg, fsys, p)
	require.NoError(t, err)
	require.Equal(t, "two", string(got))

	st, err := fsys.Stat(bg, p)
	require.NoError(t, err)
	require.NoError(t, vfs.DeleteVersion(bg, fsys, p, vfs.VersionOf(st)))
	ok, err = vfs.Exists(bg, fsys, p)
	require.NoError(t, err)
	require.False(t, ok)
	err = vfs.DeleteVersion(bg, fsys, p, vfs.VersionOf(st))
	require.ErrorIs(t, err, vfs.ErrChanged)
	require.ErrorIs(t, err, fs.ErrNotExist)
}
