package azuritetest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestVersionMatchesInstallScript(t *testing.T) {
	root, err := testenv.RepoRoot()
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join(root, "scripts", "install-azurite.sh"))
	require.NoError(t, err)
	m := regexp.MustCompile(`AZURITE_VERSION:-([^}]+)}`).FindSubmatch(script)
	require.NotNil(t, m, "scripts/install-azurite.sh names no default version")
	assert.Equal(t, Version, string(m[1]))
}

func TestFindHonoursBinEnv(t *testing.T) {
	t.Setenv(BinEnv, "/opt/azurite/bin/azurite-blob")
	bin, err := Find(false)
	require.NoError(t, err)
	assert.Equal(t, "/opt/azurite/bin/azurite-blob", bin)
}

func TestStartFailsClearlyOnAMissingCommand(t *testing.T) {
	_, err := Start(context.Background(), filepath.Join(t.TempDir(), "no-azurite"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no-azurite")
}

// TestSharedServesContainers starts the shared Azurite (a skip without Node.js,
// a failure under VFSKIT_REQUIRE_AZURITE=1) and creates two containers.
func TestSharedServesContainers(t *testing.T) {
	srv := Shared(t)
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+/devstoreaccount1$`, srv.Endpoint)
	assert.Equal(t, srv.ConnectionString, os.Getenv(ConnectionStringEnv))
	a, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	b, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	assert.NotEqual(t, a, b)
}
