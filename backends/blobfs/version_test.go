package blobfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/vfs"
)

// memETag is memblob's ETag of an object: its modification time and size.
func memETag(r interface {
	ModTime() time.Time
	Size() int64
}) string {
	return fmt.Sprintf("\"%x-%x\"", r.ModTime().UnixNano(), r.Size())
}

// conditionError is a store's refusal of a conditional request, which only
// the store's ErrorCoder knows for one.
type conditionError struct{}

func (conditionError) Error() string { return "the condition does not hold" }

// TestStreamReadsOneVersionMem replaces or deletes an object while a stream
// reads it, through memblob (no ConditionalReader: responses are compared
// with the first one's size and modification time): every later read fails
// with vfs.ErrChanged and returns no byte of the new version.
func TestStreamReadsOneVersionMem(t *testing.T) {
	const size = 10_000
	v1 := bytes.Repeat([]byte{'1'}, size)
	starts := map[string]func(t *testing.T, in vfs.InputStream){
		"Read": func(t *testing.T, in vfs.InputStream) {
			_, err := io.ReadFull(in, make([]byte, 100))
			require.NoError(t, err)
		},
		"ReadAt": func(t *testing.T, in vfs.InputStream) {
			_, err := in.ReadAt(make([]byte, 100), 5000)
			require.NoError(t, err)
		},
		"SeekEnd": func(t *testing.T, in vfs.InputStream) {
			_, err := in.Seek(-100, io.SeekEnd)
			require.NoError(t, err)
		},
		"Strict": func(*testing.T, vfs.InputStream) {}, // Open's HEAD pinned it
	}
	thens := map[string]func(in vfs.InputStream, buf []byte) (int, error){
		"SeekRead": func(in vfs.InputStream, buf []byte) (int, error) {
			if _, err := in.Seek(1, io.SeekStart); err != nil {
				return 0, err
			}
			return in.Read(buf)
		},
		"ReadAt": func(in vfs.InputStream, buf []byte) (int, error) { return in.ReadAt(buf, 1) },
		"OpenRange": func(in vfs.InputStream, buf []byte) (int, error) {
			r, err := in.(vfs.RangeReader).OpenRange(1, int64(len(buf)))
			if err != nil {
				return 0, err
			}
			defer r.Close()
			return io.ReadFull(r, buf)
		},
	}
	replacements := map[string][]byte{
		"SameSize":  bytes.Repeat([]byte{'2'}, size),
		"SameBytes": v1, // a new version, though equal: refused all the same
		"Shorter":   []byte("22"),
		"Deleted":   nil,
	}
	for startName, start := range starts {
		for thenName, then := range thens {
			for replName, repl := range replacements {
				t.Run(startName+"/"+thenName+"/"+replName, func(t *testing.T) {
					ctx := t.Context()
					fsys, b := newMem(t, blobfs.Options{Strict: startName == "Strict"})
					require.NoError(t, b.WriteAll(ctx, "f", v1, nil))
					in, err := fsys.Open(ctx, vfs.MustPath("/f"))
					require.NoError(t, err)
					defer in.Close()
					start(t, in)
					if repl == nil {
						require.NoError(t, b.Delete(ctx, "f"))
					} else {
						require.NoError(t, b.WriteAll(ctx, "f", repl, nil))
					}
					buf := make([]byte, 50)
					n, err := then(in, buf)
					require.ErrorIs(t, err, vfs.ErrChanged, "a read after the object changed")
					require.Zero(t, n, "no byte of the new version")
					var pe *fs.PathError
					require.ErrorAs(t, err, &pe)
					assert.Equal(t, "mem://test/f", pe.Path)
					if repl == nil {
						assert.ErrorIs(t, err, fs.ErrNotExist)
					}
				})
			}
		}
	}
}

// TestUnchangedObjectReadsAsBeforeMem reads an unchanged object in every way
// through one stream: the pin never refuses its own version, whichever
// request (HEAD or GET) pinned it.
func TestUnchangedObjectReadsAsBeforeMem(t *testing.T) {
	for _, strict := range []bool{false, true} {
		ctx := t.Context()
		fsys, b := newMem(t, blobfs.Options{Strict: strict})
		data := make([]byte, 100_000)
		for i := range data {
			data[i] = byte(i * 13)
		}
		require.NoError(t, b.WriteAll(ctx, "f", data, nil))
		in, err := fsys.Open(ctx, vfs.MustPath("/f"))
		require.NoError(t, err)
		pos, err := in.Seek(-10, io.SeekEnd)
		require.NoError(t, err)
		buf := make([]byte, 10)
		_, err = io.ReadFull(in, buf)
		require.NoError(t, err)
		assert.Equal(t, data[pos:], buf)
		for _, off := range []int64{0, 1, 4096, 50_000, 99_990} {
			_, err := in.ReadAt(buf, off)
			require.NoError(t, err, "ReadAt %d (strict=%t)", off, strict)
			assert.Equal(t, data[off:off+10], buf)
			_, err = in.Seek(off, io.SeekStart)
			require.NoError(t, err)
			_, err = io.ReadFull(in, buf)
			require.NoError(t, err, "Read at %d (strict=%t)", off, strict)
			assert.Equal(t, data[off:off+10], buf)
		}
		require.NoError(t, in.Close())
	}
}

