package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withInput runs one command line in-process with stdin as its standard input.
func withInput(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(withLastingMemory(context.Background()), args,
		Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errOut, Terminal: func() bool { return false }})
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// TestDashIsStdio: "-" is standard input for cat and cp's source, standard
// output for cp's destination; ./- is a file named "-".
func TestDashIsStdio(t *testing.T) {
	root := memRoot(t)
	writeTo(t, root+"/a", "A")

	r := withInput(t, "from stdin|", "cat", "-", root+"/a")
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Equal(t, "from stdin|A", r.stdout)

	r = withInput(t, "piped bytes", "cp", "-", root+"/in/b")
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Equal(t, "piped bytes", ok(t, "cat", root+"/in/b"))
	r = withInput(t, "replaced", "cp", "-", root+"/in/b")
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Equal(t, "replaced", ok(t, "cat", root+"/in/b"))
	r = withInput(t, "not this", "cp", "--update=none-fail", "-", root+"/in/b")
	assert.Equal(t, ExitFailure, r.code)
	assert.Contains(t, r.stderr, "vfskit: cp "+root+"/in/b: file already exists (kept: --update=none-fail)")
	assert.Equal(t, "replaced", ok(t, "cat", root+"/in/b"))
	r = withInput(t, "not this", "cp", "-n", "-", root+"/in/b")
	assert.Equal(t, ExitOK, r.code, "-n keeps the file and succeeds, as coreutils' cp -n does")
	assert.Empty(t, r.stderr)
	assert.Equal(t, "replaced", ok(t, "cat", root+"/in/b"))

	assert.Equal(t, "replaced", ok(t, "cp", root+"/in/b", "-"))
	r = withInput(t, "through", "cp", "-", "-")
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Equal(t, "through", r.stdout)

	r = withInput(t, "x", "cp", "-", root+"/in")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "standard input has no name: give a file as the destination, not the directory "+root+"/in")
	r = withInput(t, "x", "cp", "-", root+"/new/")
	assert.Equal(t, ExitUsage, r.code)
	assert.Contains(t, r.stderr, "standard input has no name")
	assert.Contains(t, fails(t, ExitFailure, "cp", root+"/in", "-"), "a directory cannot be copied to standard output")
	assert.Contains(t, fails(t, ExitFailure, "cp", root+"/missing", "-"), "cp "+root+"/missing: file does not exist")
	assert.Equal(t, "b\n", ok(t, "ls", root+"/in"), "nothing else was written")

	// A file named "-" is reached as ./- (or by URI); rm's "-" is a name.
	dir := t.TempDir()
	r = withInput(t, "dash file", "cp", "-", "file://"+dir+"/-")
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Equal(t, "dash file", ok(t, "cat", "file://"+dir+"/-"))
}

// TestListAndStatSeveral: ls and stat take several URIs, go on past one that
// fails (exit 1) and separate their outputs.
func TestListAndStatSeveral(t *testing.T) {
	root := memRoot(t)
	writeTo(t, root+"/d1/a", "A")
	writeTo(t, root+"/d2/b", "BB")

	r := vfskit(t, "ls", root+"/d1", root+"/missing", root+"/d2")
	assert.Equal(t, ExitFailure, r.code)
	assert.Equal(t, root+"/d1:\na\n\n"+root+"/d2:\nb\n", r.stdout, "no header for the listing that failed")
	assert.Equal(t, "vfskit: list "+root+"/missing: file does not exist\n", r.stderr)
	assert.Equal(t, "a\n", ok(t, "ls", root+"/d1"), "one URI: no header")

	r = vfskit(t, "stat", root+"/d1/a", root+"/missing", root+"/d2/b")
	assert.Equal(t, ExitFailure, r.code)
	blocks := strings.Split(r.stdout, "\n\n")
	require.Len(t, blocks, 2, r.stdout)
	assert.Contains(t, blocks[0], "Path:        "+root+"/d1/a\n")
	assert.Contains(t, blocks[1], "Path:        "+root+"/d2/b\n")
	assert.Contains(t, blocks[1], "Size:        2 (2 B)\n")
	assert.Contains(t, r.stderr, "missing")
}

