package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/vfs"
)

// copySize is the size of the file the cp matrix copies.
const copySize = 50 << 20

// randomReader returns size deterministic pseudo-random bytes.
func randomReader(seed uint64, size int64) io.Reader {
	return io.LimitReader(rand.NewChaCha8([32]byte{byte(seed)}), size)
}

// putRandom streams size random bytes to uri and returns their SHA-256.
func putRandom(t *testing.T, uri string, seed uint64, size int64) [32]byte {
	t.Helper()
	loc, err := testApp(t).resolve(t.Context(), uri)
	require.NoError(t, err)
	h := sha256.New()
	n, err := vfs.CopyFrom(t.Context(), loc.fsys, loc.path, io.TeeReader(randomReader(seed, size), h), vfs.Overwrite)
	require.NoError(t, err)
	require.Equal(t, size, n)
	return [32]byte(h.Sum(nil))
}

// sumOf streams the file at uri and returns its size and SHA-256.
func sumOf(t *testing.T, uri string) (int64, [32]byte) {
	t.Helper()
	loc, err := testApp(t).resolve(t.Context(), uri)
	require.NoError(t, err)
	in, err := loc.fsys.Open(t.Context(), loc.path)
	require.NoError(t, err)
	defer in.Close()
	h := sha256.New()
	n, err := io.Copy(h, in)
	require.NoError(t, err)
	return n, [32]byte(h.Sum(nil))
}

// copyMatrix copies a 50 MiB file from every root to every root with "vfskit
// cp" and verifies each copy byte for byte (by SHA-256, streaming). Pairs for
// which include returns false are skipped. Each copy is removed once verified,
// so at most two copies live in memory at a time.
func copyMatrix(t *testing.T, roots map[string]string, include func(src, dst string) bool) {
	want := map[string][32]byte{}
	for name, root := range roots {
		want[name] = putRandom(t, root+"/src.bin", uint64(len(name)), copySize)
	}
	pairs := 0
	for srcName, src := range roots {
		for dstName, dst := range roots {
			if !include(srcName, dstName) {
				continue
			}
			pairs++
			t.Run(srcName+"→"+dstName, func(t *testing.T) {
				target := fmt.Sprintf("%s/copies/from-%s.bin", dst, srcName)
				ok(t, "cp", src+"/src.bin", target)
				n, sum := sumOf(t, target)
				assert.Equal(t, int64(copySize), n)
				assert.Equal(t, want[srcName], sum, "byte-for-byte copy")
				assert.Contains(t, fails(t, ExitFailure, "cp", "--update=none-fail", src+"/src.bin", target), "kept: --update=none-fail")
				ok(t, "rm", target)
			})
		}
	}
	require.Positive(t, pairs)
}

func TestCopyMatrixLocalAndMemory(t *testing.T) {
	roots := map[string]string{"memory": memRoot(t), "file": "file://" + t.TempDir()}
	copyMatrix(t, roots, func(string, string) bool { return true })
}

func TestCopyPlainLocalPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	want := putRandom(t, dir+"/a.bin", 3, 1<<20)
	ok(t, "cp", "./a.bin", memRoot(t)+"/a.bin")
	ok(t, "cp", memRoot(t)+"/a.bin", "b.bin")
	n, sum := sumOf(t, dir+"/b.bin")
	assert.Equal(t, int64(1<<20), n)
	assert.Equal(t, want, sum)
	ok(t, "mv", "b.bin", memRoot(t)+"/moved.bin")
	assert.NoFileExists(t, dir+"/b.bin", "mv across file systems removes the source")
	_, sum = sumOf(t, memRoot(t)+"/moved.bin")
	assert.Equal(t, want, sum)
	assert.Equal(t, "a.bin\n", ok(t, "ls", "."))
}

func TestCopyTreeAcrossFileSystems(t *testing.T) {
	mem, disk := memRoot(t), "file://"+t.TempDir()
	writeTo(t, mem+"/tree/a", "1")
	writeTo(t, mem+"/tree/x/b", "22")
	writeTo(t, mem+"/tree/x/y/c", "333")
	ok(t, "cp", "-r", mem+"/tree", disk)
	assert.Equal(t, "a\nx/\nx/b\nx/y/\nx/y/c\n", ok(t, "ls", "-R", disk+"/tree"))
	assert.Equal(t, "333", ok(t, "cat", disk+"/tree/x/y/c"))
	ok(t, "mv", disk+"/tree", mem+"/moved")
	assert.Equal(t, "a\nx/\nx/b\nx/y/\nx/y/c\n", ok(t, "ls", "-R", mem+"/moved"))
	assert.Contains(t, fails(t, ExitFailure, "ls", disk+"/tree"), "tree")
}

