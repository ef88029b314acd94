package cli

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// memRoots holds each running test's memory:// root (see memRoot).
var memRoots sync.Map // *testing.T → string

// memRoot returns the memory:// root of the test t: the same for every call
// in t, and a fresh, empty file system for each test and each run of it
// (go test -count=N), dropped when t ends (memfs.NewTest).
func memRoot(t *testing.T) string {
	if root, ok := memRoots.Load(t); ok {
		return root.(string)
	}
	_, p := memfs.NewTest(t)
	root := strings.TrimSuffix(p.String(), "/")
	memRoots.Store(t, root)
	t.Cleanup(func() { memRoots.Delete(t) })
	return root
}

// writeTo writes a file through the library.
func writeTo(t *testing.T, uri, data string) {
	t.Helper()
	fsys, err := testApp(t).reg.Get(t.Context(), uri)
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, vfs.MustPath(uri), []byte(data), vfs.Overwrite))
}

func TestFileCommandsOnMemory(t *testing.T) {
	root := memRoot(t)
	ok(t, "mkdir", root+"/d/sub")
	writeTo(t, root+"/d/a.txt", "hello")
	writeTo(t, root+"/d/sub/b.txt", "world!")

	assert.Equal(t, "a.txt\nsub/\n", ok(t, "ls", root+"/d"))
	assert.Equal(t, "a.txt\nsub/\nsub/b.txt\n", ok(t, "ls", "-R", root+"/d"))
	long := ok(t, "ls", "-l", root+"/d")
	lines := strings.Split(strings.TrimSpace(long), "\n")
	require.Len(t, lines, 2)
	assert.Regexp(t, `^- 5 \d{4}-\d\d-\d\d \d\d:\d\d:\d\d a\.txt$`, lines[0])
	assert.Regexp(t, `^d 0 .* sub/$`, lines[1])
	assert.Equal(t, "a.txt\n", ok(t, "ls", root+"/d/a.txt"), "a file lists itself")

	st := ok(t, "stat", root+"/d/sub/b.txt")
	assert.Contains(t, st, "Path:        "+root+"/d/sub/b.txt\n")
	assert.Contains(t, st, "Type:        file\n")
	assert.Contains(t, st, "Size:        6 (6 B)\n")
	assert.Contains(t, st, "(FileSystem)")
	assert.Contains(t, ok(t, "stat", root+"/d"), "Type:        directory\n")

	assert.Equal(t, "hello", ok(t, "cat", root+"/d/a.txt"))
	assert.Equal(t, "helloworld!", ok(t, "cat", root+"/d/a.txt", root+"/d/sub/b.txt"))

	// cp file into an existing directory, then over an existing file.
	ok(t, "cp", root+"/d/a.txt", root+"/d/sub")
	assert.Equal(t, "hello", ok(t, "cat", root+"/d/sub/a.txt"))
	msg := fails(t, ExitFailure, "cp", "--update=none-fail", root+"/d/sub/b.txt", root+"/d/a.txt")
	assert.Equal(t, "vfskit: cp "+root+"/d/a.txt: file already exists (kept: --update=none-fail)\n", msg,
		"one hint, in the command's terms")
	assert.Equal(t, "hello", ok(t, "cat", root+"/d/a.txt"), "a refused cp leaves the target alone")
	ok(t, "cp", root+"/d/sub/b.txt", root+"/d/a.txt") // replaces by default, as cp does
	assert.Equal(t, "world!", ok(t, "cat", root+"/d/a.txt"))
	ok(t, "cp", root+"/d/sub/a.txt", root+"/d/a.txt")
	assert.Equal(t, "hello", ok(t, "cat", root+"/d/a.txt"))
	ok(t, "cp", "--overwrite", root+"/d/sub/b.txt", root+"/d/a.txt") // the old flag still works
	assert.Equal(t, "world!", ok(t, "cat", root+"/d/a.txt"))
	assert.Contains(t, fails(t, ExitUsage, "cp", "-n", "--overwrite", root+"/d/sub/b.txt", root+"/d/a.txt"), "none of the others can be")

	// cp -r of a tree.
	assert.Contains(t, fails(t, ExitFailure, "cp", root+"/d", root+"/e"), "use -r")
	ok(t, "cp", "-r", root+"/d", root+"/e")
	assert.Equal(t, "a.txt\nsub/\nsub/a.txt\nsub/b.txt\n", ok(t, "ls", "-R", root+"/e"))
	assert.Contains(t, fails(t, ExitFailure, "cp", "-r", root+"/d", root+"/d/sub/x"), "into itself")

	// mv renames and moves into directories.
	ok(t, "mv", root+"/e/a.txt", root+"/e/c.txt")
	ok(t, "mv", root+"/e/c.txt", root+"/e/sub")
	assert.Equal(t, "world!", ok(t, "cat", root+"/e/sub/c.txt"))
	ok(t, "mv", "-n", root+"/e/sub/c.txt", root+"/e/sub/b.txt")
	assert.Equal(t, "world!", ok(t, "cat", root+"/e/sub/c.txt"), "mv -n keeps the source")
	ok(t, "mv", root+"/e/sub/c.txt", root+"/e/sub/b.txt")
	assert.Equal(t, "world!", ok(t, "cat", root+"/e/sub/b.txt"), "mv replaces an existing file")
	assert.Contains(t, fails(t, ExitFailure, "stat", root+"/e/sub/c.txt"), "file does not exist")
	assert.Contains(t, fails(t, ExitFailure, "mv", root+"/e", root+"/e/sub/x"), "cannot move directory "+root+"/e into itself")

	// rm needs -r for directories; missing paths are errors.
	assert.Contains(t, fails(t, ExitFailure, "rm", root+"/e/sub"), "use -r")
	ok(t, "rm", root+"/e/sub/b.txt")
	ok(t, "rm", "-r", root+"/e")
	assert.Contains(t, fails(t, ExitFailure, "ls", root+"/e"), "not exist")
	assert.Contains(t, fails(t, ExitFailure, "rm", root+"/e"), "not exist")
	assert.Contains(t, fails(t, ExitFailure, "cat", root+"/nope"), root+"/nope")
	assert.Regexp(t, `^vfskit: cp `+root+`/nope: (file does not exist|no such file or directory)\n$`, fails(t, ExitFailure, "cp", root+"/nope", root+"/x"))
	assert.Regexp(t, `^vfskit: mv `+root+`/nope: (file does not exist|no such file or directory)\n$`, fails(t, ExitFailure, "mv", root+"/nope", root+"/x"))
	assert.Contains(t, fails(t, ExitFailure, "cat", root+"/d"), "is a directory")
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown scheme", []string{"ls", "nosuch://bucket/x"}, `nosuch:// is not a scheme here`},
		{"unknown scheme in cp destination", []string{"cp", "memory://x/a", "gopher://h/b"}, `gopher:// is not a scheme here`},
		{"scheme with relative path", []string{"cat", "s3:relative"}, `bad URI "s3:relative"`},
		{"empty URI", []string{"stat", ""}, "empty URI"},
		{"s3 without bucket", []string{"ls", "s3://"}, "no bucket in the URI"},
		{"invalid bucket name", []string{"cat", "s3://Bad_Bucket/x"}, `invalid S3 bucket name "Bad_Bucket"`},
		{"scheme without path", []string{"ls", "memory:"}, `bad URI "memory:"`},
		{"bad --endpoint", []string{"--endpoint", "127.0.0.1:8333", "ls", "memory://x/"}, `invalid --endpoint "127.0.0.1:8333"`},
		{"file URI with host", []string{"ls", "file://host/tmp"}, "did you forget a slash"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"ls", "--bogus", "memory://x/"}, "unknown flag: --bogus"},
		{"missing argument", []string{"cp", "memory://x/a"}, "requires at least 2 arg(s), only received 1"},
		{"too many arguments", []string{"checkpoints", "relocate", "memory://x/a", "memory://x/b", "memory://x/c"}, "accepts 2 arg(s), received 3"},
		{"several sources into standard output", []string{"cp", "memory://x/a", "memory://x/b", "-"}, "several sources go into a directory"},
		{"bad log level", []string{"--log-level", "loud", "ls", "memory://x/"}, `invalid --log-level "loud"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := fails(t, ExitUsage, tc.args...)
			assert.Contains(t, msg, tc.want)
			assert.True(t, strings.HasPrefix(msg, "vfskit: "), msg)
		})
	}
}

func TestHelpOnEveryCommand(t *testing.T) {
	for _, c := range [][]string{
		{}, {"ls"}, {"stat"}, {"cat"}, {"cp"}, {"mv"}, {"rm"}, {"mkdir"},
		{"checkpoints"}, {"checkpoints", "list"}, {"checkpoints", "inspect"}, {"checkpoints", "gc"}, {"demo"},
		{"completion"}, {"completion", "bash"},
	} {
		t.Run(strings.Join(append([]string{"vfskit"}, c...), " "), func(t *testing.T) {
			out := ok(t, append(c, "--help")...)
			assert.Contains(t, out, "Usage:")
			assert.Contains(t, out, "vfskit "+strings.Join(c, " "))
		})
	}
}

// TestManyArguments checks that rm, cat and mkdir go on past an argument that
// fails, as their Unix namesakes do: every failure is reported on its own line,
// the other arguments are processed, and the exit status is 1. A bad URI
// anywhere is a usage error that changes nothing.
func TestManyArguments(t *testing.T) {
	root := memRoot(t)
	writeTo(t, root+"/a", "A")
	writeTo(t, root+"/b", "B")
	writeTo(t, root+"/d/c", "C")

	r := vfskit(t, "cat", root+"/a", root+"/missing", root+"/d", root+"/b")
	assert.Equal(t, ExitFailure, r.code)
	assert.Equal(t, "AB", r.stdout, "the readable files are still written")
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	require.Len(t, lines, 2, r.stderr)
	assert.Contains(t, lines[0], "vfskit: open "+root+"/missing: ")
	assert.Contains(t, lines[1], "vfskit: open "+root+"/d: ")

	assert.Contains(t, fails(t, ExitUsage, "rm", root+"/a", "nosuch://x/y"), "nosuch:// is not a scheme here")
	assert.Equal(t, "A", ok(t, "cat", root+"/a"), "a usage error removes nothing")

	r = vfskit(t, "rm", root+"/a", root+"/missing", root+"/d", root+"/b")
	assert.Equal(t, ExitFailure, r.code)
	assert.Regexp(t, "^vfskit: rm "+root+"/missing: (file does not exist|no such file or directory)\n"+
		"vfskit: rm "+root+"/d: is a directory \\(use -r to remove a directory\\)\n$", r.stderr)
	assert.Equal(t, "d/\n", ok(t, "ls", root), "a and b are removed, d is left")

	r = vfskit(t, "mkdir", root+"/x", root+"/d/c/sub", root+"/y")
	assert.Equal(t, ExitFailure, r.code)
	assert.Contains(t, r.stderr, root+"/d/c")
	assert.Equal(t, "d/\nx/\ny/\n", ok(t, "ls", root))
}

// TestTrailingSlashDestination checks that a destination ending in "/" names a
// directory even when it does not exist yet: a file is copied (or moved) into
// it, as "aws s3 cp" does, rather than to a file named like the directory. A
// file with a trailing slash is an error.
func TestTrailingSlashDestination(t *testing.T) {
	root := memRoot(t)
	writeTo(t, root+"/a.txt", "A")
	ok(t, "cp", root+"/a.txt", root+"/new/")
	assert.Equal(t, "a.txt\nnew/\nnew/a.txt\n", ok(t, "ls", "-R", root))
	assert.Equal(t, "A", ok(t, "cat", root+"/new/a.txt"))

	ok(t, "mv", root+"/new/a.txt", root+"/moved/")
	assert.Equal(t, "A", ok(t, "cat", root+"/moved/a.txt"))

	disk := "file://" + t.TempDir()
	ok(t, "mv", root+"/moved/a.txt", disk+"/across/")
	assert.Equal(t, "A", ok(t, "cat", disk+"/across/a.txt"))

	writeTo(t, root+"/b.txt", "B")
	msg := fails(t, ExitFailure, "cp", root+"/a.txt", root+"/b.txt/")
	assert.Contains(t, msg, "cp "+root+"/b.txt: not a directory")
	assert.Equal(t, "B", ok(t, "cat", root+"/b.txt"))

	// A directory source keeps cp -r's meaning: dst/ that does not exist becomes
	// the copy.
	writeTo(t, root+"/tree/x", "X")
	ok(t, "cp", "-r", root+"/tree", root+"/copy/")
	assert.Equal(t, "X", ok(t, "cat", root+"/copy/x"))
}
