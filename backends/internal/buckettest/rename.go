package buckettest

import (
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/vfs"
)

// RenameKeepsWrites checks that fsys's Rename deletes at the source only the
// version it copied. arm(after) must make after run once, right after the
// store has published fsys's next copy of an object to a destination and
// before fsys hears of it (a fault proxy's After hook, a wrapped Store);
// after then writes a new version of every source file through direct,
// another client of the same bucket.
//
// A file: the new version stays at the source byte for byte, the
// destination holds the version that was copied, and Rename fails with
// vfs.ErrChanged. A directory of three files: every file's newest bytes
// are at the source or at the destination (and the source file stays when
// its newest bytes are not at the destination), and Rename fails with
// vfs.ErrChanged.
func RenameKeepsWrites(t *testing.T, fsys, direct vfs.FileSystem, dir vfs.Path, arm func(after func())) {
	t.Helper()
	ctx := t.Context()
	put := func(p vfs.Path, data string) {
		require.NoError(t, vfs.WriteFile(ctx, direct, p, []byte(data), vfs.Overwrite))
	}
	read := func(p vfs.Path) (string, bool) {
		data, err := vfs.ReadFile(ctx, direct, p)
		if err != nil {
			require.ErrorIs(t, err, fs.ErrNotExist, p.String())
			return "", false
		}
		return string(data), true
	}

	src, dst := dir.Join("file", "src"), dir.Join("file", "dst")
	put(src, "v1")
	arm(func() { put(src, "v2: written between the copy and the delete") })
	err := fsys.Rename(ctx, src, dst)
	require.ErrorIs(t, err, vfs.ErrChanged, "Rename of a source written during the rename")
	assert.Contains(t, err.Error(), "src")
	got, ok := read(src)
	assert.True(t, ok, "the source written during the rename stays")
	assert.Equal(t, "v2: written between the copy and the delete", got, "byte for byte")
	got, _ = read(dst)
	assert.Equal(t, "v1", got, "the destination holds the version that was copied")

	srcDir, dstDir := dir.Join("tree", "src"), dir.Join("tree", "dst")
	names := []string{"a", "b", "sub/c"}
	for _, n := range names {
		put(srcDir.Join(n), "v1 of "+n)
	}
	var once sync.Once
	arm(func() {
		once.Do(func() {
			for _, n := range names {
				put(srcDir.Join(n), fmt.Sprintf("v2 of %s, written during the rename", n))
			}
		})
	})
	err = fsys.Rename(ctx, srcDir, dstDir)
	require.ErrorIs(t, err, vfs.ErrChanged, "Rename of a tree written during the rename")
	for _, n := range names {
		newest := fmt.Sprintf("v2 of %s, written during the rename", n)
		atSrc, inSrc := read(srcDir.Join(n))
		atDst, _ := read(dstDir.Join(n))
		if atDst != newest {
			assert.True(t, inSrc, "%s: its newest bytes are not at the destination, so the source stays", n)
			assert.Equal(t, newest, atSrc, "%s: the newest version stays at the source byte for byte", n)
		}
		if inSrc {
			assert.Equal(t, newest, atSrc, "%s: what stays at the source is the newest version", n)
		}
	}
}

// ArmProxy returns RenameKeepsWrites's arm for a file system that talks to
// the store through p: after runs once, when the store has answered the next
// request that isCopy selects and before the answer is passed on.
func ArmProxy(p *faultproxy.Proxy, isCopy func(*http.Request) bool) func(after func()) {
	return func(after func()) {
		var once sync.Once
		p.Set(faultproxy.Faults{Match: isCopy, After: func(*http.Request) { once.Do(after) }})
	}
}

// RenameRefusesSourceChangedBeforeCopy checks that fsys's Rename copies only
// the version it read: arm(after) must make after run once, right after the
// store answered fsys's next request for the source's version (its HEAD)
// and before fsys hears it; after writes a new version of the source
// through direct. The copy is then refused (a condition on the source's
// version, or a check of the version a streamed copy reads): Rename fails
// with vfs.ErrChanged, the source keeps the new version byte for byte, and
// nothing is at the destination.
func RenameRefusesSourceChangedBeforeCopy(t *testing.T, fsys, direct vfs.FileSystem, dir vfs.Path, arm func(after func())) {
	t.Helper()
	ctx := t.Context()
	src, dst := dir.Join("before", "src"), dir.Join("before", "dst")
	require.NoError(t, vfs.WriteFile(ctx, direct, src, []byte("v1"), vfs.NoOverwrite))
	arm(func() {
		require.NoError(t, vfs.WriteFile(ctx, direct, src, []byte("v2: written between the HEAD and the copy"), vfs.Overwrite))
	})
	err := fsys.Rename(ctx, src, dst)
	require.ErrorIs(t, err, vfs.ErrChanged, "Rename of a source written before its copy")
	got, err := vfs.ReadFile(ctx, direct, src)
	require.NoError(t, err, "the source stays")
	assert.Equal(t, "v2: written between the HEAD and the copy", string(got), "byte for byte")
	_, err = vfs.ReadFile(ctx, direct, dst)
	require.ErrorIs(t, err, fs.ErrNotExist, "nothing was copied")
}

// IsHeadOf selects the HEAD requests of an object whose name (the key's last
// segment) is name: for ArmProxy.
func IsHeadOf(name string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		return r.Method == http.MethodHead && strings.HasSuffix(r.URL.Path, "/"+name)
	}
}
