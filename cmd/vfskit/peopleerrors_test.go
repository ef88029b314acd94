package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// TestUnknownSchemeSuggests runs the built binary on URIs whose scheme it
// does not serve: each is a usage error (exit 2) whose one line names the
// closest scheme served, with no advice meant for a Go programmer.
func TestUnknownSchemeSuggests(t *testing.T) {
	bin := buildVfskit(t)
	run := runner(t, bin, t.TempDir(), nil)
	for scheme, want := range map[string]string{"gcs": "gs", "GCS": "gs", "azure": "azblob", "s4": "s3", "mem": "memory", "fiel": "file", "azbolb": "azblob"} {
		for _, cmd := range [][]string{{"ls", scheme + "://b/x"}, {"cp", "x", scheme + "://b/x"}, {"checkpoints", "list", scheme + "://b/x"}} {
			_, stderr, code := run(cmd...)
			assert.Equal(t, 2, code, "%v: %s", cmd, stderr)
			first, _, _ := strings.Cut(stderr, "\n")
			assert.True(t, strings.HasPrefix(first, "vfskit: "+strings.ToLower(scheme)+":// is not a scheme here; did you mean "+want+"://?"), "%v: %q", cmd, stderr)
			assert.NotContains(t, stderr, "import the backend")
			assert.NotContains(t, stderr, "Register")
		}
	}
	_, stderr, code := run("ls", "hdfs://namenode/x")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `hdfs:// is not a scheme here (in "hdfs://namenode/"; the schemes served: `)
	assert.NotContains(t, stderr, "did you mean")
	// abfs:// is served (by azblob), never "not a scheme": this authority
	// is not one it takes.
	_, stderr, _ = run("ls", "abfs://c/x")
	assert.Contains(t, stderr, "CONTAINER@ACCOUNT.dfs.core.windows.net")
	assert.NotContains(t, stderr, "not a scheme")
}

// TestDemoHelpNamesEveryScheme checks that demo --help names, for
// --checkpoint-dir, every scheme vfskit --help lists.
func TestDemoHelpNamesEveryScheme(t *testing.T) {
	bin := buildVfskit(t)
	run := runner(t, bin, t.TempDir(), nil)
	out, _, code := run("demo", "--help")
	require.Equal(t, 0, code)
	var flag string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--checkpoint-dir string") {
			flag = l
		}
	}
	require.NotEmpty(t, flag, out)
	for _, s := range []string{"file", "memory", "s3", "s3a", "s3p", "gs", "azblob", "abfs", "abfss", "wasb", "wasbs"} {
		assert.Regexp(t, `[ (]`+s+`://`, flag, "demo --help names %s://", s)
	}
}

// TestCopyIntoTrailingSlash runs cp -r into a destination written with a
// trailing "/" on every scheme that can be written: what cp --help says
// (a directory copied with -r becomes a destination that does not exist
// yet; into one that exists it is copied as DST/<its name>) is what each does.
func TestCopyIntoTrailingSlash(t *testing.T) {
	bin := buildVfskit(t)
	b := newS3Bucket(t)
	gcs := gcstest.Shared(t)
	az := azuritetest.Shared(t)
	container, err := az.NewContainer(t.Context())
	require.NoError(t, err)
	work := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(work, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "src", "a.txt"), []byte("A"), 0o644))

	help, _, code := runner(t, bin, work, nil)("cp", "--help")
	require.Equal(t, 0, code)
	assert.Contains(t, strings.Join(strings.Fields(help), " "),
		`A DST ending in "/" (s3://bucket/dir/) is a directory even before it exists: a file is copied into it, while a directory copied with -r becomes it when it does not exist yet`)

	for _, st := range []struct {
		root string
		env  []string
		pre  []string
	}{
		{"file://" + t.TempDir(), nil, nil},
		{"s3://" + b.name + "/p", b.s3Credentials(), b.flags},
		{"gs://" + gcs.NewBucket() + "/p", []string{gcstest.EmulatorHostEnv + "=" + gcs.Host}, nil},
		{"azblob://" + container + "/p", []string{azuritetest.ConnectionStringEnv + "=" + az.ConnectionString}, nil},
	} {
		t.Run(strings.SplitN(st.root, ":", 2)[0], func(t *testing.T) {
			r := runner(t, bin, work, st.env)
			run := func(args ...string) string {
				out, stderr, code := r(append(append([]string(nil), st.pre...), args...)...)
				require.Equal(t, 0, code, "%v: %s", args, stderr)
				return out
			}
			run("cp", "-r", "src", st.root+"/trail/")
			assert.Equal(t, "a.txt\n", run("ls", "-R", st.root+"/trail"), "a directory becomes a destination with / that does not exist")
			run("cp", "-r", "src", st.root+"/trail/")
			assert.Equal(t, "a.txt\nsrc/\nsrc/a.txt\n", run("ls", "-R", st.root+"/trail"), "and is copied into one that exists")
			run("cp", "src/a.txt", st.root+"/file/")
			assert.Equal(t, "a.txt\n", run("ls", "-R", st.root+"/file"), "a file is copied into it")
		})
	}
}

// TestListHidesOwnTemporaryFiles checks that ls --help and the docs say what
// vfskit ls -a shows of a given-up recoverable stream's in-progress file on
// file://: nothing, while the directory holds it.
func TestListHidesOwnTemporaryFiles(t *testing.T) {
	bin := buildVfskit(t)
	dir := t.TempDir()
	ctx := t.Context()
	fsys := local.New()
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	target := vfs.MustPath("file://" + filepath.Join(dir, "out.txt"))
	s, err := w.Open(ctx, target)
	require.NoError(t, err)
	_, err = s.Write([]byte("half"))
	require.NoError(t, err)
	_, err = s.Persist(ctx)
	require.NoError(t, err) // given up: never closed nor committed
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".notes"), []byte("n"), 0o644))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 2, "the in-progress file and .notes are in the directory")

	run := runner(t, bin, dir, nil)
	out, stderr, code := run("ls", "-a", "file://"+dir)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, ".notes\n", out, "ls -a lists the user's dot file, not vfskit's in-progress file")
	help, _, _ := run("ls", "--help")
	assert.Contains(t, strings.Join(strings.Fields(help), " "), "vfskit's own temporary files are never listed, with -a neither")
	doc, err := os.ReadFile("../../docs/exactly-once.md")
	require.NoError(t, err)
	assert.Contains(t, string(doc), "which vfskit's listings leave out, `vfskit ls -a` too (the system's `ls -a` shows it)")
	assert.NotContains(t, string(doc), "(`ls -a` shows it)")
}
