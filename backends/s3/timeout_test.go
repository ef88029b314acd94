package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestStalledServerTimesOut puts a server that answers only after 20 s behind
// the proxy: with no deadline on the context, every operation fails after
// RequestTimeout with a clear, unretried *TimeoutError (before, each waited for
// the server).
func TestStalledServerTimesOut(t *testing.T) {
	faulty, direct, p, _ := faulted(t, func(o *s3.Options) { o.RequestTimeout = 300 * time.Millisecond })
	ctx := t.Context()
	_, hasDeadline := ctx.Deadline()
	require.False(t, hasDeadline, "the test's context must have no deadline")
	path := vfs.MustPath("/stalled")
	require.NoError(t, vfs.WriteFile(ctx, direct, path, []byte("x"), vfs.NoOverwrite))
	p.Set(faultproxy.Faults{Delay: 20 * time.Second})

	ops := map[string]func() error{
		"write": func() error { return vfs.WriteFile(ctx, faulty, vfs.MustPath("/new"), []byte("y"), vfs.NoOverwrite) },
		"stat":  func() error { _, err := faulty.Stat(ctx, path); return err },
		"read":  func() error { _, err := vfs.ReadFile(ctx, faulty, path); return err },
	}
	// The write sends its PUT and then one HEAD to learn whether the stalled
	// PUT was applied after all (the object would then be its own).
	requests := map[string]int{"write": 2, "stat": 1, "read": 1}
	for name, op := range ops {
		p.Reset()
		err := op()
		require.Error(t, err, "%s on a stalled server", name)
		var te *s3.TimeoutError
		require.True(t, errors.As(err, &te), "%s: want a *s3.TimeoutError, got %v", name, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded, name)
		assert.Contains(t, err.Error(), "RequestTimeout", "%s: the error names the setting", name)
		assert.Equal(t, 300*time.Millisecond, te.Limit)
		assert.Equal(t, requests[name], p.Counts().Requests, "%s: a stalled request is not retried", name)
	}
	var pe interface{ Unwrap() error }
	require.True(t, errors.As(ops["stat"](), &pe), "errors stay *fs.PathError values")
}

// TestDeadlineOnContextWins: a caller that set a deadline chose its own bound;
// the default timeout does not cut a slow answer short.
func TestDeadlineOnContextWins(t *testing.T) {
	faulty, direct, p, _ := faulted(t, func(o *s3.Options) { o.RequestTimeout = 50 * time.Millisecond })
	path := vfs.MustPath("/slow")
	data := bytes.Repeat([]byte("z"), 1000)
	require.NoError(t, vfs.WriteFile(t.Context(), direct, path, data, vfs.NoOverwrite))
	p.Set(faultproxy.Faults{Delay: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	got, err := vfs.ReadFile(ctx, faulty, path)
	require.NoError(t, err, "answers slower than RequestTimeout but within the context's deadline")
	assert.Equal(t, data, got)
}

// TestStalledCompletionIsRecognised holds back the answer to a multipart
// write's CompleteMultipartUpload on a connection left open (an answer lost
// without a reset): the completion fails once, after RequestTimeout, and is
// not retried; the abort meets NoSuchUpload, the marker goes, and one HEAD
// finds the write's own object, so the write succeeds in both modes.
func TestStalledCompletionIsRecognised(t *testing.T) {
	for i, mode := range []vfs.WriteMode{vfs.NoOverwrite, vfs.Overwrite} {
		t.Run(mode.String(), func(t *testing.T) {
			faulty, direct, p, bucket := faulted(t, func(o *s3.Options) {
				o.PartSize = s3.MinPartSize
				o.RequestTimeout = 300 * time.Millisecond
			})
			var mu sync.Mutex
			var ops []string
			first := firstN(1, func(r *http.Request) bool { return s3test.Operation(r) == s3test.OpCompleteMultipartUpload })
			p.Set(faultproxy.Faults{Delay: 20 * time.Second, Match: func(r *http.Request) bool {
				mu.Lock()
				ops = append(ops, s3test.Operation(r))
				mu.Unlock()
				return first(r)
			}})
			path := vfs.MustPath(fmt.Sprintf("/stalled-%d", i))
			data := bigData(byte(i + 1))
			require.NoError(t, vfs.WriteFile(t.Context(), faulty, path, data, mode), "the completion took effect; its answer never came")
			assert.Equal(t, 1, p.Counts().Delayed, "the completion's answer was held back")
			mu.Lock()
			got := slices.Clone(ops)
			mu.Unlock()
			assert.Equal(t, []string{s3test.OpCompleteMultipartUpload, s3test.OpAbortMultipartUpload, s3test.OpDeleteObject, s3test.OpHeadObject},
				got[slices.Index(got, s3test.OpCompleteMultipartUpload):],
				"one completion, not retried; the abort, the marker's DELETE, then one HEAD")
			requireContent(t, direct, path, data)
			assert.Empty(t, markersIn(t, bucket), "no marker left")
			requireNoUploads(t, bucket)
		})
	}
}
