package s3_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// uniqueData is size bytes that no other (seed, size) produces at any offset
// in practice: a file holding bytes of another is caught byte for byte.
func uniqueData(seed uint64, size int) []byte {
	b := make([]byte, size)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	for i := 0; i < size; i += 8 {
		v := r.Uint64()
		for j := i; j < min(i+8, size); j++ {
			b[j] = byte(v)
			v >>= 8
		}
	}
	return b
}

// TestPooledBuffersNeverMixFiles writes files of distinct bytes from several
// goroutines, as a checkpoint's tasks do, through a proxy that answers many
// PUTs before it read their body (so the HTTP transport is still sending a
// request's body when the SDK has its answer, and after the SDK returned),
// and drops or cuts other answers. Upload buffers go back to the pool after
// every request, failed ones included, and are filled with the next file
// right away: no object may ever hold bytes of another file. A write that
// succeeded left exactly its bytes; one that failed left nothing or, when
// only its answer was lost, exactly its bytes.
func TestPooledBuffersNeverMixFiles(t *testing.T) {
	faulty, direct, p, _ := faulted(t, func(o *s3.Options) { o.MaxAttempts = 2 })
	p.Set(faultproxy.Faults{Early: 0.6, Drop: 0.1, Cut: 0.1, Seed: 7,
		Match: func(r *http.Request) bool { return s3test.Operation(r) == s3test.OpPutObject }})
	ctx := t.Context()
	const writers, files = 4, 12
	// Sizes in several of the pool's capacities (64 KiB to 2 MiB).
	sizes := []int{1 << 20, 300 << 10, 1<<20 + 1, 2<<20 - 7, 70 << 10, 1 << 20}
	path := func(w, i int) vfs.Path { return vfs.MustPath(fmt.Sprintf("/chk/%d/%d", w, i)) }
	data := func(w, i int) []byte { return uniqueData(uint64(w*files+i), sizes[(w+i)%len(sizes)]) }
	var errs [writers][files]error
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range files {
				errs[w][i] = vfs.WriteFile(ctx, faulty, path(w, i), data(w, i), vfs.Overwrite)
			}
		}()
	}
	wg.Wait()
	failed := 0
	for w := range writers {
		for i := range files {
			want := data(w, i)
			got, err := vfs.ReadFile(ctx, direct, path(w, i))
			if errs[w][i] != nil {
				failed++
				if err != nil {
					require.ErrorIs(t, err, fs.ErrNotExist, "read %s after its write failed", path(w, i))
					continue
				}
			}
			require.NoError(t, err, "read %s", path(w, i))
			require.True(t, bytes.Equal(want, got), "%s holds %d bytes that are not the %d written to it (write error: %v)",
				path(w, i), len(got), len(want), errs[w][i])
		}
	}
	c := p.Counts()
	t.Logf("%d of %d writes failed; proxy: %+v", failed, writers*files, c)
	assert.Positive(t, c.Early, "answers before the body was read")
	assert.Positive(t, failed, "writes failed, so buffers came back from failed requests")
	assert.Less(t, failed, writers*files, "writes succeeded after failed ones")
}
