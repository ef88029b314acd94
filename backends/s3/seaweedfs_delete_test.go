package s3_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestSeaweedFSDeleteLimits pins what SeaweedFS's S3 API does that decides
// the cost of a recursive Delete there (bench/README.md): why 10,000 keys
// under "p/" take 10 listings and 11 DeleteObjects, not 20 requests. If one
// of these facts changes with a SeaweedFS upgrade, so can that count.
func TestSeaweedFSDeleteLimits(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	client := srv.Client(nil)
	bucket := srv.NewBucket(t)
	put := func(key string) {
		_, err := client.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		require.NoError(t, err)
	}
	ids := func(keys ...string) []s3types.ObjectIdentifier {
		out := make([]s3types.ObjectIdentifier, len(keys))
		for i, k := range keys {
			out[i] = s3types.ObjectIdentifier{Key: aws.String(k)}
		}
		return out
	}
	deleteBatch := func(keys ...string) error {
		out, err := client.DeleteObjects(ctx, &awss3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &s3types.Delete{Objects: ids(keys...), Quiet: aws.Bool(true)}})
		if err == nil && len(out.Errors) > 0 {
			err = fmt.Errorf("%d keys failed, first %q: %s", len(out.Errors), aws.ToString(out.Errors[0].Key), aws.ToString(out.Errors[0].Message))
		}
		return err
	}
	// top lists the bucket's top level as `ls /` does (delimiter "/").
	top := func() (keys, dirs []string) {
		out, err := client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Delimiter: aws.String("/")})
		require.NoError(t, err)
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		for _, p := range out.CommonPrefixes {
			dirs = append(dirs, aws.ToString(p.Prefix))
		}
		return keys, dirs
	}
	children := func(dir string, n int) []string {
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("%s/%04d", dir, i)
			put(keys[i])
		}
		return keys
	}

	t.Run("DeleteObjectsTakesAtMost1000Keys", func(t *testing.T) {
		keys := children("limit", 3)
		batch := append(append([]string{}, keys...), make([]string, 998)...)
		for i := 3; i < len(batch); i++ {
			batch[i] = fmt.Sprintf("limit/missing%04d", i)
		}
		require.Error(t, deleteBatch(batch...), "1,001 keys in one DeleteObjects")
		out, err := client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("limit/")})
		require.NoError(t, err)
		assert.Len(t, out.Contents, 3, "the refused batch deleted nothing")
		require.NoError(t, deleteBatch(batch[:1000]...), "1,000 keys in one DeleteObjects")
	})

	t.Run("ListPagesStopAt1000", func(t *testing.T) {
		putMany(t, srv, bucket, "many/", 1001)
		out, err := client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("many/"), MaxKeys: aws.Int32(5000)})
		require.NoError(t, err)
		assert.Len(t, out.Contents, 1000, "MaxKeys 5,000 is capped at 1,000")
		assert.True(t, aws.ToBool(out.IsTruncated))
		out, err = client.ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String("many/"), StartAfter: out.Contents[999].Key})
		require.NoError(t, err)
		require.Len(t, out.Contents, 1)
		keys := []string{aws.ToString(out.Contents[0].Key)}
		for i := range 1000 {
			keys = append(keys, fmt.Sprintf("many/%04d", i))
		}
		require.NoError(t, deleteBatch(keys[1:]...))
		require.NoError(t, deleteBatch(keys[0], "many"))
	})

	// A directory's entry outlives its last key (for minutes, until the
	// filer's empty-folder cleaner runs) unless the key of its name ("p" or
	// "p/") is deleted after the last key under it; deleting that key while
	// keys remain under it does not remove the directory, not even once they
	// are gone.
	t.Run("DirectoryEntry", func(t *testing.T) {
		keys := children("left", 3)
		require.NoError(t, deleteBatch(keys...))
		_, dirs := top()
		assert.Contains(t, dirs, "left/", "the emptied directory is still listed")

		keys = children("first", 3)
		require.NoError(t, deleteBatch(append([]string{"first"}, keys...)...))
		_, dirs = top()
		assert.Contains(t, dirs, "first/", "its name deleted before its keys, in the same batch")

		keys = children("last", 3)
		require.NoError(t, deleteBatch(append(keys, "last")...))
		_, dirs = top()
		assert.NotContains(t, dirs, "last/", "its name deleted after its keys, in the same batch")

		keys = children("slash", 3)
		require.NoError(t, deleteBatch(append(keys, "slash/")...))
		_, dirs = top()
		assert.NotContains(t, dirs, "slash/", `the marker key "slash/" after its keys does as well`)
	})
}

// TestDeleteEmptiedDirectoryOnSeaweedFS: a non-recursive Delete of a
// directory whose last file was deleted removes it from listings at once
// (SeaweedFS would list it for minutes), at four requests, and one of a
// directory that holds a file fails with vfs.ErrDirNotEmpty and leaves the
// file byte for byte.
func TestDeleteEmptiedDirectoryOnSeaweedFS(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	dir := vfs.MustPath("/d")
	for _, name := range []string{"x", "y"} {
		require.NoError(t, vfs.WriteFile(ctx, fsys, dir.Join(name), []byte(name), vfs.NoOverwrite))
	}
	require.NoError(t, fsys.Delete(ctx, dir.Join("x"), false))
	require.ErrorIs(t, fsys.Delete(ctx, dir, false), vfs.ErrDirNotEmpty)
	got, err := vfs.ReadFile(ctx, fsys, dir.Join("y"))
	require.NoError(t, err)
	assert.Equal(t, []byte("y"), got)

	require.NoError(t, fsys.Delete(ctx, dir.Join("y"), false))
	c.Reset()
	require.NoError(t, fsys.Delete(ctx, dir, false))
	assert.Equal(t, map[string]int{s3test.OpHeadObject: 1, s3test.OpListObjectsV2: 2, s3test.OpDeleteObjects: 1}, c.Counts(),
		"a HEAD, a listing, the delete of the directory's name and a listing again")
	entries, err := fsys.List(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	assert.Empty(t, entries, "the emptied directory is gone")
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/missing"), false), "a missing path")
}
