package cli

import (
	"bytes"
	"context"
	"net/url"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/cli/clis3"
	"github.com/vfskit/vfskit/vfs"
)

// TestRunServesOnlyItsOptions checks that a command line reaches the schemes
// its Options give, through a registry of its own: vfs's default registry is
// left as it was, a scheme only the default registry has is unknown (exit 2),
// and a scheme given twice fails (exit 1) naming it.
func TestRunServesOnlyItsOptions(t *testing.T) {
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "mine", Authority: "x"})
	require.NoError(t, err)
	require.NoError(t, vfs.WriteFile(t.Context(), fsys, vfs.MustPath("mine://x/a.txt"), []byte("mine"), vfs.NoOverwrite))
	mine := WithScheme("mine", func(context.Context, *url.URL) (vfs.FileSystem, error) { return fsys, nil })
	before := vfs.DefaultRegistry().Schemes()

	run := func(args []string, opts ...Option) (int, string, string) {
		var out, errOut bytes.Buffer
		code := Run(t.Context(), args, Stdio{Out: &out, Err: &errOut}, opts...)
		return code, out.String(), errOut.String()
	}
	uri := "mine://x/a.txt"
	code, out, stderr := run([]string{"cat", uri}, mine)
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, "mine", out)
	assert.Equal(t, before, vfs.DefaultRegistry().Schemes(), "Run changed vfs's default registry")

	code, _, stderr = run([]string{"cat", uri})
	assert.Equal(t, ExitUsage, code, "without the option mine:// is unknown")
	assert.Contains(t, stderr, "mine:// is not a scheme here")

	code, _, stderr = run([]string{"cat", "memory://a/b"}, WithSchemes(clis3.Schemes()), WithScheme("S3", memfs.Factory))
	assert.Equal(t, ExitFailure, code)
	assert.Contains(t, stderr, `"s3"`)
	assert.Contains(t, stderr, "already registered")

	code, _, stderr = run([]string{"--endpoint", "http://127.0.0.1:1", "ls", "memory://a/"})
	assert.Equal(t, ExitUsage, code, "without clis3's set there are no S3 flags")
	assert.Contains(t, stderr, "--endpoint")
}
