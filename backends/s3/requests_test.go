package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob/s3blob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// TestRequestCounts proves, request by request, what each operation costs.
func TestRequestCounts(t *testing.T) {
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			srv := s.start(t)
			t.Run("Mkdirs", func(t *testing.T) { testMkdirsCount(t, srv) })
			t.Run("SmallCreate", func(t *testing.T) { testSmallCreateCount(t, srv) })
			t.Run("OpenSeek", func(t *testing.T) { testOpenSeekCount(t, srv) })
			t.Run("StatAndList", func(t *testing.T) { testStatListCount(t, srv) })
			t.Run("RangedReadAt", func(t *testing.T) { testRangedReadAt(t, srv) })
			t.Run("DeletePrefix", func(t *testing.T) { testDeletePrefixCount(t, srv) })
			t.Run("DeleteTree", func(t *testing.T) { testDeleteTreeCount(t, srv, false) })
			t.Run("DeleteTreeFlat", func(t *testing.T) { testDeleteTreeCount(t, srv, true) })
			t.Run("RenameDirectory", func(t *testing.T) { testRenameDirectoryCount(t, srv) })
			t.Run("MoveTree", func(t *testing.T) { testMoveTreeCount(t, srv) })
		})
	}
}

func testMkdirsCount(t *testing.T, srv *s3test.Server) {
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	require.NoError(t, fsys.Mkdirs(t.Context(), vfs.MustPath("/a/b/c/d")))
	assert.Zero(t, c.Total(), "Mkdirs sends no request: %v", c.Counts())
}

func testSmallCreateCount(t *testing.T, srv *s3test.Server) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/dir/small"), []byte("hello"), vfs.Overwrite))
	assert.Equal(t, map[string]int{s3test.OpPutObject: 1}, c.Counts(), "a small Overwrite create is one PUT, no HEAD or LIST")

	c.Reset()
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/dir/new"), []byte("hello"), vfs.NoOverwrite))
	assert.Equal(t, map[string]int{s3test.OpPutObject: 1}, c.Counts(), "a NoOverwrite create is one PUT")
	assert.Equal(t, 1, c.Conditional(s3test.OpPutObject), "the PUT carries If-None-Match: *")

	c.Reset()
	err := vfs.WriteFile(ctx, fsys, vfs.MustPath("/dir/new"), []byte("again"), vfs.NoOverwrite)
	require.ErrorIs(t, err, fs.ErrExist)
	assert.Equal(t, map[string]int{s3test.OpPutObject: 1, s3test.OpHeadObject: 1}, c.Counts(),
		"a refused NoOverwrite create is one conditional PUT, and one HEAD that checks the object there is not this write's own (whose answer may have been lost)")

	// With Strict, Close first lists one key under "p/" to refuse a directory.
	c2 := s3test.NewCounter(nil)
	so := optionsFor(srv, c2)
	so.Strict = true
	strict, bucket := newFS(t, srv, so)
	require.NoError(t, vfs.WriteFile(ctx, strict, vfs.MustPath("/x"), []byte("hello"), vfs.NoOverwrite))
	assert.Equal(t, map[string]int{s3test.OpPutObject: 1, s3test.OpListObjectsV2: 1}, c2.Counts())
	require.NoError(t, vfs.WriteFile(ctx, strict, vfs.MustPath("/d/x"), []byte("x"), vfs.NoOverwrite))
	err = vfs.WriteFile(ctx, strict, vfs.MustPath("/d"), []byte("over a directory"), vfs.Overwrite)
	require.ErrorIs(t, err, vfs.ErrIsDir, "with Strict, creating over a directory fails")
	_, err = srv.Client(nil).HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("d")})
	require.Error(t, err, "nothing was published at the directory's key")
}

func testOpenSeekCount(t *testing.T, srv *s3test.Server) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/f"), data, vfs.Overwrite))

	c.Reset()
	in, err := fsys.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	_, err = in.Seek(1000, io.SeekStart)
	require.NoError(t, err)
	_, err = in.Seek(-10, io.SeekCurrent)
	require.NoError(t, err)
	assert.Zero(t, c.Total(), "Open + Seek send nothing: %v", c.Counts())
	buf := make([]byte, 16)
	_, err = io.ReadFull(in, buf)
	require.NoError(t, err)
	assert.Equal(t, data[990:1006], buf)
	assert.Equal(t, map[string]int{s3test.OpGetObject: 1}, c.Counts(), "the first Read is one GET from the offset")
	require.NoError(t, in.Close())

	c2 := s3test.NewCounter(nil)
	so := optionsFor(srv, c2)
	so.Strict = true
	strict, bucket := newFS(t, srv, so)
	_, err = srv.Client(nil).PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("f"), Body: bytes.NewReader(data)})
	require.NoError(t, err)
	in, err = strict.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	_, err = in.Seek(-5, io.SeekEnd)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{s3test.OpHeadObject: 1}, c2.Counts(), "with Strict, Open is one HEAD and Seek (even from the end) is free")
	require.NoError(t, in.Close())
}

