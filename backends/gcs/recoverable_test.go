package gcs_test

import (
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRecoverableComposesInRounds persists 70 pieces: more than twice the 32
// sources one compose takes, so the commit composes in rounds.
func TestRecoverableComposesInRounds(t *testing.T) {
	ctx := t.Context()
	bucket := gcstest.Shared(t).NewBucket()
	fsys, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	dir := vfs.MustPath("gs://" + bucket + "/rounds")
	s, err := w.Open(ctx, dir.Join("f"))
	require.NoError(t, err)
	var want []byte
	for i := range 70 {
		p := rwtest.Data(i, 100+i)
		want = append(want, p...)
		_, err := s.Write(p)
		require.NoError(t, err)
		_, err = s.Persist(ctx)
		require.NoError(t, err)
	}
	com, err := s.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, com.Commit(ctx))
	rwtest.RequireContent(t, fsys, dir.Join("f"), want)
	rwtest.RequireOnly(t, fsys, dir, "f")
}

func TestRecoverableTempsAreHiddenFromListings(t *testing.T) {
	ctx := t.Context()
	srv := gcstest.Shared(t)
	bucket := srv.NewBucket()
	fsys, err := gcs.New(ctx, bucket, gcs.Options{})
	require.NoError(t, err)
	rwtest.RequireTempsHidden(t, fsys, vfs.MustPath("gs://"+bucket+"/d"), rwtest.LookAlike, blobfs.IsRecoverableTemp, func() []string {
		objs, _, err := srv.Fake().ListObjectsWithOptions(bucket, fakestorage.ListOptions{Prefix: "d/"})
		require.NoError(t, err)
		var keys []string
		for _, o := range objs {
			keys = append(keys, o.Name)
		}
		return keys
	})
}
