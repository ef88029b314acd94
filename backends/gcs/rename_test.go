package gcs_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRenameDeletesOnlyTheVersionItCopied writes a new version of the source
// right after fake-gcs-server stored Rename's copy (an upload: GCS copies
// stream through the process) and before the client hears it: the new
// version stays at the source. And one written right after the source's
// metadata was read: the copy's read, conditional on that generation, is
// refused, and nothing moves.
func TestRenameDeletesOnlyTheVersionItCopied(t *testing.T) {
	srv := gcstest.Shared(t)
	ctx := t.Context()
	bucket := srv.NewBucket()
	direct, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	p, err := faultproxy.Start(srv.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	// The driver's client reads the emulator's address when the bucket opens.
	t.Setenv(gcstest.EmulatorHostEnv, strings.TrimPrefix(p.URL(), "http://"))
	proxied, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	isUpload := func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/upload/")
	}
	buckettest.RenameKeepsWrites(t, proxied, direct, vfs.MustPath("gs://"+bucket+"/rename"), buckettest.ArmProxy(p, isUpload))
	isAttrs := func(r *http.Request) bool { // the object's metadata: GCS's HEAD
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/src") && r.URL.Query().Get("alt") != "media"
	}
	buckettest.RenameRefusesSourceChangedBeforeCopy(t, proxied, direct, vfs.MustPath("gs://"+bucket+"/rename"), buckettest.ArmProxy(p, isAttrs))
}
