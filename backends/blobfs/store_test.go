package blobfs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// batchStore is a Store that refuses keys holding "forbidden" and deletes in
// batches, recording each batch's size.
type batchStore struct {
	b       *blob.Bucket
	mu      sync.Mutex
	batches []int
}

func (*batchStore) CheckKey(k string, write bool) error {
	if write && strings.Contains(k, "forbidden") {
		return fmt.Errorf("object key %q holds a forbidden word", k)
	}
	return nil
}

func (s *batchStore) DeleteBatch(ctx context.Context, keys []string) error {
	s.mu.Lock()
	s.batches = append(s.batches, len(keys))
	s.mu.Unlock()
	for _, k := range keys {
		if err := s.b.Delete(ctx, k); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return err
		}
	}
	return nil
}

// TestStoreHooks checks that blobfs uses a Store's optional parts: CheckKey
// refuses a key before any request, and a recursive delete goes through
// DeleteBatch in batches of at most MaxDeleteBatch keys.
func TestStoreHooks(t *testing.T) {
	ctx := context.Background()
	store := &batchStore{}
	fsys, b := newMem(t, blobfs.Options{Store: store})
	store.b = b
	const n = blobfs.MaxDeleteBatch + 5
	for i := range n {
		require.NoError(t, b.WriteAll(ctx, fmt.Sprintf("d/%04d", i), []byte("x"), nil))
	}
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/d"), true))
	assert.Equal(t, []int{blobfs.MaxDeleteBatch, n - blobfs.MaxDeleteBatch}, store.batches,
		"the listing's keys in full batches, and no key d, which the listing showed does not exist")
	left, err := fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	assert.Empty(t, left)

	// With an object e next to keys under e/ (an object store allows both),
	// and siblings sharing the prefix: e is deleted in a batch with the
	// others, the siblings stay.
	store.batches = nil
	for _, k := range []string{"e", "e/1", "e/2", "e-x", "e0"} {
		require.NoError(t, b.WriteAll(ctx, k, []byte(k), nil))
	}
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/e"), true))
	assert.Equal(t, []int{3}, store.batches)
	for k, want := range map[string]bool{"e": false, "e/1": false, "e/2": false, "e-x": true, "e0": true} {
		ok, err := b.Exists(ctx, k)
		require.NoError(t, err)
		assert.Equal(t, want, ok, "key %q exists", k)
	}

	out, err := fsys.Create(ctx, vfs.MustPath("/a/forbidden.txt"), vfs.NoOverwrite)
	require.Error(t, err)
	assert.Nil(t, out)
	assert.True(t, errors.Is(err, fs.ErrInvalid), "%v", err)
	assert.Contains(t, err.Error(), "forbidden word")
	ok, err := b.Exists(ctx, "a/forbidden.txt")
	require.NoError(t, err)
	assert.False(t, ok, "nothing was written")
}

// TestDeleteTreeSiblingPages checks a recursive delete whose listing of the
// prefix "f" meets siblings ("f!a" sorts before "f/") with more pages to come:
// it switches to listing "f/", deletes f, everything under f/ and nothing else.
func TestDeleteTreeSiblingPages(t *testing.T) {
	ctx := context.Background()
	store := &batchStore{}
	fsys, b := newMem(t, blobfs.Options{Store: store, ListPageSize: 2})
	store.b = b
	keep := []string{"f!a", "f!b", "f!c", "f-", "f0", "g", "e/f"}
	gone := []string{"f", "f/1", "f/2", "f/3", "f/4/5"}
	for _, k := range append(append([]string{}, keep...), gone...) {
		require.NoError(t, b.WriteAll(ctx, k, []byte(k), nil))
	}
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/f"), true))
	assert.Equal(t, []int{len(gone) + 1}, store.batches, "f (seen on the first page), the keys under f/ and f's Hadoop marker f_$folder$ (which the listing of f/ cannot show), in one batch")
	for _, k := range keep {
		got, err := b.ReadAll(ctx, k)
		require.NoError(t, err, "sibling %q survives", k)
		assert.Equal(t, k, string(got))
	}
	for _, k := range gone {
		ok, err := b.Exists(ctx, k)
		require.NoError(t, err)
		assert.False(t, ok, "%q is deleted", k)
	}
}

// TestDeleteTreeDirectoryEntries checks that with DirectoryEntries a
// recursive delete deletes the key of the directory's name last, although
// the listing did not show it: N keys under d/ cost ⌈(N+1)/1,000⌉ batches.
func TestDeleteTreeDirectoryEntries(t *testing.T) {
	ctx := context.Background()
	store := &batchStore{}
	fsys, b := newMem(t, blobfs.Options{Store: store, DirectoryEntries: true})
	store.b = b
	for i := range blobfs.MaxDeleteBatch {
		require.NoError(t, b.WriteAll(ctx, fmt.Sprintf("d/%04d", i), []byte("x"), nil))
	}
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/d"), true))
	assert.Equal(t, []int{blobfs.MaxDeleteBatch, 1}, store.batches, "the listing's keys, then d")
}

// TestRegisterStoreRefusesBadInput checks RegisterStore's validation.
func TestRegisterStoreRefusesBadInput(t *testing.T) {
	assert.ErrorIs(t, blobfs.RegisterStore("", func(*blob.Bucket, *url.URL) (blobfs.Store, error) { return nil, nil }), fs.ErrInvalid)
	assert.ErrorIs(t, blobfs.RegisterStore("x", nil), fs.ErrInvalid)
}
