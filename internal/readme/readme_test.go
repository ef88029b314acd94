package readme_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/layer/limit"
	"github.com/vfskit/vfskit/vfs"
)

import _ "github.com/vfskit/vfskit/backends/s3" // registers s3://, s3a://, s3p://

import _ "github.com/vfskit/vfskit/backends/gcs" // registers gs://

import _ "github.com/vfskit/vfskit/backends/azblob" // registers azblob://

// snippetFiles hold the Go snippets of README.md and docs/*.md (the library
// at a glance is vfs's Example, the composed layers layer/otel's Example_s3).
var snippetFiles = []string{"internal/readme/readme_test.go", "internal/readme/checkpoint_test.go",
	"vfs/example_test.go", "internal/readme/myvfskit/main.go", "layer/otel/example_s3_test.go"}

// TestREADMESnippets checks that every ```go block of README.md and of the
// guides in docs/ is code that compiles here: its lines (trimmed, blank ones
// skipped) appear in this order in one of snippetFiles.
func TestREADMESnippets(t *testing.T) {
	root := moduleRoot(t)
	var sources [][]string
	for _, f := range snippetFiles {
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		sources = append(sources, trimmedLines(string(b)))
	}
	total := 0
	for _, doc := range markdownFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		for i, block := range goBlocks(string(text)) {
			total++
			want := trimmedLines(block)
			found := false
			for _, src := range sources {
				found = found || subsequence(want, src)
			}
			assert.True(t, found, "%s: Go snippet %d is not compiled code: put the same lines (in a function, with whatever they need around them) into one of %v, or fix the snippet to match:\n%s", doc, i+1, snippetFiles, block)
		}
	}
	require.GreaterOrEqual(t, total, 8, "README.md and docs/ have their Go snippets")
}

// TestREADMESnippetsCompile compiles each Go snippet of README.md that starts
// with its imports exactly as the README shows it, as a package of its own
// (through go build -overlay: nothing is written into the module), so a
// snippet that misses an import, or imports what it does not use, fails.
func TestREADMESnippetsCompile(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	dir := t.TempDir()
	replace := map[string]string{}
	var pkgs []string
	for i, block := range goBlocks(string(readme)) {
		if !strings.HasPrefix(strings.TrimSpace(block), "import") {
			continue
		}
		src := filepath.Join(dir, fmt.Sprintf("snippet%d.go", i+1))
		require.NoError(t, os.WriteFile(src, []byte("package snippet\n\n"+block+"\n"), 0o600))
		pkg := fmt.Sprintf("internal/readme/snippet%d", i+1)
		replace[filepath.Join(root, pkg, "snippet.go")] = src
		pkgs = append(pkgs, "./"+pkg)
	}
	require.GreaterOrEqual(t, len(pkgs), 2, "README.md shows its library snippets with their imports")
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	require.NoError(t, err)
	overlayFile := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(overlayFile, overlay, 0o600))
	build := exec.Command("go", append([]string{"build", "-overlay", overlayFile}, pkgs...)...)
	build.Dir = root
	out, err := build.CombinedOutput()
	assert.NoError(t, err, "a README.md snippet does not compile as shown:\n%s", out)
}

// markdownFiles returns README.md and the guides in docs/, relative to root.
func markdownFiles(t *testing.T, root string) []string {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	files := []string{"README.md", filepath.Join("bench", "README.md")}
	for _, d := range docs {
		rel, err := filepath.Rel(root, d)
		require.NoError(t, err)
		files = append(files, rel)
	}
	return files
}

// TestSnippetCheckFails: a line that is not in the compiled code is caught.
func TestSnippetCheckFails(t *testing.T) {
	src := trimmedLines("a := 1\n\tb := 2\nc := 3\n")
	assert.True(t, subsequence(trimmedLines("a := 1\n  c := 3"), src))
	assert.False(t, subsequence(trimmedLines("c := 3\na := 1"), src), "order matters")
	assert.False(t, subsequence(trimmedLines("a := 1\nout.Abort()"), src))
	assert.Equal(t, []string{"x", "y"}, goBlocks("text\n```go\nx\n```\n```sh\nz\n```\n```go\ny\n```\n"))
}