// TestJSON: ls --json and stat --json print one object per line, with every
// field, and hide a password in the URI.
func TestJSON(t *testing.T) {
	root := memRoot(t)
	writeTo(t, root+"/d/a", "AAA")
	writeTo(t, root+"/d/sub/b", "B")

	decode := func(out string) []map[string]any {
		var objs []map[string]any
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &m), "line %q", line)
			objs = append(objs, m)
		}
		return objs
	}
	objs := decode(ok(t, "ls", "--json", root+"/d"))
	require.Len(t, objs, 2)
	assert.Equal(t, root+"/d/a", objs[0]["path"])
	assert.Equal(t, "a", objs[0]["name"])
	assert.Equal(t, "file", objs[0]["type"])
	assert.Equal(t, float64(3), objs[0]["size"])
	assert.NotEmpty(t, objs[0]["modTime"])
	assert.Equal(t, "sub", objs[1]["name"], "no trailing slash in JSON: type says dir")
	assert.Equal(t, "dir", objs[1]["type"])

	objs = decode(ok(t, "ls", "--json", "-R", root+"/d", root+"/d/a"))
	names := []any{}
	for _, o := range objs {
		names = append(names, o["name"])
	}
	assert.Equal(t, []any{"a", "sub", "sub/b", "a"}, names, "no headers between URIs")

	objs = decode(ok(t, "stat", "--json", root+"/d", root+"/d/sub/b"))
	require.Len(t, objs, 2)
	assert.Equal(t, root+"/d", objs[0]["path"])
	assert.Equal(t, "dir", objs[0]["type"])
	assert.Equal(t, root+"/d/sub/b", objs[1]["path"])
	assert.Equal(t, float64(1), objs[1]["size"])
	assert.Equal(t, root+"/", objs[1]["fileSystem"])
	assert.Equal(t, "FileSystem", objs[1]["kind"])
	assert.NotContains(t, objs[1], "name")

	secret := "memory://user:hunter2@" + strings.TrimPrefix(memRoot(t), "memory://") + "-pw"
	writeTo(t, secret+"/f", "x")
	for _, args := range [][]string{{"ls", "--json", secret + "/"}, {"stat", "--json", secret + "/f"}, {"ls", secret + "/", secret + "/f"}} {
		out := ok(t, args...)
		assert.NotContains(t, out, "hunter2", "%q", args)
		assert.Contains(t, out, "xxxxx", "%q", args)
	}
}

// TestVersion formats build information as --version prints it.
func TestVersion(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/vfskit/vfskit", Version: "v1.2.0"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef"},
			{Key: "vcs.time", Value: "2026-12-03T07:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		}}
	assert.Equal(t, "vfskit v1.2.0 (commit 0123456789abcdef, 2026-12-03T07:00:00Z, modified; go1.26.0)", versionOf(info))
	assert.Equal(t, "vfskit (devel) (go1.26.0)", versionOf(&debug.BuildInfo{GoVersion: "go1.26.0"}))
	out := ok(t, "--version")
	assert.True(t, strings.HasPrefix(out, "vfskit "), out)
	assert.Equal(t, version()+"\n", out)
}

// TestCompletion: cobra's completion scripts for the usual shells.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "bash completion V2 for vfskit", "zsh": "#compdef vfskit", "fish": "fish completion for vfskit",
		"powershell": "powershell completion for vfskit",
	} {
		assert.Contains(t, ok(t, "completion", shell), want, shell)
	}
	fails(t, ExitUsage, "completion", "tcsh")
	out := ok(t, "__complete", "checkpoints", "")
	for _, sub := range []string{"list", "inspect", "gc"} {
		assert.Contains(t, out, sub+"\t")
	}
}

// TestNoCommand: vfskit alone prints its usage on standard error and exits 2.
func TestNoCommand(t *testing.T) {
	for _, args := range [][]string{{}, {"--log-level", "debug"}} {
		r := vfskit(t, args...)
		assert.Equal(t, ExitUsage, r.code)
		assert.Empty(t, r.stdout)
		assert.Contains(t, r.stderr, "Usage:\n  vfskit [flags]\n  vfskit [command]")
		assert.Contains(t, r.stderr, "vfskit: no command given\n")
	}
}