func TestCopyProgressOnTerminal(t *testing.T) {
	root := memRoot(t)
	putRandom(t, root+"/big", 1, 5<<20)
	putRandom(t, root+"/small", 1, 1<<20)
	var out, errOut bytes.Buffer
	code := Run(withLastingMemory(context.Background()), []string{"cp", root + "/big", "file://" + t.TempDir() + "/big"},
		Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return true }})
	require.Equal(t, ExitOK, code, errOut.String())
	assert.Contains(t, errOut.String(), "5.0 MiB", "the bar shows the bytes")
	assert.Regexp(t, `[KMGT]iB/s`, errOut.String(), "the bar shows the rate")
	assert.Empty(t, out.String())

	errOut.Reset()
	code = Run(withLastingMemory(context.Background()), []string{"cp", root + "/small", root + "/small2"},
		Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return true }})
	require.Equal(t, ExitOK, code)
	assert.Empty(t, errOut.String(), "no bar for small transfers")
}

// TestCopyProgressOnFailure checks that a failed transfer does not leave a bar
// that claims it completed: the bar is cleared and the error stands alone.
func TestCopyProgressOnFailure(t *testing.T) {
	root := memRoot(t)
	putRandom(t, root+"/big", 1, 5<<20)
	putRandom(t, root+"/taken", 2, 10)
	var out, errOut bytes.Buffer
	code := Run(withLastingMemory(context.Background()), []string{"cp", "--update=none-fail", root + "/big", root + "/taken"},
		Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return true }})
	require.Equal(t, ExitFailure, code)
	assert.NotContains(t, errOut.String(), "100%", "a failed copy is not shown as complete")
	assert.NotContains(t, errOut.String(), "5.0/5.0 MiB")
	assert.Contains(t, errOut.String(), "vfskit: cp "+root+"/taken: file already exists")
	n, _ := sumOf(t, root+"/taken")
	assert.Equal(t, int64(10), n, "the existing file is left alone")
}

// TestCopyStreams checks that cp moves a file through a bounded buffer rather
// than reading it whole: copying 50 MiB between local files allocates a small
// fraction of the file's size.
func TestCopyStreams(t *testing.T) {
	dir := "file://" + t.TempDir()
	want := putRandom(t, dir+"/src.bin", 9, copySize)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ok(t, "cp", dir+"/src.bin", dir+"/dst.bin")
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("cp of %d bytes allocated %d bytes", copySize, allocated)
	assert.Less(t, allocated, uint64(copySize/4), "cp allocated %d bytes for a %d-byte file", allocated, copySize)
	_, sum := sumOf(t, dir+"/dst.bin")
	assert.Equal(t, want, sum)
}

// TestTransferLinkedSource: a source argument that is itself a symbolic link to
// a directory is not followed without -L, by cp -r and by mv across file
// systems: the command fails naming it and nothing is copied or removed; with
// -L (cp) or a trailing "/" it is the directory.
func TestTransferLinkedSource(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "dir", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "dir", "sub", "f"), []byte("data"), 0o644))
	require.NoError(t, os.Symlink("dir", filepath.Join(root, "link")))
	link := "file://" + filepath.ToSlash(filepath.Join(root, "link"))
	dst := memRoot(t) + "/linked"

	assert.Contains(t, fails(t, ExitFailure, "cp", "-r", link, dst+"/cp"), "a symbolic link to a directory is not followed without -L")
	assert.Contains(t, fails(t, ExitFailure, "mv", link, dst+"/mv"), "a symbolic link cannot be moved to another file system (nothing was moved)")
	assert.Contains(t, fails(t, ExitFailure, "ls", dst), "does not exist", "nothing was copied")
	target, err := os.Readlink(filepath.Join(root, "link"))
	require.NoError(t, err)
	assert.Equal(t, "dir", target, "the link is still there")

	ok(t, "cp", "-rL", link, dst+"/L")
	ok(t, "cp", "-r", link+"/", dst+"/slash")
	for _, d := range []string{"L", "slash"} {
		assert.Equal(t, "data", ok(t, "cat", dst+"/"+d+"/sub/f"))
	}
}