// TestConditionalReaderHook checks the wiring of a ConditionalReader Store:
// blobfs asks for no condition on a stream's first GET, makes every later GET
// conditional on the ETag the first response had, and reports the store's 412
// as vfs.ErrChanged.
func TestConditionalReaderHook(t *testing.T) {
	ctx := t.Context()
	store := &refusingStore{}
	fsys, b := newMem(t, blobfs.Options{Store: store})
	write := func(data string) {
		require.NoError(t, b.WriteAll(ctx, "f", []byte(data), nil))
		attrs, err := b.Attributes(ctx, "f")
		require.NoError(t, err)
		store.current = attrs.ETag
	}
	write("0123456789")
	in, err := fsys.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	defer in.Close()
	buf := make([]byte, 3)
	_, err = in.ReadAt(buf, 0)
	require.NoError(t, err)
	assert.Empty(t, store.etags, "the first GET is not conditional")
	first := store.current
	_, err = in.ReadAt(buf, 3)
	require.NoError(t, err)
	assert.Equal(t, "345", string(buf))
	assert.Equal(t, []string{first}, store.etags, "the second GET is conditional on the first response's ETag")

	write("abcdefghij")
	_, err = in.ReadAt(buf, 6)
	require.ErrorIs(t, err, vfs.ErrChanged)
	assert.Contains(t, err.Error(), "refused a read conditional on it")
	assert.Len(t, store.etags, 2)
}

// refusingStore is a ConditionalReader over memblob that does on the client
// what S3 does on the server: a GET whose If-Match ETag is no longer the
// object's (current, which the test sets after each write: memblob runs the
// hook under its lock, so the hook cannot ask the bucket) fails with an error
// its ErrorCode calls gcerrors.FailedPrecondition.
// It records the ETags asked for.
type refusingStore struct {
	current string
	etags   []string
}

func (*refusingStore) CheckKey(string, bool) error { return nil }

// ErrorCode is blobfs.ErrorCoder's: blobfs tells a refused condition only
// through it.
func (*refusingStore) ErrorCode(err error) gcerrors.ErrorCode {
	if errors.As(err, new(conditionError)) {
		return gcerrors.FailedPrecondition
	}
	return gcerrors.Unknown
}

func (*refusingStore) RangePastEnd(error) bool { return false }

func (*refusingStore) ReadVersion(r *blob.Reader) string { return memETag(r) }

func (*refusingStore) HeadVersion(a *blob.Attributes) string { return a.ETag }

func (s *refusingStore) BeforeReadVersion(etag string) func(as func(any) bool) error {
	s.etags = append(s.etags, etag)
	return func(func(any) bool) error {
		if s.current != etag {
			return conditionError{}
		}
		return nil
	}
}

// TestDeleteVersionFromAListingIsConditional: a version without an ID (a
// listing's size and time) that the HEAD matches is deleted conditionally on
// the ID the HEAD saw, so an object written again between the HEAD and the
// delete stays (vfs.ErrChanged) with its new bytes.
func TestDeleteVersionFromAListingIsConditional(t *testing.T) {
	ctx := t.Context()
	store := &racingDeleteStore{refusingStore: &refusingStore{}}
	fsys, b := newMem(t, blobfs.Options{Store: store})
	store.bucket = b
	require.NoError(t, b.WriteAll(ctx, "f", []byte("listed"), nil))
	sts, err := fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	require.Len(t, sts, 1)

	err = vfs.DeleteVersion(ctx, fsys, sts[0].Path, vfs.VersionOf(sts[0]))
	require.ErrorIs(t, err, vfs.ErrChanged)
	require.Equal(t, 1, store.deletes, "the delete was conditional")
	got, err := b.ReadAll(ctx, "f")
	require.NoError(t, err, "the version written after the HEAD is still there")
	assert.Equal(t, "written between the HEAD and the delete", string(got))
}

// racingDeleteStore is a ConditionalDeleter over memblob whose every
// conditional delete first writes the object again (another writer, between
// blobfs's HEAD and its delete), then deletes only if the object's ETag is
// still the one asked for.
type racingDeleteStore struct {
	*refusingStore
	bucket  *blob.Bucket
	deletes int
}

func (s *racingDeleteStore) DeleteVersion(ctx context.Context, b *blob.Bucket, _, key, v string) error {
	s.deletes++
	if err := b.WriteAll(ctx, key, []byte("written between the HEAD and the delete"), nil); err != nil {
		return err
	}
	attrs, err := b.Attributes(ctx, key)
	if err != nil {
		return err
	}
	if attrs.ETag != v {
		return conditionError{}
	}
	return b.Delete(ctx, key)
}
