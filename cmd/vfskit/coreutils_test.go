package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCoreutilsHabits runs the built binary through the flags a coreutils
// user types first, each step a row: the command line, the exit status it
// must end with, and what its output or the files afterwards must show.
func TestCoreutilsHabits(t *testing.T) {
	bin := buildVfskit(t)
	work := t.TempDir()
	run := runner(t, bin, work, nil)
	write := func(rel, data string) {
		p := filepath.Join(work, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(work, rel))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	write("d/a.txt", "hello")
	write("d/.hidden", "h")
	write("d/big.bin", string(make([]byte, 1536)))
	write("m/src.txt", "new")
	write("m/dst.txt", "old")
	write("tree/x", "x")
	write("tree/sub/y", "y")
	write("copy/x", "kept: was already there")
	write("s/one", "1")
	write("s/two", "2")
	write("into/two", "kept: was already there")
	write("mvs/a", "a")
	write("mvs/b", "b")
	require.NoError(t, os.Mkdir(filepath.Join(work, "into2"), 0o755))
	require.NoError(t, os.Symlink("d/a.txt", filepath.Join(work, "link")))
	// For cp -u: u/new.txt is newer than its copy, u/old.txt older.
	write("u/new.txt", "newer source")
	write("u/old.txt", "older source")
	write("udst/new.txt", "older copy")
	write("udst/old.txt", "newer copy")
	now := time.Now()
	for rel, at := range map[string]time.Time{"u/new.txt": now, "udst/new.txt": now.Add(-time.Hour),
		"u/old.txt": now.Add(-time.Hour), "udst/old.txt": now} {
		require.NoError(t, os.Chtimes(filepath.Join(work, rel), at, at))
	}

	for _, row := range []struct {
		args   []string
		code   int
		stdout string // a regular expression the standard output must match
		stderr string // a regular expression the standard error must match
		check  func()
	}{
		{args: []string{"rm", "-f", "nope"}, code: 0},
		{args: []string{"rm", "nope"}, code: 1},
		{args: []string{"mkdir", "-p", "p/q/r"}, code: 0, check: func() {
			st, err := os.Stat(filepath.Join(work, "p/q/r"))
			require.NoError(t, err)
			assert.True(t, st.IsDir())
		}},
		{args: []string{"ls", "-a", "d"}, stdout: `^\.hidden\na\.txt\nbig\.bin\n$`},
		{args: []string{"ls", "-la", "d"}, stdout: `(?m)^- 1536 .* big\.bin$`},
		{args: []string{"ls", "-lh", "d"}, stdout: `(?m)^- 1\.5K .* big\.bin$`},
		{args: []string{"ls", "--help"}, stdout: `human-readable`},
		{args: []string{"stat", "link"}, stdout: `symbolic link`},
		{args: []string{"mv", "-n", "m/src.txt", "m/dst.txt"}, code: 0, check: func() {
			assert.Equal(t, "old", read("m/dst.txt"))
			assert.Equal(t, "new", read("m/src.txt"), "-n keeps the destination and the source stays")
		}},
		{args: []string{"mv", "-f", "m/src.txt", "m/dst.txt"}, code: 0, check: func() {
			assert.Equal(t, "new", read("m/dst.txt"))
			assert.Equal(t, "<missing>", read("m/src.txt"))
		}},
		{args: []string{"cp", "-r", "-T", "--update=none", "tree", "copy"}, code: 0, check: func() {
			assert.Equal(t, "kept: was already there", read("copy/x"), "--update=none keeps what is there")
			assert.Equal(t, "y", read("copy/sub/y"), "and copies the rest")
		}},
		{args: []string{"cp", "-r", "-T", "-u", "u", "udst"}, code: 0, check: func() {
			assert.Equal(t, "newer source", read("udst/new.txt"), "-u replaces an older copy")
			assert.Equal(t, "newer copy", read("udst/old.txt"), "-u keeps a newer copy")
		}},
		{args: []string{"cp", "--update=none-fail", "tree/x", "copy/x"}, code: 1, stderr: `^vfskit: cp \S*copy/x: file already exists \(.*\)\n$`, check: func() {
			assert.Equal(t, "kept: was already there", read("copy/x"))
		}},
		{args: []string{"cp", "-n", "s/one", "s/two", "into"}, code: 0, check: func() {
			assert.Equal(t, "1", read("into/one"), "several sources go into the directory under their names")
			assert.Equal(t, "kept: was already there", read("into/two"), "with the flags given (-n keeps it)")
		}},
		{args: []string{"cp", "-r", "tree", "s/one", "nope", "into2"}, code: 1, stderr: `^vfskit: cp \S*nope: no such file or directory\n$`, check: func() {
			assert.Equal(t, "y", read("into2/tree/sub/y"), "a directory source with -r")
			assert.Equal(t, "1", read("into2/one"), "a source that fails leaves the others copied")
		}},
		{args: []string{"cp", "s/one", "s/two", "nodir"}, code: 1, stderr: `^vfskit: cp \S*nodir: target directory: file does not exist .*\n$`, check: func() {
			assert.Equal(t, "<missing>", read("nodir"), "nothing made")
		}},
		{args: []string{"cp", "s/one", "s/two", "s/one"}, code: 1, stderr: `^vfskit: cp \S*s/one: target: not a directory .*\n$`, check: func() {
			assert.Equal(t, "1", read("s/one"))
		}},
		{args: []string{"cp", "-T", "s/one", "s/two", "into"}, code: 2, stderr: `without -T`},
		{args: []string{"mv", "mvs/a", "mvs/b", "nodir"}, code: 1, stderr: `\S*nodir: target directory: file does not exist`, check: func() {
			assert.Equal(t, "a", read("mvs/a"), "nothing moved")
		}},
		{args: []string{"mv", "mvs/a", "mvs/b", "into"}, code: 0, check: func() {
			assert.Equal(t, "a", read("into/a"))
			assert.Equal(t, "b", read("into/b"))
			assert.Equal(t, "<missing>", read("mvs/a"), "moved, not copied")
			assert.Equal(t, "<missing>", read("mvs/b"))
		}},
		{args: []string{"rm", "-rf", "tree", "gone"}, code: 0, check: func() {
			assert.Equal(t, "<missing>", read("tree/x"))
		}},
	} {
		stdout, stderr, code := run(row.args...)
		require.Equal(t, row.code, code, "vfskit %q: stdout %q stderr %q", row.args, stdout, stderr)
		if row.stdout != "" {
			assert.Regexp(t, regexp.MustCompile(row.stdout), stdout, "vfskit %q", row.args)
		}
		if row.stderr != "" {
			assert.Regexp(t, regexp.MustCompile(row.stderr), stderr, "vfskit %q", row.args)
		}
		if row.check != nil {
			row.check()
		}
	}
}

// TestLsRecursivePastUnreadableDirectory: the built binary's ls -R lists
// everything it can read, reports the directory it cannot (one line), and
// exits 1 at the end. Run by root, the binary runs as nobody, whom the
// directory's permissions keep out.
func TestLsRecursivePastUnreadableDirectory(t *testing.T) {
	bin := buildVfskit(t)
	work := t.TempDir()
	for _, rel := range []string{"a/x", "locked/secret", "z/y"} {
		p := filepath.Join(work, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(rel), 0o644))
	}
	require.NoError(t, os.Chmod(filepath.Join(work, "locked"), 0))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(work, "locked"), 0o755) })
	cmd := exec.Command(bin, "ls", "-R", work)
	if os.Geteuid() == 0 {
		// nobody must reach the binary and the tree, not what is in locked.
		for _, d := range []string{filepath.Dir(bin), work, filepath.Dir(work)} {
			require.NoError(t, os.Chmod(d, 0o755))
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	stdout, stderr, code := runCmd(t, cmd)
	assert.Equal(t, 1, code, stderr)
	assert.Equal(t, "a/\na/x\nlocked/\nz/\nz/y\n", stdout, "everything readable is listed")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "locked")
	assert.Contains(t, stderr, "permission denied")
}