func testStatListCount(t *testing.T, srv *s3test.Server) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/d/f"), []byte("x"), vfs.Overwrite))
	c.Reset()
	st, err := fsys.Stat(ctx, vfs.MustPath("/d/f"))
	require.NoError(t, err)
	assert.False(t, st.IsDir)
	assert.Equal(t, map[string]int{s3test.OpHeadObject: 1}, c.Counts(), "Stat of a file is one HEAD")
	c.Reset()
	st, err = fsys.Stat(ctx, vfs.MustPath("/d"))
	require.NoError(t, err)
	assert.True(t, st.IsDir)
	assert.Equal(t, map[string]int{s3test.OpHeadObject: 1, s3test.OpListObjectsV2: 1}, c.Counts(), "Stat of a directory is a HEAD and a one-key listing")
	c.Reset()
	entries, err := fsys.List(ctx, vfs.MustPath("/d"))
	require.NoError(t, err)
	assert.Len(t, entries, 1)
	assert.Equal(t, map[string]int{s3test.OpListObjectsV2: 1}, c.Counts(), "List of a small directory is one listing")
}

// testRangedReadAt checks that a 1 MiB ReadAt in a 64 MiB object moves at most
// 1.1 MiB, and that the 64 MiB upload was multipart.
func testRangedReadAt(t *testing.T, srv *s3test.Server) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, _ := newFS(t, srv, optionsFor(srv, c))
	const size = 64 << 20
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>12)
	}
	p := vfs.MustPath("/big")
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, data, vfs.NoOverwrite))
	assert.Equal(t, 1, c.Count(s3test.OpPutObject), "a 64 MiB file is not one PUT: the one PUT is the upload's marker")
	assert.Equal(t, 1, c.Count(s3test.OpDeleteObject), "the marker is deleted once the upload completed")
	assert.Equal(t, 1, c.Count(s3test.OpCreateMultipartUpload))
	assert.Equal(t, 8, c.Count(s3test.OpUploadPart), "64 MiB in 8 MiB parts")
	assert.Equal(t, 1, c.Count(s3test.OpCompleteMultipartUpload))

	in, err := fsys.Open(ctx, p)
	require.NoError(t, err)
	defer in.Close()
	c.Reset()
	buf := make([]byte, 1<<20)
	off := int64(37<<20 + 12345)
	n, err := in.ReadAt(buf, off)
	require.NoError(t, err)
	require.Equal(t, len(buf), n)
	assert.Equal(t, data[off:off+int64(n)], buf)
	assert.Equal(t, map[string]int{s3test.OpGetObject: 1}, c.Counts())
	assert.LessOrEqual(t, c.BytesReceived(), int64(1<<20+1<<20/10), "bytes received for a 1 MiB ReadAt")
}

// testDeletePrefixCount deletes a prefix of 2,500 keys with at most 3 delete
// requests plus the listing pages.
func testDeletePrefixCount(t *testing.T, srv *s3test.Server) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, bucket := newFS(t, srv, optionsFor(srv, c))
	const n = 2500
	putMany(t, srv, bucket, "tree/", n)
	_, err := srv.Client(nil).PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("treehouse"), Body: bytes.NewReader([]byte("keep"))})
	require.NoError(t, err)

	c.Reset()
	err = fsys.Delete(ctx, vfs.MustPath("/tree"), false)
	require.ErrorIs(t, err, vfs.ErrDirNotEmpty)
	assert.Zero(t, c.Count(s3test.OpDeleteObjects)+c.Count(s3test.OpDeleteObject), "a refused delete deletes nothing")

	c.Reset()
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/tree"), true))
	assert.Equal(t, map[string]int{s3test.OpListObjectsV2: 3, s3test.OpDeleteObjects: 3}, c.Counts(),
		"%d keys: 3 listing pages (the sibling on the last one) and 3 batched deletes", n)

	out, err := srv.Client(nil).ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	require.NoError(t, err)
	require.Len(t, out.Contents, 1)
	assert.Equal(t, "treehouse", aws.ToString(out.Contents[0].Key), "the sibling sharing the name prefix survives")
}

