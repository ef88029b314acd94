package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/vfs"
)

// controlNames are names a listing must not print raw on a terminal: a
// newline (two entries?), a carriage return, an escape sequence that clears
// the screen, invalid UTF-8.
var controlNames = []string{"a\nb", "c\rd", "\x1b[2J", "\xff\xfe"}

func TestQuoteName(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		shell, escape, c, message string
	}{
		{"plain-name_1.txt", "plain-name_1.txt", "plain-name_1.txt", `"plain-name_1.txt"`, "plain-name_1.txt"},
		{"a\nb", `'a'$'\n''b'`, `a\nb`, `"a\nb"`, `a\nb`},
		{"c\rd", `'c'$'\r''d'`, `c\rd`, `"c\rd"`, `c\rd`},
		{"\x1b[2J", `$'\033''[2J'`, `\033[2J`, `"\033[2J"`, `\033[2J`},
		{"\xff\xfe", `$'\377\376'`, `\377\376`, `"\377\376"`, `\377\376`},
		{"a b", `'a b'`, `a\ b`, `"a b"`, "a b"},
		{"it's", `'it'\''s'`, "it's", `"it's"`, "it's"},
		{`a\b"c`, `'a\b"c'`, `a\\b"c`, `"a\\b\"c"`, `a\b"c`},
		{"é\u202e", `'é'$'\342\200\256'`, `é\342\200\256`, `"é\342\200\256"`, `é\342\200\256`},
		{"~x#y", `'~x#y'`, "~x#y", `"~x#y"`, "~x#y"},
		{"", "''", "", `""`, ""},
	} {
		assert.Equal(t, tc.name, quoteName(tc.name, quoteLiteral))
		assert.Equal(t, tc.shell, quoteName(tc.name, quoteShellEscape), "shell-escape of %q", tc.name)
		assert.Equal(t, tc.escape, quoteName(tc.name, quoteEscape), "escape of %q", tc.name)
		assert.Equal(t, tc.c, quoteName(tc.name, quoteC), "c of %q", tc.name)
		assert.Equal(t, tc.message, quoteName(tc.name, quoteMessage), "message of %q", tc.name)
	}
}

