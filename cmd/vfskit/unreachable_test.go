package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/stalltest"
)

// refusedBound is the longest a command may take against a port nobody listens
// on: the retries of a refused connection take about 4 s (docs/reliability.md);
// the rest is the process starting on a busy machine.
const refusedBound = 20 * time.Second

// TestUnreachableEndpoints runs the built binary against endpoints that do not
// serve, on every cloud scheme: a port that accepts and never answers (the
// request's no-progress timeout, set to 1 s in the URI, ends it), a closed
// port (refused connections are retried briefly, then the command fails
// within refusedBound), and an https:// endpoint on a plain-HTTP port (fails
// at once, not retried). Each fails with exit status 1 and one line naming
// the cause.
func TestUnreachableEndpoints(t *testing.T) {
	bin := buildVfskit(t)
	stalled := stalltest.Listen(t)
	closed := closedPort(t)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadRequest) }))
	t.Cleanup(plain.Close)
	plainHost := strings.TrimPrefix(plain.URL, "http://")

	awsEnv := []string{"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true", "AWS_ENDPOINT_URL_S3=", "AWS_ENDPOINT_URL=", "AWS_PROFILE=", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"}
	azure := func(endpoint string) []string {
		return []string{"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;" +
			"AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=" + endpoint + "/devstoreaccount1;"}
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"s3/stalled", awsEnv, []string{"--endpoint", "http://" + stalled, "--path-style", "ls", "s3://bucket?request_timeout=1s"}, "made no progress for 1s"},
		{"gs/stalled", []string{"STORAGE_EMULATOR_HOST=" + stalled}, []string{"ls", "gs://bucket?request_timeout=1s"}, "made no progress for 1s"},
		{"azblob/stalled", azure("http://" + stalled), []string{"ls", "azblob://container?request_timeout=1s"}, "made no progress for 1s"},
		{"s3/refused", awsEnv, []string{"--endpoint", "http://" + closed, "--path-style", "ls", "s3://bucket/"}, "connection refused"},
		{"gs/refused", []string{"STORAGE_EMULATOR_HOST=" + closed}, []string{"ls", "gs://bucket/"}, "connection refused"},
		{"azblob/refused", azure("http://" + closed), []string{"ls", "azblob://container/"}, "connection refused"},
		{"s3/tls-to-http", awsEnv, []string{"--endpoint", "https://" + plainHost, "--path-style", "ls", "s3://bucket/"}, "speaks plain HTTP, not TLS"},
		{"gs/tls-to-http", []string{"STORAGE_EMULATOR_HOST=https://" + plainHost}, []string{"ls", "gs://bucket/"}, "speaks plain HTTP, not TLS"},
		{"azblob/tls-to-http", azure("https://" + plainHost), []string{"ls", "azblob://container/"}, "speaks plain HTTP, not TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, tc.args...)
			cmd.Env = append(cleanCloudEnv(), tc.env...)
			cmd.Dir = t.TempDir()
			start := time.Now()
			_, stderr, code := runCmd(t, cmd)
			took := time.Since(start)
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			assert.Less(t, took, refusedBound, "the command gave up in time")
		})
	}
}

// cleanCloudEnv is the test's environment without any cloud configuration.
func cleanCloudEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AWS_") || strings.HasPrefix(k, "AZURE_") || strings.HasPrefix(k, "GOOGLE_") ||
			strings.HasPrefix(k, "STORAGE_EMULATOR") || strings.HasPrefix(k, "VFSKIT_S3") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// closedPort returns a host:port on 127.0.0.1 that nobody listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}
