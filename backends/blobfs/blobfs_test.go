package blobfs_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/buckettest"
	"github.com/vfskit/vfskit/backends/internal/rwtest"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/vfs"
)

// memScheme is served by a gocloud mem:// bucket through RegisterURL.
const memScheme = "blobmem"

func init() {
	if err := blobfs.RegisterURL(memScheme, "mem://", blobfs.Options{}); err != nil {
		panic(err)
	}
}

func TestConformanceMemBucket(t *testing.T) {
	fsys, err := vfs.Get(context.Background(), memScheme+"://conformance/")
	require.NoError(t, err)
	conformance.Run(t, conformance.Harness{
		Registered: true,
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := vfs.MustPath(memScheme+"://conformance/").Join("cases", t.Name())
			t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
			return fsys, dir
		},
	})
}

// TestConformanceMemBucketStrict runs the suite with Options.Strict: Open fails
// at once and Create refuses a directory's path, so the suite's strict branches
// run on blobfs too.
func TestConformanceMemBucketStrict(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{Strict: true})
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			return fsys, vfs.MustPath("/cases").Join(t.Name())
		},
	})
}

// newMem returns a FileSystem over a fresh in-memory bucket.
func newMem(t *testing.T, opts blobfs.Options) (*blobfs.FileSystem, *blob.Bucket) {
	t.Helper()
	b := memblob.OpenBucket(nil)
	if opts.Scheme == "" {
		opts.Scheme, opts.Authority = "mem", "test"
	}
	fsys, err := blobfs.New(b, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = fsys.Close() })
	return fsys, b
}

func write(t *testing.T, fsys vfs.FileSystem, p string, data string) {
	t.Helper()
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, vfs.MustPath(p), []byte(data), vfs.Overwrite))
}

func TestKeysAreThePathWithoutLeadingSlash(t *testing.T) {
	fsys, b := newMem(t, blobfs.Options{})
	write(t, fsys, "/dir/sub/file.txt", "x")
	write(t, fsys, "mem://test/top", "y")
	var keys []string
	it := b.List(nil)
	for {
		o, err := it.Next(t.Context())
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		keys = append(keys, o.Key)
	}
	assert.Equal(t, []string{"dir/sub/file.txt", "top"}, keys)
}

func TestNewValidatesOptions(t *testing.T) {
	b := memblob.OpenBucket(nil)
	defer b.Close()
	_, err := blobfs.New(nil, blobfs.Options{Scheme: "mem"})
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, err = blobfs.New(b, blobfs.Options{})
	assert.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "Scheme")
	_, err = blobfs.New(b, blobfs.Options{Scheme: "mem", PartSize: -1})
	assert.ErrorIs(t, err, fs.ErrInvalid)
	_, err = blobfs.New(b, blobfs.Options{Scheme: "mem", Authority: "a/b"})
	assert.Error(t, err)
}

func TestImplicitDirectories(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{})
	ctx := t.Context()
	require.NoError(t, fsys.Mkdirs(ctx, vfs.MustPath("/empty")))
	_, err := fsys.Stat(ctx, vfs.MustPath("/empty"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "an empty directory does not exist on an object store")
	write(t, fsys, "/d/a/b", "1")
	st, err := fsys.Stat(ctx, vfs.MustPath("/d/a"))
	require.NoError(t, err)
	assert.True(t, st.IsDir)
	root, err := fsys.Stat(ctx, vfs.MustPath("/"))
	require.NoError(t, err)
	assert.True(t, root.IsDir)
}

func TestDirectoryMarkersAndUnnamableKeys(t *testing.T) {
	fsys, b := newMem(t, blobfs.Options{})
	ctx := t.Context()
	for _, k := range []string{"m/", "n//x", "n/./y", "n/ok"} {
		require.NoError(t, b.WriteAll(ctx, k, []byte("z"), nil))
	}
	st, err := fsys.Stat(ctx, vfs.MustPath("/m"))
	require.NoError(t, err, "a marker object makes its directory exist")
	assert.True(t, st.IsDir)
	entries, err := fsys.List(ctx, vfs.MustPath("/m"))
	require.NoError(t, err)
	assert.Empty(t, entries, "the marker itself is not an entry")
	entries, err = fsys.List(ctx, vfs.MustPath("/n"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"ok"}, names)
	// A non-recursive delete of a directory holding only its marker removes it.
	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/m"), false))
	ok, err := b.Exists(ctx, "m/")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestListPagesWithSmallPageSize(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{ListPageSize: 3})
	for i := range 10 {
		write(t, fsys, "/p/f"+string(rune('a'+i)), "x")
	}
	write(t, fsys, "/p/sub/x", "x")
	entries, err := fsys.List(t.Context(), vfs.MustPath("/p"))
	require.NoError(t, err)
	require.Len(t, entries, 11)
	assert.Equal(t, "fa", entries[0].Name())
	assert.Equal(t, "sub", entries[10].Name())
	assert.True(t, entries[10].IsDir)
}

