package cli

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/local"
	_ "github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/cli/cliazblob"
	"github.com/vfskit/vfskit/cli/cligcs"
	"github.com/vfskit/vfskit/cli/clis3"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/s3test"
)

func TestMain(m *testing.M) {
	code := s3test.Main(m)
	azuritetest.Stop()
	os.Exit(code)
}

// result is what one in-process command line produced.
type result struct {
	code           int
	stdout, stderr string
}

// globalArgs are put in front of every command line a test runs (S3 tests set
// --endpoint and --path-style).
var globalArgs []string

// vfskit runs one command line in-process, as the binary would.
func vfskit(t *testing.T, args ...string) result {
	t.Helper()
	args = append(append([]string(nil), globalArgs...), args...)
	var out, errOut bytes.Buffer
	code := Run(withLastingMemory(context.Background()), args, Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return false }}, allSchemes...)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// allSchemes are the Options of the vfskit binary (clis3's set first, see
// testApp), and the test's keeper://
// (see rm_test.go), added as an integrator adds a scheme.
var allSchemes = []Option{WithSchemes(clis3.Schemes(), cligcs.Schemes(), cliazblob.Schemes()), WithScheme("keeper", keeperFactory), WithScheme("hook", hookFactory)}

// testApp is an app as a command line of the vfskit binary (allSchemes) has
// it, with the s3 backend's process-wide options standing in for the S3 flags.
func testApp(t *testing.T) *app {
	t.Helper()
	a := &app{cfg: newConfig(allSchemes)}
	reg, err := a.registry()
	require.NoError(t, err)
	require.NoError(t, a.setupSchemes())
	a.factories[0] = s3.Factory(s3.CurrentOptions()) // clis3's set: the library's settings stand in for the flags
	a.reg = reg
	return a
}

// ok runs a command line that must succeed and returns its standard output.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := vfskit(t, args...)
	require.Equal(t, ExitOK, r.code, "vfskit %q failed: %s", args, r.stderr)
	return r.stdout
}

// fails runs a command line that must fail with code and returns its standard
// error.
func fails(t *testing.T, code int, args ...string) string {
	t.Helper()
	r := vfskit(t, args...)
	require.Equal(t, code, r.code, "vfskit %q: stdout %q stderr %q", args, r.stdout, r.stderr)
	require.NotEmpty(t, r.stderr)
	return r.stderr
}

func TestHelpCommand(t *testing.T) {
	assert.Contains(t, ok(t, "help", "checkpoints", "gc"), "vfskit checkpoints gc DIR --retain N")
	assert.Contains(t, ok(t, "help"), "Available Commands:")
	assert.Contains(t, fails(t, ExitUsage, "help", "nosuch"), `unknown help topic "nosuch"`)
	assert.Contains(t, fails(t, ExitUsage, "help", "checkpoints", "nosuch"), `unknown help topic "checkpoints nosuch"`)
}

// TestInterrupted checks that a command cancelled through its context (Ctrl-C
// in main) fails with exit status 130 and says it was interrupted.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out, errOut bytes.Buffer
	code := Run(ctx, demoArgs(memRoot(t)+"/c"), Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return false }})
	assert.Equal(t, ExitInterrupted, code)
	assert.Regexp(t, `(?m)^vfskit: interrupted: .*context canceled$`, errOut.String())
	assert.Empty(t, out.String(), "no summary for an interrupted demo")
}
