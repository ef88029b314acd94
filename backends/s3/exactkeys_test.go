package s3_test

import (
	"bytes"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// rawKeys lists every key in bucket under prefix with the plain SDK.
func rawKeys(t *testing.T, client *awss3.Client, bucket, prefix string) []string {
	t.Helper()
	out, err := client.ListObjectsV2(t.Context(), &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	require.NoError(t, err)
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys
}

// TestForeignKeysRoundTrip writes keys with the plain AWS SDK that gocloud's
// driver would escape or unescape (escape-looking text, "../", '?', '%', '\',
// spaces): vfskit lists each as itself, and the listed name reaches the same
// object for Stat, Open and a recursive Delete, which leaves nothing behind.
// Keys vfskit writes arrive at S3 exactly as named.
func TestForeignKeysRoundTrip(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	ctx := t.Context()
	fsys, bucket := newFS(t, srv, optionsFor(srv, nil))
	client := srv.Client(nil)

	names := []string{"a__0x41__b", "__0x2f__", "x__0x5f___0x41__", "dots..", "q?keep", "100%", "sp ace ", " lead", "ünï", "d__0x41__"}
	want := map[string][]byte{}
	for i, n := range names {
		key := "esc/" + n
		if n == "d__0x41__" {
			key += "/inner" // a directory whose name looks escaped
		}
		data := bytes.Repeat([]byte{byte('a' + i)}, 10+i)
		want[n] = data
		_, err := client.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)})
		require.NoError(t, err, key)
	}

	dir := vfs.MustPath("s3://" + bucket + "/esc")
	entries, err := fsys.List(ctx, dir)
	require.NoError(t, err)
	var listed []string
	for _, e := range entries {
		listed = append(listed, e.Name())
		p := dir.Join(e.Name())
		assert.Equal(t, e.Path, p, "the listed path is the joined name")
		if e.IsDir {
			sub, err := fsys.List(ctx, p)
			require.NoError(t, err, "list %s", p)
			require.Len(t, sub, 1)
			p = sub[0].Path
		}
		st, err := fsys.Stat(ctx, p)
		require.NoError(t, err, "stat %s", p)
		assert.False(t, st.IsDir)
		in, err := fsys.Open(ctx, p)
		require.NoError(t, err)
		got, err := io.ReadAll(in)
		require.NoError(t, err, "read %s", p)
		require.NoError(t, in.Close())
		assert.Equal(t, want[e.Name()], got, "%s reads back byte for byte", p)
	}
	assert.ElementsMatch(t, names, listed, "every key lists as itself")

	// A key vfskit writes is the key S3 stores.
	for _, n := range []string{"__0x41__", "a../b", "q?x"} {
		require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("s3://"+bucket+"/w").Join(strings.Split(n, "/")...), []byte(n), vfs.NoOverwrite))
	}
	assert.ElementsMatch(t, []string{"w/__0x41__", "w/a../b", "w/q?x"}, rawKeys(t, client, bucket, "w/"))
	n, err := vfs.CopyWithMode(ctx, fsys, vfs.MustPath("/w/copy__0x41__"), fsys, vfs.MustPath("/w/__0x41__"), vfs.NoOverwrite)
	require.NoError(t, err)
	assert.EqualValues(t, len("__0x41__"), n)
	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/w/copy__0x41__"), vfs.MustPath("/w/moved__0x42__")))
	got, err := vfs.ReadFile(ctx, fsys, vfs.MustPath("/w/moved__0x42__"))
	require.NoError(t, err)
	assert.Equal(t, "__0x41__", string(got))

	// rm -r of the prefix deletes every key, escaped-looking or not, also keys
	// no path can name (empty segments, directory markers; SeaweedFS refuses "/./").
	for _, key := range []string{"esc//double", "esc/marker/"} {
		_, err := client.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(key)})
		require.NoError(t, err, key)
	}
	require.NoError(t, fsys.Delete(ctx, dir, true))
	assert.Empty(t, rawKeys(t, client, bucket, "esc/"), "nothing is left under the prefix")
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/w/__0x41__"), false))
	assert.ElementsMatch(t, []string{"w/a../b", "w/q?x", "w/moved__0x42__"}, rawKeys(t, client, bucket, "w/"))
}

// TestKeysS3CannotStore checks the write-time errors for names S3 cannot take:
// invalid UTF-8, control characters (S3 stores them but its XML listings cannot
// return them) and keys over 1,024 bytes, counted as sent.
func TestKeysS3CannotStore(t *testing.T) {
	srv := s3test.GoFakeS3(t)
	ctx := t.Context()
	fsys, _ := newFS(t, srv, optionsFor(srv, nil))
	_, err := fsys.Create(ctx, vfs.MustPath("/bad\xff"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "not valid UTF-8")
	_, err = fsys.Create(ctx, vfs.MustPath("/ctl\x01x"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "U+0001")
	long := strings.Repeat("é", s3.MaxKeyLength/2) // 1,024 bytes
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/"+long), []byte("x"), vfs.NoOverwrite))
	_, err = fsys.Create(ctx, vfs.MustPath("/"+long+"x"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "1025 bytes")
}

// TestOddKeysAreNeverDeletedUnnamed writes keys no path names ("src/./dot.txt",
// "src//empty.txt", "src/sub/..") with the plain SDK to SeaweedFS: listings
// show the others, each reaching its object, and a recursive delete refuses,
// deleting nothing.
func TestOddKeysAreNeverDeletedUnnamed(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	fsys, bucket := newFS(t, srv, optionsFor(srv, nil))
	client := srv.Client(nil)
	buckettest.OddKeys(t, fsys, vfs.MustPath("s3://"+bucket+"/odd"),
		func(key string, data []byte) error {
			_, err := client.PutObject(t.Context(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)})
			return err
		},
		func(prefix string) []string { return rawKeys(t, client, bucket, prefix) })
}

// TestAttributes: Content-Type from the extension, and attributes given on
// Create, as S3 holds them.
func TestAttributes(t *testing.T) {
	srv := s3test.SeaweedFS(t)
	fsys, bucket := newFS(t, srv, optionsFor(srv, nil))
	client := srv.Client(nil)
	buckettest.Attributes(t, fsys, vfs.MustPath("s3://"+bucket+"/attrs"), func(key string) vfs.Attributes {
		out, err := client.HeadObject(t.Context(), &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
		require.NoError(t, err)
		return vfs.Attributes{ContentType: aws.ToString(out.ContentType), ContentEncoding: aws.ToString(out.ContentEncoding),
			CacheControl: aws.ToString(out.CacheControl), Metadata: out.Metadata}
	})
}
