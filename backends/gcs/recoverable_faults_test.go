package gcs_test

import (
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
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

// rawKeys lists every object under prefix in the emulator, temporary objects
// included.
func rawKeys(t *testing.T, srv *gcstest.Server, bucket, prefix string) []string {
	t.Helper()
	objs, _, err := srv.Fake().ListObjectsWithOptions(bucket, fakestorage.ListOptions{Prefix: prefix})
	require.NoError(t, err)
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Name)
	}
	return keys
}

// TestRecoverableCommitDiedBeforeDeletingPieces is a commit that composed the
// target and then failed to delete its pieces (as one killed then would):
// another writer then replaces the target, and CommitAfterRecovery writes
// nothing, says so (fs.ErrNotExist) and deletes the pieces. A regression
// test: CommitAfterRecovery composed the old pieces again over the newer
// file.
func TestRecoverableCommitDiedBeforeDeletingPieces(t *testing.T) {
	ctx := t.Context()
	faulty, direct, p, bucket := faulted(t)
	srv := gcstest.Shared(t)
	w, err := vfs.NewRecoverableWriter(faulty)
	require.NoError(t, err)
	wDirect, err := vfs.NewRecoverableWriter(direct)
	require.NoError(t, err)
	target := vfs.MustPath("gs://" + bucket + "/killed/f")
	out, err := w.Open(ctx, target)
	require.NoError(t, err)
	for i := range 3 {
		_, err = out.Write(rwtest.Data(i, 3000))
		require.NoError(t, err)
		_, err = out.Persist(ctx)
		require.NoError(t, err)
	}
	c, err := out.CloseForCommit(ctx)
	require.NoError(t, err)
	tok := c.Recoverable()

	p.Set(faultproxy.Faults{Answer: &faultproxy.Answer{Status: http.StatusForbidden, Body: "{}"}, Match: func(r *http.Request) bool {
		return r.Method == http.MethodDelete || strings.Contains(r.URL.Path, "/batch")
	}})
	require.Error(t, c.Commit(ctx), "Commit whose deletes of the pieces fail")
	p.Set(faultproxy.Faults{})
	require.Greater(t, len(rawKeys(t, srv, bucket, "killed/")), 1, "the pieces left by the failed commit")
	rwtest.RequireContent(t, direct, target, append(append(rwtest.Data(0, 3000), rwtest.Data(1, 3000)...), rwtest.Data(2, 3000)...))

	newer := []byte("written by another client after the commit")
	require.NoError(t, vfs.WriteFile(ctx, direct, target, newer, vfs.Overwrite))
	rc, err := wDirect.RecoverForCommit(ctx, tok)
	require.NoError(t, err)
	require.ErrorIs(t, rc.CommitAfterRecovery(ctx), fs.ErrNotExist, "CommitAfterRecovery after the target was replaced")
	rwtest.RequireContent(t, direct, target, newer)
	require.Equal(t, []string{"killed/f"}, rawKeys(t, srv, bucket, "killed/"), "objects after the recovery: the pieces never outlive the commit's decision")
}

// TestRecoverablePiecesPutBack puts a stream's pieces back after its commit
// (as a restore of the bucket, or a commit's deletes answered but not done,
// would) and replaces the target: CommitAfterRecovery writes nothing. A
// regression test: it composed the pieces again over the newer file.
func TestRecoverablePiecesPutBack(t *testing.T) {
	ctx := t.Context()
	srv := gcstest.Shared(t)
	bucket := srv.NewBucket()
	fsys, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	target := vfs.MustPath("gs://" + bucket + "/back/f")
	out, err := w.Open(ctx, target)
	require.NoError(t, err)
	for i := range 2 {
		_, err = out.Write(rwtest.Data(i, 2000))
		require.NoError(t, err)
		_, err = out.Persist(ctx)
		require.NoError(t, err)
	}
	c, err := out.CloseForCommit(ctx)
	require.NoError(t, err)
	var pieces []fakestorage.Object
	for _, k := range rawKeys(t, srv, bucket, "back/") {
		o, err := srv.Fake().GetObject(bucket, k)
		require.NoError(t, err)
		pieces = append(pieces, o)
	}
	require.Len(t, pieces, 2)
	require.NoError(t, c.Commit(ctx))
	newer := []byte("written by another client after the commit")
	require.NoError(t, vfs.WriteFile(ctx, fsys, target, newer, vfs.Overwrite))
	for _, o := range pieces {
		o.Generation = 0
		srv.Fake().CreateObject(o)
	}
	rc, err := w.RecoverForCommit(ctx, c.Recoverable())
	require.NoError(t, err)
	require.Error(t, rc.CommitAfterRecovery(ctx), "CommitAfterRecovery over pieces put back after the commit")
	rwtest.RequireContent(t, fsys, target, newer)
}
