package gcs_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// faulted returns two file systems on one fresh bucket of the shared
// fake-gcs-server: one through a fault proxy (whose faults the test sets)
// and one direct, to check what the store really holds. It sets the
// emulator's address for the rest of the test (no t.Parallel).
func faulted(t *testing.T) (faulty, direct vfs.FileSystem, p *faultproxy.Proxy, bucket string) {
	t.Helper()
	srv := gcstest.Shared(t)
	ctx := t.Context()
	bucket = srv.NewBucket()
	direct, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	p, err = faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	// The driver's client reads the emulator's address when the bucket opens.
	t.Setenv(gcstest.EmulatorHostEnv, strings.TrimPrefix(p.URL(), "http://"))
	faulty, err = gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	return faulty, direct, p, bucket
}

// TestRecoverableLostComposeAnswers loses the answers to compose requests on
// their way back from fake-gcs-server (every one, then some, with some piece
// uploads too): the target was composed, the client never heard it. Nothing
// corrupt is ever published, every stream converges with
// CommitAfterRecovery (or recovery from its last token), and no temporary
// object is left.
func TestRecoverableLostComposeAnswers(t *testing.T) {
	ctx := t.Context()
	faulty, direct, p, bucket := faulted(t)
	w, err := vfs.NewRecoverableWriter(faulty)
	require.NoError(t, err)
	wDirect, err := vfs.NewRecoverableWriter(direct)
	require.NoError(t, err)
	isCompose := func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/compose") }

	for i, c := range []struct {
		name   string
		faults faultproxy.Faults
	}{
		{"EveryCompose", faultproxy.Faults{Drop: 1, Match: isCompose}},
		{"SomeComposesAndUploads", faultproxy.Faults{Drop: 0.4, Seed: 5, Match: func(r *http.Request) bool {
			return isCompose(r) || r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/upload/")
		}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p.Set(c.faults)
			var streams []*rwtest.Stream
			for j := range 3 {
				path := vfs.MustPath(fmt.Sprintf("gs://%s/lost%d/f%d", bucket, i, j))
				streams = append(streams, rwtest.WriteWithRecovery(ctx, w, path, 10*j, 1000+100*j))
			}
			assert.Positive(t, p.Counts().Dropped)
			rwtest.RequireNothingCorrupt(t, direct, streams)
			p.Set(faultproxy.Faults{})
			rwtest.Converge(t, direct, wDirect, streams)
			var names []string
			for j, s := range streams {
				if s.Commit != nil || len(s.Resume) > 0 {
					names = append(names, fmt.Sprintf("f%d", j))
				}
			}
			rwtest.RequireOnly(t, direct, vfs.MustPath(fmt.Sprintf("gs://%s/lost%d", bucket, i)), names...)
		})
	}
}
