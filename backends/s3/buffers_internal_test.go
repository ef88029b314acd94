package s3

import (
	"bytes"
	"crypto/sha256"
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBufferSize(t *testing.T) {
	const part = 5 << 20 // not a power of two
	for _, c := range []struct{ want, size int }{
		{0, firstBufferSize}, {1, firstBufferSize}, {firstBufferSize, firstBufferSize},
		{firstBufferSize + 1, 2 * firstBufferSize}, {1 << 20, 1 << 20}, {1<<20 + 1, 2 << 20},
		{4 << 20, 4 << 20}, {4<<20 + 1, part}, {part, part}, {part + 1, part}, {1 << 40, part},
	} {
		assert.Equal(t, c.size, bufferSize(c.want, part), "bufferSize(%d, %d)", c.want, part)
	}
}

// TestBufferPool: a buffer given back is handed out again for its capacity
// only, empty; buffers smaller than the first size are not kept.
func TestBufferPool(t *testing.T) {
	const size = 3 << 20 // a capacity no other test uses
	b := append(getBuffer(size), "abc"...)
	require.Equal(t, size, cap(b))
	putBuffer(b)
	other := getBuffer(size / 2)
	assert.Equal(t, size/2, cap(other), "another capacity's buffer")
	reused := false
	for range 100 { // sync.Pool may drop a buffer (always under -race, 1 in 4)
		got := getBuffer(size)
		require.Equal(t, size, cap(got))
		require.Empty(t, got)
		if &got[:1][0] == &b[0] {
			reused = true
			break
		}
		putBuffer(got)
		putBuffer(b)
	}
	assert.True(t, reused, "a buffer given back is reused")
	putBuffer(make([]byte, 10, firstBufferSize-1)) // not kept: no pool for it
	_, ok := buffers.Load(firstBufferSize - 1)
	assert.False(t, ok)
}

// TestBodyReadsLikeBytesReader: Read, Seek, WriteTo and Len behave as
// bytes.Reader's, which the SDK sizes, hashes and rewinds.
func TestBodyReadsLikeBytesReader(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10_000)
	b := newBody(data)
	assert.Equal(t, len(data), b.Len())
	h := sha256.New()
	n, err := io.Copy(h, b) // WriteTo, as the SDK's payload hash reads it
	require.NoError(t, err)
	assert.EqualValues(t, len(data), n)
	assert.Equal(t, sha256.Sum256(data), [32]byte(h.Sum(nil)))
	assert.Zero(t, b.Len())
	pos, err := b.Seek(5, io.SeekStart)
	require.NoError(t, err)
	assert.EqualValues(t, 5, pos)
	got, err := io.ReadAll(struct{ io.Reader }{b}) // Read only
	require.NoError(t, err)
	assert.Equal(t, data[5:], got)
}

// TestBodyFence: after fence nothing reads the buffer, and fence waits for a
// read in progress (here a WriteTo whose writer is the one reading).
func TestBodyFence(t *testing.T) {
	data := []byte("state bytes")
	b := newBody(data)
	fenced := make(chan struct{})
	w := writerFunc(func(p []byte) (int, error) {
		go func() { b.fence(); close(fenced) }()
		for range 100 {
			runtime.Gosched()
		}
		select {
		case <-fenced:
			t.Error("fence returned while WriteTo was reading the buffer")
		default:
		}
		return len(p), nil
	})
	n, err := b.WriteTo(w)
	require.NoError(t, err)
	assert.EqualValues(t, len(data), n)
	<-fenced
	_, err = b.Read(make([]byte, 4))
	assert.ErrorIs(t, err, errFenced)
	_, err = b.Seek(0, io.SeekStart)
	assert.ErrorIs(t, err, errFenced)
	_, err = b.WriteTo(io.Discard)
	assert.ErrorIs(t, err, errFenced)
	assert.Zero(t, b.Len())
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
