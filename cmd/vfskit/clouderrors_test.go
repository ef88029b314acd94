package main

import (
	"encoding/base64"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/gcstest"
)

// TestCloudErrors runs the built binary into each configuration mistake a
// user makes on each cloud scheme, against SeaweedFS, fake-gcs-server and
// Azurite: missing credentials, a missing bucket or container, a wrong key.
// Each fails with exit status 1 and one line that names the URI, the cause
// and the fix (the variable or flag), with no SDK dump and no stray SDK log
// line; under --log-level debug the SDK's own text is shown too. (An
// unreachable endpoint is TestUnreachableEndpoints.) TLS spoken to each
// emulator's plain-HTTP port fails at once, naming the cause.
// fake-gcs-server checks no credentials: for gs://, a proxy in front of it
// answers every request as GCS answers a key or token it refuses (401), or
// credentials that lack the permission (403, which rm -f does not take for a
// missing file).
func TestCloudErrors(t *testing.T) {
	bin := buildVfskit(t)
	b := newS3Bucket(t)
	s3srv, bucket, s3Flags := b.srv, b.name, b.flags
	gcs := gcstest.Shared(t)
	gsBucket := gcs.NewBucket()
	az := azuritetest.Shared(t)
	container, err := az.NewContainer(t.Context())
	require.NoError(t, err)
	gcsRefused := gcsAnswering(t, gcs, http.StatusUnauthorized, gcstest.InvalidCredentials)
	gcsForbidden := gcsAnswering(t, gcs, http.StatusForbidden, gcstest.NoListPermission)

	awsCreds := func(secret string) []string {
		return []string{"AWS_ACCESS_KEY_ID=" + s3srv.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + secret, "AWS_REGION=" + s3srv.Region,
			"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"}
	}
	noAWS := []string{"AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"}
	wrongKey := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 64)))
	azure := func(key string) []string {
		return []string{azuritetest.ConnectionStringEnv + "=DefaultEndpointsProtocol=http;AccountName=" + azuritetest.Account +
			";AccountKey=" + key + ";BlobEndpoint=" + az.Endpoint + ";"}
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want []string // each in the one line
		// sdk: the SDK's error is replaced, and shown under --log-level debug
		sdk bool
		// via, when set, is the proxy that must have answered each run.
		via *faultproxy.Proxy
		// detail, when set, is part of the SDK's text: not in the one line,
		// shown under --log-level debug.
		detail string
	}{
		{"s3/no-credentials", noAWS, append(s3Flags, "ls", "s3://"+bucket+"/"), []string{"s3://" + bucket, "no AWS credentials found", "AWS_ACCESS_KEY_ID"}, true, nil, ""},
		{"s3/no-bucket", awsCreds(s3srv.SecretAccessKey), append(s3Flags, "ls", "s3://no-such-bucket-x/"), []string{"s3://no-such-bucket-x", "does not exist", "--endpoint"}, true, nil, ""},
		{"s3/wrong-key", awsCreds("wrong-secret"), append(s3Flags, "ls", "s3://"+bucket+"/"), []string{"s3://" + bucket, "credentials refused", "AWS_SECRET_ACCESS_KEY"}, true, nil, ""},
		{"gs/no-credentials", []string{"GOOGLE_APPLICATION_CREDENTIALS=/nonexistent/key.json"}, []string{"ls", "gs://" + gsBucket + "/"}, []string{"gs://" + gsBucket, "no Google credentials found", "GOOGLE_APPLICATION_CREDENTIALS"}, false, nil, ""},
		{"gs/no-bucket", []string{gcstest.EmulatorHostEnv + "=" + gcs.Host}, []string{"ls", "gs://no-such-bucket-x/"}, []string{"gs://no-such-bucket-x", "does not exist"}, true, nil, ""},
		{"gs/wrong-key", []string{gcstest.EmulatorHostEnv + "=" + hostOf(gcsRefused)}, []string{"ls", "gs://" + gsBucket + "/"}, []string{"gs://" + gsBucket, "Google refused the credentials", "GOOGLE_APPLICATION_CREDENTIALS"}, true, gcsRefused, "Invalid Credentials"},
		{"gs/forbidden", []string{gcstest.EmulatorHostEnv + "=" + hostOf(gcsForbidden)}, []string{"ls", "gs://" + gsBucket + "/"}, []string{"gs://" + gsBucket, "access denied", "IAM roles", "GOOGLE_APPLICATION_CREDENTIALS"}, true, gcsForbidden, "does not have storage.objects.list access"},
		{"gs/forbidden-rm-f", []string{gcstest.EmulatorHostEnv + "=" + hostOf(gcsForbidden)}, []string{"rm", "-f", "gs://" + gsBucket + "/x"}, []string{"gs://" + gsBucket + "/x", "access denied", "GOOGLE_APPLICATION_CREDENTIALS"}, true, gcsForbidden, "does not have storage.objects.list access"},
		{"azblob/no-credentials", nil, []string{"ls", "azblob://" + container + "/"}, []string{"azblob://" + container, "no Azure storage account or credentials", azuritetest.ConnectionStringEnv}, false, nil, ""},
		{"azblob/no-container", azure(azuritetest.Key), []string{"ls", "azblob://no-such-container/"}, []string{"azblob://no-such-container", "does not exist", azuritetest.ConnectionStringEnv}, true, nil, ""},
		{"azblob/wrong-key", azure(wrongKey), []string{"ls", "azblob://" + container + "/"}, []string{"azblob://" + container, "refused the credentials", "AccountKey"}, true, nil, ""},
		// TLS spoken to each emulator's plain-HTTP port.
		{"s3/tls-to-http", awsCreds(s3srv.SecretAccessKey), []string{"--endpoint", tlsTo(s3srv.Endpoint), "--path-style", "ls", "s3://" + bucket + "/"}, []string{"s3://" + bucket, "speaks plain HTTP, not TLS"}, false, nil, ""},
		{"gs/tls-to-http", []string{gcstest.EmulatorHostEnv + "=https://" + gcs.Host}, []string{"ls", "gs://" + gsBucket + "/"}, []string{"gs://" + gsBucket, "speaks plain HTTP, not TLS", gcstest.EmulatorHostEnv}, false, nil, ""},
		{"azblob/tls-to-http", []string{azuritetest.ConnectionStringEnv + "=DefaultEndpointsProtocol=https;AccountName=" + azuritetest.Account +
			";AccountKey=" + azuritetest.Key + ";BlobEndpoint=" + tlsTo(az.Endpoint) + ";"}, []string{"ls", "azblob://" + container + "/"}, []string{"azblob://" + container, "speaks plain HTTP, not TLS"}, false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(level string) (stderr string, code int) {
				answered := 0
				if tc.via != nil {
					answered = tc.via.Counts().Answered
				}
				cmd := exec.Command(bin, append([]string{"--log-level", level}, tc.args...)...)
				cmd.Env = append(cleanCloudEnv(), tc.env...)
				cmd.Dir = t.TempDir()
				_, stderr, code = runCmd(t, cmd)
				if tc.via != nil {
					assert.Greater(t, tc.via.Counts().Answered, answered, "the proxy answered the command's requests")
				}
				return stderr, code
			}
			for _, level := range []string{"warn", "error"} {
				stderr, code := run(level)
				assert.Equal(t, 1, code, stderr)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line at --log-level %s: %q", level, stderr)
				for _, w := range tc.want {
					assert.Contains(t, stderr, w)
				}
				assert.NotContains(t, stderr, `\n`, "no literal newline")
				assert.NotContains(t, stderr, "file does not exist:", "the message says what is missing")
				assert.NotContains(t, stderr, "RESPONSE", "no SDK dump")
				if tc.detail != "" {
					assert.NotContains(t, stderr, tc.detail, "the SDK's text only under --log-level debug")
				}
			}
			if tc.sdk {
				stderr, code := run("debug")
				assert.Equal(t, 1, code, stderr)
				assert.Contains(t, stderr, "sdk_error=", "the SDK's text under --log-level debug")
				assert.Contains(t, stderr, tc.detail)
			}
		})
	}
}

// gcsAnswering starts a proxy in front of the emulator that answers every
// request itself with status and GCS's JSON error body.
func gcsAnswering(t *testing.T, gcs *gcstest.Server, status int, body string) *faultproxy.Proxy {
	p, err := faultproxy.Start(gcs.Endpoint)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	p.Set(faultproxy.Faults{Answer: &faultproxy.Answer{Status: status, Body: body,
		Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}}}})
	return p
}

// hostOf is the host:port of a proxy's URL.
func hostOf(p *faultproxy.Proxy) string { return strings.TrimPrefix(p.URL(), "http://") }

// tlsTo turns the http:// URL of a plain-HTTP server into https://.
func tlsTo(url string) string { return "https://" + strings.TrimPrefix(url, "http://") }
