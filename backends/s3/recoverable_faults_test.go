package s3_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// opIn selects the requests of the operations ops.
func opIn(ops ...string) func(*http.Request) bool {
	return func(r *http.Request) bool {
		op := s3test.Operation(r)
		for _, o := range ops {
			if op == o {
				return true
			}
		}
		return false
	}
}

// TestRecoverableLostAnswers loses answers to the requests of recoverable
// streams on SeaweedFS: the first answer to every UploadPart, and every
// answer to CompleteMultipartUpload (the upload completes, the client never
// hears it). Every stream must still commit, byte for byte, a repeated
// commit must return nil, and nothing may be left.
func TestRecoverableLostAnswers(t *testing.T) {
	for _, c := range []struct {
		name  string
		match func(*http.Request) bool
	}{
		{"FirstUploadPart", firstOf(s3test.OpUploadPart)},
		{"EveryComplete", opIn(s3test.OpCompleteMultipartUpload)},
	} {
		t.Run(c.name, func(t *testing.T) {
			faulty, direct, p, bucket := faulted(t, func(o *s3.Options) { o.PartSize = s3.MinPartSize; o.MaxAttempts = 3 })
			w, err := vfs.NewRecoverableWriter(faulty)
			require.NoError(t, err)
			p.Set(faultproxy.Faults{Drop: 1, Match: c.match})
			s := rwtest.WriteWithRecovery(t.Context(), w, vfs.MustPath("/lost/f"), 1, s3.MinPartSize+100)
			require.NoError(t, s.Err)
			assert.Positive(t, p.Counts().Dropped)
			rwtest.RequireContent(t, direct, s.Path, s.Want)
			rwtest.Converge(t, direct, w, []*rwtest.Stream{s})
			rwtest.RequireOnly(t, direct, s.Path.Parent(), "f")
			requireNoUploads(t, bucket)
		})
	}
}

// TestRecoverableFaultsNeverPublishCorrupt drops a third of the answers to
// UploadPart and CompleteMultipartUpload (and cuts some in half) while
// several streams write, persist, recover and commit: whatever fails, no
// target ever holds anything but its whole file, and once the faults stop
// every stream converges (CommitAfterRecovery, or recovery from its last
// token) with nothing left behind.
func TestRecoverableFaultsNeverPublishCorrupt(t *testing.T) {
	faulty, direct, p, bucket := faulted(t, func(o *s3.Options) { o.PartSize = s3.MinPartSize; o.MaxAttempts = 2 })
	w, err := vfs.NewRecoverableWriter(faulty)
	require.NoError(t, err)
	p.Set(faultproxy.Faults{Drop: 0.3, Cut: 0.1, Seed: 7, Match: opIn(s3test.OpUploadPart, s3test.OpCompleteMultipartUpload)})
	var streams []*rwtest.Stream
	for i := range 4 {
		streams = append(streams, rwtest.WriteWithRecovery(t.Context(), w, vfs.MustPath(fmt.Sprintf("/faults/f%d", i)), 10*i, s3.MinPartSize+1000*i))
	}
	failed := 0
	for _, s := range streams {
		if s.Err != nil {
			failed++
			t.Logf("%s: %v", s.Path, s.Err)
		}
	}
	t.Logf("%d of %d streams failed under faults; %d answers dropped, %d cut", failed, len(streams), p.Counts().Dropped, p.Counts().Cut)
	require.Positive(t, p.Counts().Dropped+p.Counts().Cut)
	rwtest.RequireNothingCorrupt(t, direct, streams)
	p.Set(faultproxy.Faults{})
	wDirect, err := vfs.NewRecoverableWriter(direct)
	require.NoError(t, err)
	rwtest.Converge(t, direct, wDirect, streams)
	requireNoUploads(t, bucket)
}
