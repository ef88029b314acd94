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