// moduleRoot returns the directory holding go.mod.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the test")
		dir = parent
	}
}

// goBlocks returns the contents of the ```go fenced blocks of markdown.
func goBlocks(markdown string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(markdown, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```go":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	return blocks
}

// trimmedLines returns s's lines without surrounding space, blank ones left out.
func trimmedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// subsequence reports whether want's lines all appear in src in order.
func subsequence(want, src []string) bool {
	i := 0
	for _, l := range src {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	return i == len(want)
}

// registerSFTP is docs/schemes.md's "Adding a scheme" snippet (compiled, not run:
// dialSFTP and sftpfs stand for an SFTP client library).
func registerSFTP() {
	vfs.Register("sftp", func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
		client, err := dialSFTP(ctx, u.Host)
		if err != nil {
			return nil, err
		}
		return aferofs.New(sftpfs.New(client), aferofs.Options{Scheme: "sftp", Authority: u.Host})
	})
}

var _ = registerSFTP

type sftpClient struct{}

func dialSFTP(_ context.Context, host string) (*sftpClient, error) {
	return nil, fmt.Errorf("no SFTP server %q here", host)
}

var sftpfs = struct{ New func(*sftpClient) afero.Fs }{New: func(*sftpClient) afero.Fs { return afero.NewMemMapFs() }}

// TestConformance is docs/schemes.md's conformance snippet, run on memory://.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Harness{
		// New returns the file system under test and an empty directory the test owns.
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			fsys, root := memfs.NewTest(t) // yours: myfs.New() and a fresh directory, removed in t.Cleanup
			return fsys, root.Join("conformance")
		},
	})
}

// s3Get is docs/schemes.md's S3 snippet (compiled, not run: it needs credentials).
func s3Get(ctx context.Context) (vfs.FileSystem, error) {
	fsys, err := vfs.Get(ctx, "s3://my-bucket/")
	return fsys, err
}

var _ = s3Get

// gcsGet and azblobGet are docs/schemes.md's GCS and Azure snippets (compiled, not
// run: they need credentials).
func gcsGet(ctx context.Context) (vfs.FileSystem, error) {
	fsys, err := vfs.Get(ctx, "gs://my-bucket/")
	return fsys, err
}

func azblobGet(ctx context.Context) (vfs.FileSystem, error) {
	fsys, err := vfs.Get(ctx, "azblob://my-container/")
	return fsys, err
}

var _, _ = gcsGet, azblobGet

// verify is docs/flink.md's checkpoints verify snippet.
func verify(ctx context.Context) error {
	m, err := checkpointstorage.ParsePathMapping("file:/state/checkpoint=s3://bucket/checkpoints")
	if err != nil {
		return err
	}
	v, err := checkpointstorage.VerifyCheckpoint(ctx, vfs.MustPath("s3://bucket/checkpoints/<job id>/chk-29"),
		checkpointstorage.WithPathMapping(m))
	if err == nil && !v.OK() {
		for _, p := range v.Problems() {
			fmt.Println(p.Problem(), p.Path) // missing, size 100, expected 16, cannot check: ...
		}
	}
	return err
}

var _ = verify

// configureLimits is docs/layers.md's per-scheme limit configuration (this
// package's tests open no s3:// file system).
func configureLimits() error {
	err := limit.Configure(vfs.DefaultRegistry(), map[string]string{
		"fs.s3.limit.total":          "2", // open streams, input + output (0 or -1: none)
		"fs.s3.limit.input":          "0",
		"fs.s3.limit.output":         "0",
		"fs.s3.limit.timeout":        "30000", // ms to wait for a free slot (0: forever)
		"fs.s3.limit.stream-timeout": "60000", // ms a stream may move no byte (0: forever)
	})
	return err
}

func TestConfigureLimits(t *testing.T) {
	require.NoError(t, configureLimits())
}
