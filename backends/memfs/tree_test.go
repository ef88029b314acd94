package memfs

import (
	"bytes"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTreeContentsMatchModel writes a file with random appends, overwrites,
// writes past the end and truncations, and compares it byte for byte with a
// plain slice after each step, through ReadAt at random offsets.
func TestTreeContentsMatchModel(t *testing.T) {
	tr := newTree()
	f, err := tr.Create("/f")
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	var model []byte
	for step := range 400 {
		b := make([]byte, rng.IntN(3000))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		switch rng.IntN(6) {
		case 0, 1, 2: // append
			if _, err = f.Seek(0, io.SeekEnd); err == nil {
				_, err = f.Write(b)
			}
			model = append(model, b...)
		case 3: // write inside or past the end
			off := rng.IntN(len(model) + 2000)
			_, err = f.WriteAt(b, int64(off))
			if off > len(model) {
				model = append(model, make([]byte, off-len(model))...)
			}
			if end := off + len(b); end > len(model) {
				model = append(model, make([]byte, end-len(model))...)
			}
			copy(model[off:], b)
		case 4: // truncate shorter or longer
			size := rng.IntN(len(model) + 2000)
			err = f.Truncate(int64(size))
			if size < len(model) {
				model = model[:size]
			} else {
				model = append(model, make([]byte, size-len(model))...)
			}
		case 5: // write in the middle through the offset
			off := rng.IntN(len(model) + 1)
			b = b[:min(len(b), len(model)-off)]
			if _, err = f.Seek(int64(off), io.SeekStart); err == nil {
				_, err = f.Write(b)
			}
			copy(model[off:], b)
		}
		require.NoError(t, err, "step %d", step)
		fi, err := tr.Stat("/f")
		require.NoError(t, err)
		require.Equal(t, int64(len(model)), fi.Size(), "step %d", step)
		off := rng.IntN(len(model) + 1)
		got := make([]byte, rng.IntN(5000))
		n, err := f.ReadAt(got, int64(off))
		want := model[off:min(off+len(got), len(model))]
		require.Equal(t, want, got[:n], "step %d: ReadAt(%d bytes, %d)", step, len(got), off)
		if n < len(got) {
			require.ErrorIs(t, err, io.EOF)
		} else {
			require.NoError(t, err)
		}
	}
	all, err := afero.ReadFile(tr, "/f")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(model, all), "whole file")
}

func TestTreeRenameLikeRename2(t *testing.T) {
	tr := newTree()
	require.NoError(t, tr.MkdirAll("/a/b", 0o777))
	require.NoError(t, afero.WriteFile(tr, "/a/b/f", []byte("old"), 0o666))
	require.NoError(t, afero.WriteFile(tr, "/a/g", []byte("new"), 0o666))
	old, err := tr.Open("/a/b/f")
	require.NoError(t, err)

	before, err := tr.Stat("/a/g")
	require.NoError(t, err)
	require.Equal(t, "g", before.Name())
	require.NoError(t, tr.Rename("/a/g", "/a/b/f"), "a file replaces a file")
	after, err := tr.Stat("/a/b/f")
	require.NoError(t, err)
	assert.Equal(t, "f", after.Name(), "a status taken before the rename is not reused")
	assert.Equal(t, "g", before.Name(), "and the old one is unchanged")
	require.NoError(t, tr.Chmod("/a/b/f", 0o600))
	after, err = tr.Stat("/a/b/f")
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), after.Mode().Perm())
	got, err := afero.ReadFile(tr, "/a/b/f")
	require.NoError(t, err)
	assert.Equal(t, "new", string(got))
	kept, err := io.ReadAll(old)
	require.NoError(t, err)
	assert.Equal(t, "old", string(kept), "a handle keeps the replaced file")
	names, err := afero.ReadDir(tr, "/a")
	require.NoError(t, err)
	require.Len(t, names, 1)
	assert.Equal(t, "b", names[0].Name())

	assert.ErrorIs(t, tr.Rename("/a/b/f", "/a"), syscall.EISDIR)
	assert.ErrorIs(t, tr.Rename("/a", "/a/b/c"), syscall.EINVAL, "into itself")
	assert.ErrorIs(t, tr.Rename("/a/b/f", "/missing/f"), fs.ErrNotExist, "missing parent")
	assert.ErrorIs(t, tr.Rename("/nope", "/x"), fs.ErrNotExist)
	require.NoError(t, tr.Mkdir("/empty", 0o777))
	assert.ErrorIs(t, tr.Rename("/empty", "/a/b/f"), syscall.ENOTDIR)
	require.NoError(t, tr.Rename("/a", "/empty"), "a directory replaces an empty one")
	got, err = afero.ReadFile(tr, "/empty/b/f")
	require.NoError(t, err)
	assert.Equal(t, "new", string(got), "the whole tree moved")
	fi, err := tr.Stat("/empty/b")
	require.NoError(t, err)
	assert.Equal(t, "b", fi.Name())
	_, err = tr.Stat("/a")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestTreeErrors(t *testing.T) {
	tr := newTree()
	require.NoError(t, afero.WriteFile(tr, "/f", []byte("x"), 0o666))
	_, err := tr.Stat("/f/g")
	assert.ErrorIs(t, err, syscall.ENOTDIR)
	_, err = tr.OpenFile("/f", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	assert.ErrorIs(t, err, fs.ErrExist)
	_, err = tr.OpenFile("/d/f", os.O_RDWR|os.O_CREATE, 0o666)
	assert.ErrorIs(t, err, fs.ErrNotExist, "the parent must exist")
	assert.ErrorIs(t, tr.Mkdir("/f", 0o777), fs.ErrExist)
	assert.ErrorIs(t, tr.Mkdir("/", 0o777), fs.ErrExist)
	assert.ErrorIs(t, tr.MkdirAll("/f/g", 0o777), syscall.ENOTDIR)
	require.NoError(t, tr.MkdirAll("/d/e", 0o777))
	assert.ErrorIs(t, tr.Remove("/d"), syscall.ENOTEMPTY)
	_, err = tr.OpenFile("/d", os.O_WRONLY, 0)
	assert.ErrorIs(t, err, syscall.EISDIR)
	r, err := tr.Open("/f")
	require.NoError(t, err)
	_, err = r.Write([]byte("y"))
	assert.ErrorIs(t, err, syscall.EBADF, "read-only handle")
	require.NoError(t, r.Close())
	_, err = r.Read(make([]byte, 1))
	assert.ErrorIs(t, err, os.ErrClosed)
	assert.ErrorIs(t, r.Close(), os.ErrClosed)
	require.NoError(t, tr.RemoveAll("/missing/x"))
	require.NoError(t, tr.RemoveAll("/d"))
	_, err = tr.Stat("/d/e")
	assert.ErrorIs(t, err, fs.ErrNotExist)
	require.NoError(t, tr.RemoveAll("/"))
	assert.True(t, tr.empty())
	fi, err := tr.Stat("/")
	require.NoError(t, err)
	assert.True(t, fi.IsDir(), "the root stays")
}

func TestTreeReaddirPages(t *testing.T) {
	tr := newTree()
	require.NoError(t, tr.Mkdir("/d", 0o777))
	for _, n := range []string{"c", "a", "b"} {
		require.NoError(t, afero.WriteFile(tr, "/d/"+n, nil, 0o666))
	}
	d, err := tr.Open("/d")
	require.NoError(t, err)
	page, err := d.Readdirnames(2)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, page)
	page, err = d.Readdirnames(2)
	require.NoError(t, err)
	assert.Equal(t, []string{"c"}, page)
	_, err = d.Readdirnames(2)
	assert.ErrorIs(t, err, io.EOF)
	_, err = d.Read(make([]byte, 1))
	assert.ErrorIs(t, err, syscall.EISDIR)
}

