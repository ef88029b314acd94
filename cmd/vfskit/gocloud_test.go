package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/gcstest"
)

// testBinaryGCS copies a file to gs:// and back with the binary, which reaches
// fake-gcs-server through STORAGE_EMULATOR_HOST as any Google client does.
func testBinaryGCS(t *testing.T, bin string) {
	srv, err := gcstest.Start()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	testBinaryRoundTrip(t, bin, "gs://"+srv.NewBucket(), []string{gcstest.EmulatorHostEnv + "=" + srv.Host})
}

// testBinaryAzure does the same on azblob:// against Azurite, reached with
// AZURE_STORAGE_CONNECTION_STRING.
func testBinaryAzure(t *testing.T, bin string) {
	srv := azuritetest.Shared(t)
	container, err := srv.NewContainer(t.Context())
	require.NoError(t, err)
	env := []string{azuritetest.ConnectionStringEnv + "=" + srv.ConnectionString}
	testBinaryRoundTrip(t, bin, "azblob://"+container, env)

	// Flink's and Hadoop's URIs of the account reach the same blobs.
	for _, root := range []string{
		"abfss://" + container + "@" + azuritetest.Account + ".dfs.core.windows.net",
		"wasbs://" + container + "@" + azuritetest.Account + ".blob.core.windows.net",
	} {
		testBinaryRoundTrip(t, bin, root, env)
	}
	run := runner(t, bin, t.TempDir(), env)
	_, stderr, code := run("cp", "-", "abfss://"+container+"@"+azuritetest.Account+".dfs.core.windows.net/pasted/x.txt")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = run("stat", "azblob://"+container+"/pasted/x.txt")
	assert.Equal(t, 0, code, "a blob written through abfss:// is the azblob:// blob: %s", stderr)
	_, stderr, code = run("ls", "abfss://"+container+"@someoneelse.dfs.core.windows.net/")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `storage account "someoneelse" is not the configured one`)
}

// testBinaryRoundTrip copies a local file to root/in/a.bin, lists it, reads it
// back byte for byte and removes it.
func testBinaryRoundTrip(t *testing.T, bin, root string, env []string) {
	work := t.TempDir()
	run := runner(t, bin, work, env)
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(filepath.Join(work, "a.bin"), data, 0o644))

	_, stderr, code := run("cp", "a.bin", root+"/in/a.bin")
	require.Equal(t, 0, code, stderr)
	out, stderr, code := run("ls", root+"/in")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "a.bin")
	_, stderr, code = run("cp", root+"/in/a.bin", "b.bin")
	require.Equal(t, 0, code, stderr)
	got, err := os.ReadFile(filepath.Join(work, "b.bin"))
	require.NoError(t, err)
	require.Equal(t, data, got, "the copy back differs")
	_, stderr, code = run("rm", "-r", root+"/in")
	require.Equal(t, 0, code, stderr)
	_, stderr, code = run("cat", root+"/in/a.bin")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "does not exist")
}