func TestNoOverwriteIsConditional(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{})
	ctx := t.Context()
	p := vfs.MustPath("/f")
	write(t, fsys, "/f", "old")
	out, err := fsys.Create(ctx, p, vfs.NoOverwrite)
	require.NoError(t, err, "the check happens at Close, with the write")
	_, err = out.Write([]byte("new"))
	require.NoError(t, err)
	err = out.Close()
	require.ErrorIs(t, err, fs.ErrExist)
	got, err := vfs.ReadFile(ctx, fsys, p)
	require.NoError(t, err)
	assert.Equal(t, "old", string(got))
}

func TestNothingPublishedOnAbortCancelOrFailedWrite(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{})
	ctx := t.Context()

	out, err := fsys.Create(ctx, vfs.MustPath("/aborted"), vfs.Overwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("data"))
	require.NoError(t, err)
	require.NoError(t, out.(vfs.Aborter).Abort())
	assert.Error(t, out.Close())

	cctx, cancel := context.WithCancel(ctx)
	out, err = fsys.Create(cctx, vfs.MustPath("/cancelled"), vfs.Overwrite)
	require.NoError(t, err)
	_, err = out.Write([]byte("data"))
	require.NoError(t, err)
	cancel()
	assert.ErrorIs(t, out.Close(), context.Canceled)

	for _, p := range []string{"/aborted", "/cancelled"} {
		ok, err := vfs.Exists(ctx, fsys, vfs.MustPath(p))
		require.NoError(t, err)
		assert.False(t, ok, "%s must not be published", p)
	}
}

func TestOpenIsLazyByDefault(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{})
	ctx := t.Context()
	in, err := fsys.Open(ctx, vfs.MustPath("/missing"))
	require.NoError(t, err, "Open sends nothing by default, so it cannot fail yet")
	_, err = in.Read(make([]byte, 1))
	require.ErrorIs(t, err, fs.ErrNotExist)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Path, "/missing")
	require.NoError(t, in.Close())

	write(t, fsys, "/dir/x", "x")
	in, err = fsys.Open(ctx, vfs.MustPath("/dir"))
	require.NoError(t, err)
	_, err = in.ReadAt(make([]byte, 1), 0)
	assert.ErrorIs(t, err, vfs.ErrIsDir)
	_, err = in.Seek(0, io.SeekEnd)
	assert.ErrorIs(t, err, vfs.ErrIsDir)
}

func TestCreateNextToDirectoryByDefault(t *testing.T) {
	fsys, b := newMem(t, blobfs.Options{})
	write(t, fsys, "/d/x", "x")
	write(t, fsys, "/d", "file next to a prefix")
	ok, err := b.Exists(t.Context(), "d")
	require.NoError(t, err)
	assert.True(t, ok)
}

func TestStrictChecksAtOpenAndClose(t *testing.T) {
	fsys, b := newMem(t, blobfs.Options{Strict: true})
	ctx := t.Context()
	_, err := fsys.Open(ctx, vfs.MustPath("/missing"))
	require.ErrorIs(t, err, fs.ErrNotExist, "a strict Open HEADs the object")
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Path, "/missing")

	write(t, fsys, "/d/x", "x")
	_, err = fsys.Open(ctx, vfs.MustPath("/d"))
	require.ErrorIs(t, err, vfs.ErrIsDir)

	for _, mode := range []vfs.WriteMode{vfs.NoOverwrite, vfs.Overwrite} {
		out, err := fsys.Create(ctx, vfs.MustPath("/d"), mode)
		require.NoError(t, err, "the directory check happens at Close")
		_, err = out.Write([]byte("must not be published"))
		require.NoError(t, err)
		require.ErrorIs(t, out.Close(), vfs.ErrIsDir, "a strict Close refuses a directory at the path (%s)", mode)
	}
	ok, err := b.Exists(ctx, "d")
	require.NoError(t, err)
	assert.False(t, ok, "nothing was published at the directory's key")
}

