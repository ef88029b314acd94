package s3

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestDeleteVersionIsConditional: the delete sends If-Match, and SeaweedFS
// refuses another ETag.
func TestDeleteVersionIsConditional(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	bucket := srv.NewBucket(t)
	client := srv.Client(nil)
	fsys, err := New(context.Background(), bucket, Options{Client: client})
	require.NoError(t, err)
	store := &exactStore{client: client, bucket: bucket}
	del := func(key, v string) error { return store.DeleteVersion(t.Context(), nil, bucket, key, v) }
	buckettest.ConditionalDelete(t, fsys, vfs.MustPath("s3://"+bucket+"/cond"), "cond", del, `"0123456789abcdef0123456789abcdef"`)
}

// TestMoveTreeWithinABucket: a move within one bucket copies server-side and
// still leaves a file rewritten after it was copied.
func TestMoveTreeWithinABucket(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	bucket := srv.NewBucket(t)
	fsys, err := New(context.Background(), bucket, Options{Client: srv.Client(nil)})
	require.NoError(t, err)
	root := vfs.MustPath("s3://" + bucket)
	for name, data := range map[string]string{"a": "alpha", "b": "beta"} {
		require.NoError(t, vfs.WriteFile(t.Context(), fsys, root.Join("tree", name), []byte(data), vfs.NoOverwrite))
	}
	res, err := vfs.MoveTree(t.Context(), fsys, root.Join("moved"), fsys, root.Join("tree"), vfs.CopyOptions{
		Concurrency: 1,
		Progress: func(p vfs.CopyProgress) {
			if p.Files == 1 { // a is copied
				require.NoError(t, vfs.WriteFile(t.Context(), fsys, root.Join("tree", "a"), []byte("ALPHA"), vfs.Overwrite))
			}
		},
	})
	require.ErrorIs(t, err, vfs.ErrChanged)
	require.Len(t, res.Left, 1)
	require.Equal(t, root.Join("tree", "a"), res.Left[0].Path)
	for p, want := range map[vfs.Path]string{root.Join("tree", "a"): "ALPHA", root.Join("moved", "a"): "alpha", root.Join("moved", "b"): "beta"} {
		got, err := vfs.ReadFile(t.Context(), fsys, p)
		require.NoError(t, err, "%s", p)
		require.Equal(t, want, string(got), "%s", p)
	}
	ok, err := vfs.Exists(t.Context(), fsys, root.Join("tree", "b"))
	require.NoError(t, err)
	require.False(t, ok)
}

// TestEnforcesDeleteVersionProbe: the probe finds that SeaweedFS refuses a
// DeleteObject whose If-Match names another ETag and that gofakes3 does not
// (it deletes whatever is there), with one request per store, beside the key
// about to be deleted; it deletes nothing.
func TestEnforcesDeleteVersionProbe(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *s3test.Server
		want  bool
	}{{"SeaweedFS", s3test.SeaweedFS, true}, {"gofakes3", s3test.GoFakeS3, false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, want := tc.start(t), tc.want
			bucket := srv.NewBucket(t)
			c := s3test.NewCounter(nil)
			store := &exactStore{client: srv.Client(c.HTTPClient()), bucket: bucket}
			require.NoError(t, vfs.WriteFile(t.Context(), mustFS(t, srv, bucket), vfs.MustPath("s3://"+bucket+"/dir/keep"), []byte("keep"), vfs.NoOverwrite))
			for range 3 {
				require.Equal(t, want, store.EnforcesDeleteVersion(t.Context(), nil, bucket, "dir/x"))
			}
			require.Equal(t, map[string]int{s3test.OpDeleteObject: 1}, c.Counts(), "one probe")
			require.Equal(t, 1, c.IfMatch(s3test.OpDeleteObject), "the probe is conditional")
			got, err := vfs.ReadFile(t.Context(), mustFS(t, srv, bucket), vfs.MustPath("s3://"+bucket+"/dir/keep"))
			require.NoError(t, err)
			require.Equal(t, "keep", string(got))
		})
	}
}

// mustFS returns an s3:// file system of bucket on srv.
func mustFS(t *testing.T, srv *s3test.Server, bucket string) vfs.FileSystem {
	fsys, err := New(context.Background(), bucket, Options{Client: srv.Client(nil)})
	require.NoError(t, err)
	return fsys
}
