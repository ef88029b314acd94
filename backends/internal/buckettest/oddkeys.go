package buckettest

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// OddKeys checks, on fsys, the keys no vfs.Path can name: keys with an
// empty, "." or ".." segment that another client wrote with put under dir
// ("src/./dot.txt", "src//empty.txt", "src/sub/..") next to ordinary ones.
// Listings show the ordinary keys, each reaching its object; a recursive
// Delete of the directory is refused with fs.ErrInvalid naming an odd key and
// deletes nothing (keys lists the keys under a prefix as the store has them);
// a plain Delete of the directory fails with vfs.ErrDirNotEmpty; an ordinary
// file is still deleted alone. Odd keys the store itself rewrote on the way in
// are logged and left out.
func OddKeys(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, put func(key string, data []byte), keys func(prefix string) []string) {
	t.Helper()
	ctx := t.Context()
	base := strings.TrimPrefix(dir.Path(), "/") + "/src/"
	plain := map[string]string{"ok.txt": "ok", "sub/f": "in sub"}
	odd := []string{"./dot.txt", "/empty.txt", "sub/.."}
	for name, data := range plain {
		put(base+name, []byte(data))
	}
	for _, name := range odd {
		put(base+name, []byte("odd "+name))
	}
	before := keys(base)
	slices.Sort(before)
	var stored []string
	for _, name := range odd {
		if slices.Contains(before, base+name) {
			stored = append(stored, base+name)
		} else {
			t.Logf("the store did not keep the key %q as written (it has %q)", base+name, before)
		}
	}
	require.NotEmpty(t, stored, "the store keeps some odd keys")

	src := dir.Join("src")
	entries, err := fsys.List(ctx, src)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Path.Name())
		if !e.IsDir {
			got, err := vfs.ReadFile(ctx, fsys, e.Path)
			require.NoError(t, err, e.Path.String())
			assert.Equal(t, plain[e.Path.Name()], string(got), "a listed name reaches its own object")
		}
	}
	assert.Equal(t, []string{"ok.txt", "sub"}, names, "listings show every key a path can name")

	err = fsys.Delete(ctx, src, true)
	require.ErrorIs(t, err, fs.ErrInvalid, "a recursive delete over keys no path names is refused")
	assert.Contains(t, err.Error(), "nothing was deleted")
	named := false
	for _, k := range stored {
		named = named || strings.Contains(err.Error(), k)
	}
	assert.True(t, named, "the error names an odd key: %v", err)
	after := keys(base)
	slices.Sort(after)
	assert.Equal(t, before, after, "nothing was deleted")

	require.ErrorIs(t, fsys.Delete(ctx, src, false), vfs.ErrDirNotEmpty)
	require.NoError(t, fsys.Delete(ctx, src.Join("ok.txt"), false))
	after = keys(base)
	slices.Sort(after)
	assert.Equal(t, slices.DeleteFunc(before, func(k string) bool { return k == base+"ok.txt" }), after,
		"a plain delete removes its own key only")
}