func TestReadSeekReadAt(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{})
	ctx := t.Context()
	data := bytes.Repeat([]byte("0123456789"), 1000)
	require.NoError(t, vfs.WriteFile(ctx, fsys, vfs.MustPath("/f"), data, vfs.NoOverwrite))
	in, err := fsys.Open(ctx, vfs.MustPath("/f"))
	require.NoError(t, err)
	defer in.Close()
	pos, err := in.Seek(-5, io.SeekEnd)
	require.NoError(t, err)
	assert.Equal(t, int64(len(data)-5), pos)
	rest, err := io.ReadAll(in)
	require.NoError(t, err)
	assert.Equal(t, "56789", string(rest))
	buf := make([]byte, 4)
	n, err := in.ReadAt(buf, 12)
	require.NoError(t, err)
	assert.Equal(t, "2345", string(buf[:n]))
	n, err = in.ReadAt(buf, int64(len(data)-2))
	assert.ErrorIs(t, err, io.EOF)
	assert.Equal(t, "89", string(buf[:n]))
	_, err = in.Seek(-1, io.SeekStart)
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

func TestDeleteRecursiveAndNonEmpty(t *testing.T) {
	fsys, b := newMem(t, blobfs.Options{ListPageSize: 7})
	ctx := t.Context()
	for i := range 25 {
		write(t, fsys, "/tree/"+strings.Repeat("x", i+1), "x")
	}
	write(t, fsys, "/tree/sub/deep", "x")
	write(t, fsys, "/treehouse", "sibling")
	err := fsys.Delete(ctx, vfs.MustPath("/tree"), false)
	require.ErrorIs(t, err, vfs.ErrDirNotEmpty)
	entries, err := fsys.List(ctx, vfs.MustPath("/tree"))
	require.NoError(t, err)
	assert.Len(t, entries, 26, "a refused delete deletes nothing")

	require.NoError(t, fsys.Delete(ctx, vfs.MustPath("/tree"), true))
	ok, err := vfs.Exists(ctx, fsys, vfs.MustPath("/tree"))
	require.NoError(t, err)
	assert.False(t, ok)
	ok, err = b.Exists(ctx, "treehouse")
	require.NoError(t, err)
	assert.True(t, ok, "a sibling sharing the name prefix survives")

	err = fsys.Delete(ctx, vfs.MustPath("/"), true)
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

func TestRenameAndCopy(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{})
	ctx := t.Context()
	write(t, fsys, "/src/a", "A")
	write(t, fsys, "/src/sub/b", "B")
	write(t, fsys, "/taken", "T")
	require.ErrorIs(t, fsys.Rename(ctx, vfs.MustPath("/src"), vfs.MustPath("/taken")), fs.ErrExist)
	require.ErrorIs(t, fsys.Rename(ctx, vfs.MustPath("/nope"), vfs.MustPath("/x")), fs.ErrNotExist)
	require.ErrorIs(t, fsys.Rename(ctx, vfs.MustPath("/src"), vfs.MustPath("/src/in")), fs.ErrInvalid)
	require.ErrorIs(t, fsys.Rename(ctx, vfs.MustPath("/taken"), vfs.MustPath("/taken")), fs.ErrExist, "renaming onto itself, as on aferofs")
	require.ErrorIs(t, fsys.Rename(ctx, vfs.MustPath("/nope"), vfs.MustPath("/nope")), fs.ErrNotExist)
	require.NoError(t, fsys.Rename(ctx, vfs.MustPath("/src"), vfs.MustPath("/dst")))
	got, err := vfs.ReadFile(ctx, fsys, vfs.MustPath("/dst/sub/b"))
	require.NoError(t, err)
	assert.Equal(t, "B", string(got))
	ok, err := vfs.Exists(ctx, fsys, vfs.MustPath("/src"))
	require.NoError(t, err)
	assert.False(t, ok)

	n, err := vfs.Copy(ctx, fsys, vfs.MustPath("/copy"), fsys, vfs.MustPath("/dst/a"))
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	_, err = fsys.CopyFile(ctx, vfs.MustPath("/copy"), vfs.MustPath("/dst/a"), vfs.NoOverwrite)
	assert.ErrorIs(t, err, fs.ErrExist)
	_, err = fsys.CopyFile(ctx, vfs.MustPath("/c2"), vfs.MustPath("/dst"), vfs.NoOverwrite)
	assert.ErrorIs(t, err, vfs.ErrIsDir)
	_, err = fsys.CopyFile(ctx, vfs.MustPath("/c2"), vfs.MustPath("/none"), vfs.NoOverwrite)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestMaxKeyLength(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{MaxKeyLength: 10})
	_, err := fsys.Create(t.Context(), vfs.MustPath("/"+strings.Repeat("k", 11)), vfs.Overwrite)
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Contains(t, err.Error(), "11 bytes")
	assert.Contains(t, err.Error(), "at most 10")
}

