package buckettest

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// OddKeys checks, on fsys, the keys no vfs.Path can name: keys with an
// empty, "." or ".." segment that another client wrote with put under dir
// ("src/./dot.txt", "src//empty.txt", "src/sub/..") next to ordinary ones.
// Listings show the ordinary keys, each reaching its object; vfs.MoveTree of
// the directory is refused with fs.ErrInvalid naming every odd key, and
// copies and deletes nothing; vfs.CopyTree of it copies every other file and
// fails with fs.ErrInvalid naming every odd key (CopyResult.Unnameable); a recursive Delete of the directory is refused with fs.ErrInvalid naming an odd key and
// deletes nothing (keys lists the keys under a prefix as the store has them);
// a plain Delete of the directory fails with vfs.ErrDirNotEmpty; an ordinary
// file is still deleted alone. Odd keys the store refuses (put's error) or
// rewrites on the way in are logged and left out; on a store that keeps none
// (SeaweedFS's filer), the recursive Delete just succeeds.
func OddKeys(t *testing.T, fsys vfs.FileSystem, dir vfs.Path, put func(key string, data []byte) error, keys func(prefix string) []string) {
	t.Helper()
	ctx := t.Context()
	base := strings.TrimPrefix(dir.Path(), "/") + "/src/"
	plain := map[string]string{"ok.txt": "ok", "sub/f": "in sub"}
	odd := []string{"./dot.txt", "/empty.txt", "sub/.."}
	for name, data := range plain {
		require.NoError(t, put(base+name, []byte(data)), name)
	}
	for _, name := range odd {
		if err := put(base+name, []byte("odd "+name)); err != nil {
			t.Logf("the store refused the key %q: %v", base+name, err)
		}
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

	src := dir.Join("src")
	entries, err := fsys.List(ctx, src)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Path.Name())
		if data, ok := plain[e.Path.Name()]; ok && !e.IsDir {
			got, err := vfs.ReadFile(ctx, fsys, e.Path)
			require.NoError(t, err, e.Path.String())
			assert.Equal(t, data, string(got), "a listed name reaches its own object")
		}
	}
	want := []string{}
	for _, k := range before { // what the store holds, where a path names it
		if first, _, _ := strings.Cut(k[len(base):], "/"); !slices.Contains(stored, k) && !slices.Contains(want, first) {
			want = append(want, first)
		}
	}
	assert.Equal(t, want, names, "listings show every key a path can name")

	if len(stored) == 0 {
		t.Log("the store keeps no odd key: the recursive delete just deletes")
		require.NoError(t, fsys.Delete(ctx, src, true))
		assert.Empty(t, keys(base))
		return
	}
	movedPrefix := strings.TrimPrefix(dir.Path(), "/") + "/moved/"
	_, err = vfs.MoveTree(ctx, fsys, dir.Join("moved"), fsys, src, vfs.CopyOptions{})
	require.ErrorIs(t, err, fs.ErrInvalid, "a move of a tree holding keys no path names is refused")
	for _, k := range stored {
		assert.Contains(t, err.Error(), strconv.Quote(k), "the error names every odd key")
	}
	assert.Contains(t, err.Error(), "nothing was copied or deleted")
	after := keys(base)
	slices.Sort(after)
	assert.Equal(t, before, after, "the refused move deleted nothing")
	assert.Empty(t, keys(movedPrefix), "the refused move copied nothing")

	copiedPrefix := strings.TrimPrefix(dir.Path(), "/") + "/copied/"
	cr, err := vfs.CopyTree(ctx, fsys, dir.Join("copied"), fsys, src, vfs.CopyOptions{})
	require.ErrorIs(t, err, fs.ErrInvalid, "a copy of a tree holding keys no path names says it left them out")
	for _, k := range stored {
		assert.Contains(t, err.Error(), strconv.Quote(k), "the copy's error names every odd key")
	}
	require.NotNil(t, cr, "the rest of the copy is kept and reported")
	assert.ElementsMatch(t, stored, cr.Unnameable, "the result lists every odd key")
	assert.Len(t, cr.Files, len(plain), "every file a path names is copied")
	for name, data := range plain {
		got, err := vfs.ReadFile(ctx, fsys, dir.Join("copied/"+name))
		require.NoError(t, err, name)
		assert.Equal(t, data, string(got), "the copy of %s", name)
	}
	for _, k := range keys(copiedPrefix) {
		for _, name := range odd {
			assert.NotEqual(t, copiedPrefix+name, k, "no odd key is made up at the destination")
		}
	}
	after = keys(base)
	slices.Sort(after)
	assert.Equal(t, before, after, "the copy changed nothing at the source")

	err = fsys.Delete(ctx, src, true)
	require.ErrorIs(t, err, fs.ErrInvalid, "a recursive delete over keys no path names is refused")
	assert.Contains(t, err.Error(), "nothing was deleted")
	named := false
	for _, k := range stored {
		named = named || strings.Contains(err.Error(), k)
	}
	assert.True(t, named, "the error names an odd key: %v", err)
	after = keys(base)
	slices.Sort(after)
	assert.Equal(t, before, after, "nothing was deleted")

	require.ErrorIs(t, fsys.Delete(ctx, src, false), vfs.ErrDirNotEmpty)
	require.NoError(t, fsys.Delete(ctx, src.Join("ok.txt"), false))
	after = keys(base)
	slices.Sort(after)
	assert.Equal(t, slices.DeleteFunc(before, func(k string) bool { return k == base+"ok.txt" }), after,
		"a plain delete removes its own key only")
}

// OddKeysInBucket is OddKeys with the odd keys written and listed through b,
// the gocloud bucket under fsys (whose driver must send them as they are).
func OddKeysInBucket(t *testing.T, fsys vfs.FileSystem, b *blob.Bucket, dir vfs.Path) {
	t.Helper()
	OddKeys(t, fsys, dir,
		func(key string, data []byte) error { return b.WriteAll(t.Context(), key, data, nil) },
		func(prefix string) []string {
			var keys []string
			it := b.List(&blob.ListOptions{Prefix: prefix})
			for {
				o, err := it.Next(t.Context())
				if errors.Is(err, io.EOF) {
					return keys
				}
				require.NoError(t, err)
				keys = append(keys, o.Key)
			}
		})
}