// TestTreeHiddenFile checks CreateHidden and Publish directly: both the read-
// locked path (the directory exists) and the write-locked one (it is made)
// refuse what is in the way; a hidden file is unseen until published, gets
// its time and status then; and a published handle can be used no more.
func TestTreeHiddenFile(t *testing.T) {
	tr := newTree()
	require.NoError(t, tr.MkdirAll("/d/sub", 0o777))
	require.NoError(t, afero.WriteFile(tr, "/d/f", []byte("old"), 0o666))
	for _, tc := range []struct {
		name      string
		noReplace bool
		want      error
	}{
		{"/d/f", true, fs.ErrExist}, // directory exists: read lock
		{"/d/sub", false, syscall.EISDIR},
		{"/d/f/x", false, syscall.ENOTDIR}, // a file in the way: write lock
		{"/", false, syscall.EISDIR},
	} {
		_, err := tr.CreateHidden(tc.name, tc.noReplace)
		assert.ErrorIs(t, err, tc.want, tc.name)
	}

	before := time.Now()
	for _, name := range []string{"/d/g", "/new/dirs/g"} { // read lock, write lock
		f, err := tr.CreateHidden(name, true)
		require.NoError(t, err, name)
		_, err = f.Write([]byte("hello, "))
		require.NoError(t, err)
		_, err = f.WriteAt([]byte("world"), 7)
		require.NoError(t, err)
		_, err = tr.Stat(name)
		require.ErrorIs(t, err, fs.ErrNotExist, "%s: hidden until published", name)
		require.NoError(t, f.Close())
		require.NoError(t, tr.Publish(f, name, true), name)

		got, err := afero.ReadFile(tr, name)
		require.NoError(t, err)
		assert.Equal(t, "hello, world", string(got), name)
		size, mtime, dir, err := tr.Status(name)
		require.NoError(t, err)
		assert.Equal(t, int64(12), size)
		assert.False(t, dir)
		assert.False(t, mtime.Before(before), "%s: timed at Publish", name)
		fi, err := tr.Stat(name)
		require.NoError(t, err)
		assert.Equal(t, mtime, fi.ModTime())

		_, err = f.Write([]byte("more"))
		assert.ErrorIs(t, err, os.ErrClosed, "%s: a published handle is closed", name)
		assert.ErrorIs(t, tr.Publish(f, name, false), fs.ErrInvalid, "%s: published once", name)
	}
	_, _, dir, err := tr.Status("/new/dirs")
	require.NoError(t, err)
	assert.True(t, dir)
	_, _, _, err = tr.Status("/d/f/x")
	assert.ErrorIs(t, err, syscall.ENOTDIR)

	// Publishing where a file appeared meanwhile, or into a directory that
	// was removed, publishes nothing.
	f, err := tr.CreateHidden("/d/h", true)
	require.NoError(t, err)
	require.NoError(t, afero.WriteFile(tr, "/d/h", []byte("first"), 0o666))
	require.NoError(t, f.Close())
	assert.ErrorIs(t, tr.Publish(f, "/d/h", true), fs.ErrExist)
	f, err = tr.CreateHidden("/d/sub/h", false)
	require.NoError(t, err)
	require.NoError(t, tr.RemoveAll("/d/sub"))
	require.NoError(t, f.Close())
	assert.ErrorIs(t, tr.Publish(f, "/d/sub/h", false), fs.ErrNotExist)
	got, err := afero.ReadFile(tr, "/d/h")
	require.NoError(t, err)
	assert.Equal(t, "first", string(got))
}
