package aferofs_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/vfs"
)

// pendingTemp starts a write of p on fsys (over afs, an afero.Fs without
// Publisher) and returns the stream and the name of its temporary file.
func pendingTemp(t *testing.T, fsys *aferofs.FileSystem, afs afero.Fs, p vfs.Path) (vfs.OutputStream, string) {
	t.Helper()
	out, err := fsys.Create(t.Context(), p, vfs.NoOverwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("half written"))
	require.NoError(t, err)
	infos, err := afero.ReadDir(afs, p.Parent().Path())
	require.NoError(t, err)
	var temps []string
	for _, fi := range infos {
		if strings.HasPrefix(fi.Name(), ".vfskit-tmp-") && fi.Name() != p.Name() {
			if _, err := fsys.Stat(t.Context(), p.Parent().Join(fi.Name())); err != nil {
				temps = append(temps, fi.Name())
			}
		}
	}
	require.Len(t, temps, 1, "one temporary file for the write in flight")
	return out, temps[0]
}

// TestTempLookalikesAreUserFiles writes files whose names start like the
// engine's temporary names (".vfskit-tmp-notes.txt", a directory
// ".vfskit-tmp-cache", ".vfskit-tmp-1", the prefix and 24 hex digits whose
// check is wrong) next to a write in flight: every one of them is listed,
// read back byte for byte and removable, while the in-flight temporary file
// stays hidden, reserved, and is the only thing CleanTemp finds and removes.
func TestTempLookalikesAreUserFiles(t *testing.T) {
	ctx := t.Context()
	fsys, afs := newMem(t)
	dir := vfs.MustPath("test://a/d")
	users := map[string]string{
		".vfskit-tmp-notes.txt":                        "notes",
		".vfskit-tmp-cache/db":                         "db",
		".vfskit-tmp-1":                                "one",
		".vfskit-tmp-0123456789abcdef01234567":         "wrong check",
		".vfskit-tmp-0123456789abcdef01234567.partial": "longer",
	}
	for name, data := range users {
		require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join(strings.Split(name, "/")...), []byte(data), vfs.NoOverwrite), name)
	}
	out, temp := pendingTemp(t, fsys, afs, dir.Join("report.csv"))
	defer out.Close()

	entries, err := fsys.List(ctx, dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Path.Name())
	}
	assert.Equal(t, []string{".vfskit-tmp-0123456789abcdef01234567", ".vfskit-tmp-0123456789abcdef01234567.partial",
		".vfskit-tmp-1", ".vfskit-tmp-cache", ".vfskit-tmp-notes.txt"}, names,
		"every user's name is listed; the write in flight is not")
	var walked int
	require.NoError(t, vfs.Walk(ctx, fsys, dir, func(st vfs.FileStatus, err error) error {
		require.NoError(t, err)
		if !st.IsDir {
			walked++
		}
		return nil
	}))
	assert.Equal(t, len(users), walked, "a walk reaches every user file")
	for name, data := range users {
		got, err := vfs.ReadFile(ctx, fsys, dir.Join(strings.Split(name, "/")...))
		require.NoError(t, err, name)
		assert.Equal(t, data, string(got), name)
	}

	_, err = fsys.Stat(ctx, dir.Join(temp))
	require.ErrorIs(t, err, fs.ErrInvalid, "the engine's own temporary name is reserved")
	assert.Contains(t, err.Error(), "reserved")
	_, err = fsys.Create(ctx, dir.Join(temp), vfs.Overwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)

	found, err := vfs.FindTemp(ctx, fsys, vfs.MustPath("test://a/"), 0)
	require.NoError(t, err)
	assert.Equal(t, []vfs.Path{dir.Join(temp)}, found, "only the engine's temporary file is found")
	removed, err := vfs.CleanTemp(ctx, fsys, vfs.MustPath("test://a/"), 0)
	require.NoError(t, err)
	assert.Equal(t, []vfs.Path{dir.Join(temp)}, removed)
	for name, data := range users {
		got, err := vfs.ReadFile(ctx, fsys, dir.Join(strings.Split(name, "/")...))
		require.NoError(t, err, "%s survives CleanTemp", name)
		assert.Equal(t, data, string(got), name)
	}
	require.NoError(t, fsys.Delete(ctx, dir.Join(".vfskit-tmp-notes.txt"), false))
	require.NoError(t, fsys.Delete(ctx, dir.Join(".vfskit-tmp-cache"), true))
	ok, err := vfs.Exists(ctx, fsys, dir.Join(".vfskit-tmp-cache", "db"))
	require.NoError(t, err)
	assert.False(t, ok)
}

// TestTempNamesDiffer checks that temporary names are fresh for every write
// and of the reserved form, on two file systems over the same afero.Fs.
func TestTempNamesDiffer(t *testing.T) {
	fsys, afs := newMem(t)
	other, err := aferofs.New(afs, aferofs.Options{Scheme: "test", Authority: "a"})
	require.NoError(t, err)
	seen := map[string]bool{}
	for i, f := range []*aferofs.FileSystem{fsys, other, fsys} {
		out, temp := pendingTemp(t, f, afs, vfs.MustPath("test://a/x").Join(string(rune('a'+i)), "f"))
		assert.Len(t, temp, len(".vfskit-tmp-")+24, temp)
		assert.False(t, seen[temp], temp)
		seen[temp] = true
		_, err := other.Stat(t.Context(), vfs.MustPath("test://a/x").Join(string(rune('a'+i)), temp))
		assert.ErrorIs(t, err, fs.ErrInvalid, "another FileSystem value knows the name too")
		require.NoError(t, out.Close())
	}
}