func TestRegisterURLServesAnySchemeFromMem(t *testing.T) {
	require.NoError(t, blobfs.RegisterURL("scratchtest", "mem://", blobfs.Options{}))
	err := blobfs.RegisterURL("scratchtest", "mem://", blobfs.Options{})
	require.ErrorIs(t, err, fs.ErrExist, "a duplicate scheme is refused")
	ctx := t.Context()
	p := vfs.MustPath("scratchtest://one/a/b")
	fsys, err := p.FileSystem(ctx)
	require.NoError(t, err)
	assert.Equal(t, "scratchtest://one/", fsys.URI().String())
	assert.Equal(t, vfs.KindObjectStore, fsys.Kind())
	assert.False(t, fsys.IsDistributed(), "a mem:// bucket is not distributed")
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte("hello"), vfs.NoOverwrite))
	got, err := vfs.ReadFile(ctx, fsys, p)
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))
	other, err := vfs.Get(ctx, "scratchtest://two/")
	require.NoError(t, err)
	ok, err := vfs.Exists(ctx, other, vfs.MustPath("scratchtest://two/a/b"))
	require.NoError(t, err)
	assert.False(t, ok, "each authority gets its own bucket")

	_, err = blobfs.URLFactory("nosuchscheme://{authority}", blobfs.Options{})(ctx, vfs.MustPath("xyz://b/").URI())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nosuchscheme://b")
}

func TestURLFactoryErrorsHideTheUserInfo(t *testing.T) {
	ctx := t.Context()
	u, err := url.Parse("xyz://key:s3cr%2Ft@b/")
	require.NoError(t, err)
	for _, bucketURL := range []string{
		"nosuchscheme://{authority}", // the driver's error repeats the bucket URL
		"mem://{authority}%zz",       // so does url.Parse's
	} {
		_, err := blobfs.URLFactory(bucketURL, blobfs.Options{})(ctx, u)
		require.Error(t, err, bucketURL)
		assert.NotContains(t, err.Error(), "s3cr", bucketURL)
		assert.NotContains(t, err.Error(), "key:", bucketURL)
		assert.Contains(t, err.Error(), "xyz://xxxxx@b/", bucketURL)
	}
}

func TestMissingObjectErrorIsShort(t *testing.T) {
	ctx := context.Background()
	for _, strict := range []bool{false, true} {
		fsys, _ := newMem(t, blobfs.Options{Strict: strict})
		p := vfs.MustPath("mem://test/missing")
		_, err := vfs.ReadFile(ctx, fsys, p)
		require.ErrorIs(t, err, fs.ErrNotExist)
		assert.Regexp(t, `^\w+ mem://test/missing: file does not exist$`, err.Error(),
			"the answer is not buried under driver details (strict=%t)", strict)
	}
}

func TestReadFileAllocatesTheSizeOnce(t *testing.T) {
	fsys, _ := newMem(t, blobfs.Options{})
	p := vfs.MustPath("/big")
	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, p, want, vfs.Overwrite))
	got, err := fsys.ReadFile(t.Context(), p)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.LessOrEqual(t, cap(got), len(want)+1, "the buffer did not grow (and copy the file) at EOF")
}

// TestOddKeysAreNeverDeletedUnnamed: on a bucket holding keys no path names,
// listings show the others and a recursive delete refuses, deleting nothing.
func TestOddKeysAreNeverDeletedUnnamed(t *testing.T) {
	fsys, b := newMem(t, blobfs.Options{})
	buckettest.OddKeysInBucket(t, fsys, b, vfs.MustPath("mem://test/odd"))
}

func TestRecoverableTempsAreHiddenFromListings(t *testing.T) {
	fsys, b := newMem(t, blobfs.Options{})
	rwtest.RequireTempsHidden(t, fsys, vfs.MustPath("mem://test/d"), rwtest.LookAlike, blobfs.IsRecoverableTemp, func() []string {
		return bucketKeys(t, b, "d/")
	})
}

// bucketKeys returns the keys of b under prefix.
func bucketKeys(t *testing.T, b *blob.Bucket, prefix string) []string {
	t.Helper()
	var keys []string
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(t.Context())
		if err == io.EOF {
			return keys
		}
		require.NoError(t, err)
		keys = append(keys, o.Key)
	}
}