// testDeleteTreeCount checks that a recursive delete of N keys costs ⌈N/1,000⌉
// listings and as many batch deletes as its keys need and nothing else, and
// that siblings sharing the name prefix survive at a bounded cost. On the
// s3 backend (flat false) the key of the directory's own name is always
// deleted last, which removes SeaweedFS's directory entry (its listings would
// show the emptied directory for minutes otherwise); with flat (blobfs without
// DirectoryEntries, as on AWS) the listing's word is trusted, so it is deleted
// only when the listing shows it.
func testDeleteTreeCount(t *testing.T, srv *s3test.Server, flat bool) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	var fsys vfs.FileSystem
	fsys, bucket := newFS(t, srv, optionsFor(srv, c))
	if flat {
		fsys = flatFS(t, srv, bucket, c)
	}
	client := srv.Client(nil)
	put := func(key string) {
		_, err := client.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte(key))})
		require.NoError(t, err)
	}
	keys := func(prefix string) []string {
		var all []string
		pages := awss3.NewListObjectsV2Paginator(client, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			require.NoError(t, err)
			for _, o := range page.Contents {
				all = append(all, aws.ToString(o.Key))
			}
		}
		return all
	}

	// 2,000 keys, no object "a": 2 listings and 2 deletes, and a third for
	// the directory entry "a" unless flat. gofakes3 reports a full last page
	// as truncated, which costs it one more (empty) listing.
	putMany(t, srv, bucket, "a/", 2000)
	c.Reset()
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/a"), true))
	lists, deletes := 2, 3
	if srv.Name == "gofakes3" {
		lists = 3
	}
	if flat {
		deletes = 2
	}
	assert.Equal(t, map[string]int{s3test.OpListObjectsV2: lists, s3test.OpDeleteObjects: deletes}, c.Counts())
	assert.Empty(t, keys("a"))
	if !flat {
		top, err := fsys.List(ctx, vfs.MustPath("/"))
		require.NoError(t, err)
		assert.Empty(t, top, "the emptied directory is gone at once")
	}

	// Nothing there: one listing, and no delete when flat.
	c.Reset()
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/a"), true))
	want := map[string]int{s3test.OpListObjectsV2: 1, s3test.OpDeleteObjects: 1}
	if flat {
		want = map[string]int{s3test.OpListObjectsV2: 1}
	}
	assert.Equal(t, want, c.Counts())

	// Only the object "b" (SeaweedFS cannot hold both "b" and "b/x"; AWS can,
	// and the listing then shows both): one listing, one delete.
	put("b")
	c.Reset()
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/b"), true))
	assert.Equal(t, map[string]int{s3test.OpListObjectsV2: 1, s3test.OpDeleteObjects: 1}, c.Counts())
	assert.Empty(t, keys("b"))

	// Siblings before "d/" in key order ("d-x", '-' < '/') fill more than a
	// page: the delete switches to listing "d/" after the first page, and
	// every sibling survives byte for byte.
	putMany(t, srv, bucket, "d-", 1100)
	putMany(t, srv, bucket, "d/", 1500)
	put("d0")
	c.Reset()
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/d"), true))
	assert.Empty(t, keys("d/"))
	assert.LessOrEqual(t, c.Count(s3test.OpListObjectsV2), 3, "one page of siblings, then the 2 pages of d/: %v", c.Counts())
	assert.LessOrEqual(t, c.Count(s3test.OpDeleteObjects), 2, "%v", c.Counts())
	left := keys("d")
	require.Len(t, left, 1101, "every sibling survives")
	for _, k := range left {
		require.True(t, k == "d0" || strings.HasPrefix(k, "d-"), "unexpected survivor %q", k)
	}
	out, err := client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String("d0")})
	require.NoError(t, err)
	got, err := io.ReadAll(out.Body)
	require.NoError(t, err)
	require.NoError(t, out.Body.Close())
	assert.Equal(t, "d0", string(got))
}

// flatFS is blobfs over the bucket through s3.Store without DirectoryEntries:
// a recursive delete trusts its listing, as the s3 backend does on AWS.
func flatFS(t *testing.T, srv *s3test.Server, bucket string, c *s3test.Counter) vfs.FileSystem {
	client := srv.Client(c.HTTPClient())
	b, err := s3blob.OpenBucket(t.Context(), client, bucket, nil)
	require.NoError(t, err)
	store, err := s3.Store(b, bucket)
	require.NoError(t, err)
	fsys, err := blobfs.New(b, blobfs.Options{Scheme: "s3", Authority: bucket, Store: store})
	require.NoError(t, err)
	t.Cleanup(func() { _ = fsys.Close() })
	return fsys
}

