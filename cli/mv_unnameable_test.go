package cli

import (
	"io"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// TestMvRefusesKeysNoPathNames: mv of a gs:// or azblob:// prefix that holds
// keys no path names ("src/./dot.txt", "src//empty.txt", "src/sub/..",
// written by another client) exits 1 naming each of them, and copies and
// deletes nothing (a move would leave them behind unseen).
func TestMvRefusesKeysNoPathNames(t *testing.T) {
	for name, root := range map[string]func(t *testing.T) string{"gs": gsRoot, "azblob": azblobRoot} {
		t.Run(name, func(t *testing.T) {
			r := root(t)
			keys := oddKeysBucket(t, r)
			before := keys("")

			msg := fails(t, ExitFailure, "mv", r+"/src", r+"/dst")
			for _, k := range oddKeysOdd {
				assert.Contains(t, msg, strconv.Quote(k), "the error names every key no path names")
			}
			assert.Contains(t, msg, "nothing was copied or deleted")
			assert.Equal(t, before, keys(""), "nothing was copied or deleted")
		})
	}
}

// TestCpNamesKeysNoPathNames: cp -r of a gs:// or azblob:// prefix that holds
// keys no path names copies every other file, then exits 1 naming each key
// it did not copy; the source is untouched.
func TestCpNamesKeysNoPathNames(t *testing.T) {
	for name, root := range map[string]func(t *testing.T) string{"gs": gsRoot, "azblob": azblobRoot} {
		t.Run(name, func(t *testing.T) {
			r := root(t)
			keys := oddKeysBucket(t, r)
			before := keys("src/")

			msg := fails(t, ExitFailure, "cp", "-r", r+"/src", r+"/dst")
			for _, k := range oddKeysOdd {
				assert.Contains(t, msg, strconv.Quote(k), "the error names every key no path names")
			}
			assert.Contains(t, msg, "not copied")
			assert.Equal(t, before, keys("src/"), "the source is untouched")
			fsys, err := testApp(t).reg.Get(t.Context(), r)
			require.NoError(t, err)
			for _, k := range oddKeysPlain {
				got, err := vfs.ReadFile(t.Context(), fsys, vfs.MustPath(r+"/dst/"+k[len("src/"):]))
				require.NoError(t, err, "every file a path names is copied")
				assert.Equal(t, "data of "+k, string(got))
			}
			for _, k := range keys("dst/") {
				assert.NotContains(t, []string{"dst/./dot.txt", "dst//empty.txt", "dst/sub/.."}, k)
			}
		})
	}
}

// oddKeysPlain and oddKeysOdd are the keys oddKeysBucket writes: some that a
// path names and some that none does.
var (
	oddKeysPlain = []string{"src/a", "src/sub/b"}
	oddKeysOdd   = []string{"src/./dot.txt", "src//empty.txt", "src/sub/.."}
)

// oddKeysBucket writes oddKeysPlain and oddKeysOdd ("data of " and the key)
// with the bucket's own client into the bucket root r (gs:// or azblob://),
// checks it keeps them, and returns a function listing the bucket's keys
// under a prefix.
func oddKeysBucket(t *testing.T, r string) func(prefix string) []string {
	t.Helper()
	ctx := t.Context()
	fsys, err := testApp(t).reg.Get(ctx, r)
	require.NoError(t, err)
	bf, isBucket := fsys.(interface{ Bucket() *blob.Bucket })
	require.True(t, isBucket, "%T has a bucket", fsys)
	b := bf.Bucket()
	for _, k := range append(slices.Clone(oddKeysPlain), oddKeysOdd...) {
		require.NoError(t, b.WriteAll(ctx, k, []byte("data of "+k), nil))
	}
	keys := func(prefix string) []string {
		var ks []string
		it := b.List(&blob.ListOptions{Prefix: prefix})
		for {
			o, err := it.Next(ctx)
			if err == io.EOF {
				return ks
			}
			require.NoError(t, err)
			ks = append(ks, o.Key)
		}
	}
	before := keys("")
	for _, k := range oddKeysOdd {
		require.True(t, slices.Contains(before, k), "the store keeps %q", k)
	}
	return keys
}
