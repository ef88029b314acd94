package blobfs_test

import (
	"context"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameDeletesOnlyTheVersionItCopied writes a new version of the source
// right after Rename's copy was published (memblob, whose copies stream
// through the process): the new version stays at the source.
func TestRenameDeletesOnlyTheVersionItCopied(t *testing.T) {
	store := &afterUploadStore{}
	fsys, b := newMem(t, blobfs.Options{Store: store})
	store.bucket = b
	direct, err := blobfs.New(b, blobfs.Options{Scheme: "mem", Authority: "test"})
	require.NoError(t, err)
	buckettest.RenameKeepsWrites(t, fsys, direct, vfs.MustPath("/rename"), store.arm)
}

// afterUploadStore is an Uploader over memblob that runs the armed hook once
// an upload (a streamed copy, here) is published, before blobfs hears of it;
// every other upload published meanwhile waits for the hook to end.
type afterUploadStore struct {
	bucket *blob.Bucket
	mu     sync.Mutex
	after  func()
	done   chan struct{} // closed when the armed hook has run
}

func (*afterUploadStore) CheckKey(string, bool) error { return nil }

func (s *afterUploadStore) arm(after func()) {
	s.mu.Lock()
	s.after = after
	s.mu.Unlock()
}

func (s *afterUploadStore) NewUpload(ctx context.Context, key string, opts blobfs.UploadOptions) (blobfs.Upload, error) {
	w, err := s.bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: opts.ContentType, Metadata: opts.Metadata, IfNotExist: opts.IfNotExist})
	if err != nil {
		return nil, err
	}
	return &afterUpload{Writer: w, s: s}, nil
}

type afterUpload struct {
	*blob.Writer
	s *afterUploadStore
}

func (u *afterUpload) Close() error {
	if err := u.Writer.Close(); err != nil {
		return err
	}
	u.s.mu.Lock()
	after, wait := u.s.after, u.s.done
	if after != nil {
		u.s.after = nil
		u.s.done = make(chan struct{})
		defer close(u.s.done)
	}
	u.s.mu.Unlock()
	if after != nil {
		after()
	} else if wait != nil {
		<-wait // every other copy is published before the hook's writes end, as through a proxy
	}
	return nil
}

// TestRenameMovesKeysNoPathNamesByKey: a directory rename moves every key
// under the prefix by its own key, those no path names ("src/sub/..",
// "src/./d") included; none is taken for the path it would resolve to (the
// object "src/sub" stays "src/sub" until its own move).
func TestRenameMovesKeysNoPathNamesByKey(t *testing.T) {
	ctx := t.Context()
	fsys, b := newMem(t, blobfs.Options{})
	files := map[string]string{"src/sub": "sub", "src/sub/..": "dot dot", "src/./d": "dot", "src//e": "empty", "src/x/y": "y"}
	for k, data := range files {
		require.NoError(t, b.WriteAll(ctx, k, []byte(data), nil))
	}
	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/src"), vfs.MustPath("/dst")))
	for k, data := range files {
		got, err := b.ReadAll(ctx, "dst"+strings.TrimPrefix(k, "src"))
		require.NoError(t, err, k)
		assert.Equal(t, data, string(got), k)
		ok, err := b.Exists(ctx, k)
		require.NoError(t, err)
		assert.False(t, ok, "%s moved", k)
	}
}

// TestUnnameableKeysBelowAFileDoNotStopItsMove: keys no path names under
// "f/" do not belong to the file f (a path that is a file as Stat says), so
// vfs.MoveTree of f moves it; of the directory d holding such a key, it is
// refused naming the key.
func TestUnnameableKeysBelowAFileDoNotStopItsMove(t *testing.T) {
	ctx := t.Context()
	fsys, b := newMem(t, blobfs.Options{})
	for _, k := range []string{"f", "f/./x", "d/y", "d//z"} {
		require.NoError(t, b.WriteAll(ctx, k, []byte(k), nil))
	}
	_, err := vfs.MoveTree(ctx, fsys, vfs.MustPath("/g"), fsys, vfs.MustPath("/f"), vfs.CopyOptions{})
	require.NoError(t, err)
	got, err := b.ReadAll(ctx, "g")
	require.NoError(t, err)
	assert.Equal(t, "f", string(got))
	_, err = vfs.MoveTree(ctx, fsys, vfs.MustPath("/e"), fsys, vfs.MustPath("/d"), vfs.CopyOptions{})
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), `"d//z"`)
	ok, err := b.Exists(ctx, "d/y")
	require.NoError(t, err)
	assert.True(t, ok, "nothing moved")
}