// putMany writes n small objects prefix0000... with the plain SDK, a few at a time.
func putMany(t *testing.T, srv *s3test.Server, bucket, prefix string, n int) {
	t.Helper()
	client := srv.Client(nil)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			_, err := client.PutObject(context.Background(), &awss3.PutObjectInput{
				Bucket: aws.String(bucket), Key: aws.String(fmt.Sprintf("%s%04d", prefix, i)), Body: bytes.NewReader([]byte{byte(i)}),
			})
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// testRenameDirectoryCount renames a directory of 1,100 keys (two listing pages):
// per key one HEAD for its version, one server-side copy and one delete
// conditional on that version (preceded by a HEAD that compares it where the
// server ignores If-Match on deletes, as gofakes3 does), and every key moved.
func testRenameDirectoryCount(t *testing.T, srv *s3test.Server) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, bucket := newFS(t, srv, optionsFor(srv, c))
	const n = 1100
	putMany(t, srv, bucket, "from/", n)
	c.Reset()
	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/from"), vfs.MustPath("/to/here")))
	assert.Equal(t, n, c.Count(s3test.OpCopyObject), "one server-side copy per key")
	// One per key (the version it copies and deletes), one each for src and
	// dst (is it a file?), one for dst's Hadoop marker (is it an empty
	// directory?) and one for src's (to move it along).
	heads := n + 4
	if srv.Name == "gofakes3" {
		heads += n // one per key before its delete: the server ignores If-Match on DeleteObject
	}
	assert.Equal(t, heads, c.Count(s3test.OpHeadObject), "HEADs")
	assert.Equal(t, n+1, c.Count(s3test.OpDeleteObject), "one delete per key, conditional on the version copied, and the probe of the condition")
	assert.Equal(t, n+1, c.IfMatch(s3test.OpDeleteObject), "each delete carries If-Match")
	assert.Zero(t, c.Count(s3test.OpGetObject)+c.Count(s3test.OpPutObject), "no bytes through the client")
	entries, err := fsys.List(ctx, vfs.MustPath("/to/here"))
	require.NoError(t, err)
	assert.Len(t, entries, n)
	ok, err := vfs.Exists(ctx, fsys, vfs.MustPath("/from"))
	require.NoError(t, err)
	assert.False(t, ok)
}

// testMoveTreeCount moves a tree of files within a bucket (vfs.MoveTree
// streams each file, so that it knows the version it read) and counts the
// requests. On a server that enforces If-Match on DeleteObject (SeaweedFS),
// the source's version is the one its GET answered with and the delete is
// conditional on it alone: no HEAD of a source file, before the read or
// before the delete; one probe DeleteObject per file system finds out that
// the server enforces it. On one that ignores If-Match (gofakes3), a HEAD
// that compares the version precedes each delete. The copy takes the version
// it wrote from the PUT's answer (no HEAD); the directories cost 7 HEADs.
func testMoveTreeCount(t *testing.T, srv *s3test.Server) {
	ctx := t.Context()
	c := s3test.NewCounter(nil)
	fsys, bucket := newFS(t, srv, optionsFor(srv, c))
	const files = 6
	putMany(t, srv, bucket, "src/", files)
	c.Reset()
	res, err := vfs.MoveTree(ctx, fsys, vfs.MustPath("/dst"), fsys, vfs.MustPath("/src"), vfs.CopyOptions{})
	require.NoError(t, err)
	require.Len(t, res.Files, files)
	counts := c.Counts()
	t.Logf("MoveTree of %d files: %v", files, counts)
	assert.Equal(t, files, counts[s3test.OpGetObject], "one GET per file")
	assert.Equal(t, files, counts[s3test.OpPutObject], "one PUT per file")
	assert.Equal(t, files+1, counts[s3test.OpDeleteObject], "one conditional delete per file, and the probe")
	assert.Equal(t, files+1, c.IfMatch(s3test.OpDeleteObject), "every delete names a version")
	heads := 7 // the directories: a missing one's Stat HEADs its Hadoop marker too
	if srv.Name == "gofakes3" {
		heads += files // a HEAD before each delete
	}
	assert.Equal(t, heads, counts[s3test.OpHeadObject], "HEADs")
	for i := range files {
		_, err := srv.Client(nil).HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(fmt.Sprintf("src/%04d", i))})
		require.Error(t, err, "src/%04d is gone", i)
	}
}
