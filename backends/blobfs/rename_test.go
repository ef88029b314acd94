package blobfs_test

import (
	"context"
	"sync"
	"testing"

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
	if err != nil {
		t.Fatal(err)
	}
	buckettest.RenameKeepsWrites(t, fsys, direct, vfs.MustPath("/rename"), store.arm)
}

// afterUploadStore is an Uploader over memblob that runs the armed hook once
// an upload (a streamed copy, here) is published, before blobfs hears of it.
type afterUploadStore struct {
	bucket *blob.Bucket
	mu     sync.Mutex
	after  func()
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
	after := u.s.after
	u.s.after = nil
	u.s.mu.Unlock()
	if after != nil {
		after()
	}
	return nil
}