// vfskitOn runs one command line in-process with standard output taken for a
// terminal (tty) or not.
func vfskitOn(t *testing.T, tty bool, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(withLastingMemory(context.Background()), args, Stdio{Out: &out, Err: &errOut,
		Terminal: func() bool { return false }, OutTerminal: func() bool { return tty }}, allSchemes...)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// plantHostile writes a file with each hostile name (and "plain") into dir,
// through the library (exact names), and returns dir's URI.
func plantHostile(t *testing.T, dir string) string {
	t.Helper()
	fsys, err := testApp(t).reg.Get(t.Context(), dir)
	require.NoError(t, err)
	root, err := vfs.ParsePath(dir)
	require.NoError(t, err)
	for _, n := range append([]string{"plain"}, controlNames...) {
		_, err := vfs.CopyFrom(t.Context(), fsys, root.Join(n), strings.NewReader("x"), vfs.Overwrite)
		require.NoError(t, err, "%q", n)
	}
	return dir
}

// TestListHostileNames: ls on memory:// and file:// prints names holding a
// newline, a carriage return, an escape sequence or invalid UTF-8 raw when
// standard output is not a terminal, and quoted the way a shell reads them
// back when it is; --zero, -b, -Q, -N and --quoting-style choose.
func TestListHostileNames(t *testing.T) {
	const raw = "\x1b[2J\na\nb\nc\rd\nplain\n\xff\xfe\n"
	const zero = "\x1b[2J\x00a\nb\x00c\rd\x00plain\x00\xff\xfe\x00"
	const quoted = "$'\\033''[2J'\n'a'$'\\n''b'\n'c'$'\\r''d'\nplain\n$'\\377\\376'\n"
	for _, dir := range []string{memRoot(t) + "/d", "file://" + t.TempDir()} {
		plantHostile(t, dir)
		for _, tc := range []struct {
			tty  bool
			args []string
			want string
		}{
			{false, []string{"ls", dir}, raw},
			{true, []string{"ls", dir}, quoted},
			{true, []string{"ls", "-R", dir}, quoted},
			{true, []string{"ls", "-N", dir}, raw},
			{true, []string{"--quoting-style", "literal", "ls", dir}, raw},
			{false, []string{"--quoting-style", "shell-escape", "ls", dir}, quoted},
			{false, []string{"ls", "--zero", dir}, zero},
			{true, []string{"ls", "--zero", dir}, zero},
			{false, []string{"ls", "-b", dir}, "\\033[2J\na\\nb\nc\\rd\nplain\n\\377\\376\n"},
			{false, []string{"ls", "-Q", dir}, "\"\\033[2J\"\n\"a\\nb\"\n\"c\\rd\"\nplain\n\"\\377\\376\"\n"},
		} {
			r := vfskitOn(t, tc.tty, tc.args...)
			require.Equal(t, ExitOK, r.code, "%q: %s", tc.args, r.stderr)
			want := tc.want
			if tc.args[len(tc.args)-2] == "-Q" {
				want = strings.Replace(want, "plain", `"plain"`, 1)
			}
			assert.Equal(t, want, r.stdout, "tty %v: vfskit %q", tc.tty, tc.args)
		}
		long := vfskitOn(t, true, "ls", "-l", dir).stdout
		assert.Contains(t, long, " 'a'$'\\n''b'\n", "ls -l quotes too")
		assert.NotContains(t, long, "\x1b", "no escape sequence reaches the terminal")

		// stat prints the path quoted; an error naming the file escapes its
		// control characters on standard error, terminal or not.
		fsys, err := testApp(t).reg.Get(t.Context(), dir)
		require.NoError(t, err)
		root, err := vfs.ParsePath(dir)
		require.NoError(t, err)
		st, err := fsys.Stat(t.Context(), root.Join("a\nb"))
		require.NoError(t, err)
		out := vfskitOn(t, true, "stat", st.Path.String()).stdout
		assert.Contains(t, out, "Path:        '"+strings.TrimSuffix(root.Join("a").String(), "a")+"a'$'\\n''b'\n")
		r := vfskitOn(t, false, "rm", root.Join("x\x1b[2Jy").String())
		assert.Equal(t, ExitFailure, r.code)
		assert.Contains(t, r.stderr, "x\\033[2Jy")
		assert.NotContains(t, r.stderr, "\x1b")
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	}
	assert.Contains(t, vfskitOn(t, false, "--quoting-style", "fancy", "ls", ".").stderr, `invalid --quoting-style "fancy": expected literal, shell-escape, escape, c`)
	assert.Equal(t, ExitUsage, vfskitOn(t, false, "--quoting-style", "fancy", "ls", ".").code)
}

// TestCheckpointCommandsQuoteNames: the checkpoint commands print paths
// through the same quoting: a checkpoint under a directory whose name holds a
// newline lists on one line, quoted, on a terminal.
func TestCheckpointCommandsQuoteNames(t *testing.T) {
	base := memRoot(t) + "/a\nb"
	writeTo(t, base+"/chk-1/_metadata", "not metadata")
	out := vfskitOn(t, true, "checkpoints", "list", base).stdout
	assert.Contains(t, out, " "+quoteName(base+"/chk-1", quoteShellEscape)+"\n", out)
	assert.Contains(t, out, "/a'$'\\n''b/chk-1'\n", out)
	assert.Equal(t, 2, strings.Count(out, "\n"), "a header and one row: %q", out)
	r := vfskitOn(t, false, "checkpoints", "verify", base+"/chk-1")
	assert.Equal(t, ExitFailure, r.code)
	assert.NotContains(t, r.stdout+r.stderr, "a\nb", "no raw newline in a diagnostic")
}
