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
	assert.Equal(t, []int{blobfs.MaxDeleteBatch, n - blobfs.MaxDeleteBatch + 1}, store.batches, "the listing's keys and d itself, in full batches")
	left, err := fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	assert.Empty(t, left)

	out, err := fsys.Create(ctx, vfs.MustPath("/a/forbidden.txt"), vfs.NoOverwrite)
	require.Error(t, err)
	assert.Nil(t, out)
	assert.True(t, errors.Is(err, fs.ErrInvalid), "%v", err)
	assert.Contains(t, err.Error(), "forbidden word")
	ok, err := b.Exists(ctx, "a/forbidden.txt")
	require.NoError(t, err)
	assert.False(t, ok, "nothing was written")
}

// TestRegisterStoreRefusesBadInput checks RegisterStore's validation.
func TestRegisterStoreRefusesBadInput(t *testing.T) {
	assert.ErrorIs(t, blobfs.RegisterStore("", func(*blob.Bucket, *url.URL) (blobfs.Store, error) { return nil, nil }), fs.ErrInvalid)
	assert.ErrorIs(t, blobfs.RegisterStore("x", nil), fs.ErrInvalid)
}
