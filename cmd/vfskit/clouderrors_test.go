package main

import (
	"encoding/base64"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/gcstest"
)

// TestCloudErrors runs the built binary into each configuration mistake a
// user makes on each cloud scheme, against SeaweedFS, fake-gcs-server and
// Azurite: missing credentials, a missing bucket or container, a wrong key.
// Each fails with exit status 1 and one line that names the URI, the cause
// and the fix (the variable or flag), with no SDK dump and no stray SDK log
// line; under --log-level debug the SDK's own text is shown too. (An
// unreachable endpoint is TestUnreachableEndpoints.) TLS spoken to each
// emulator's plain-HTTP port fails at once, naming the cause. fake-gcs-server
// checks no credentials, so gs:// has no wrong-key case here.
func TestCloudErrors(t *testing.T) {
	bin := buildVfskit(t)
	b := newS3Bucket(t)
	s3srv, bucket, s3Flags := b.srv, b.name, b.flags
	gcs := gcstest.Shared(t)
	gsBucket := gcs.NewBucket()
	az := azuritetest.Shared(t)
	container, err := az.NewContainer(t.Context())
	require.NoError(t, err)

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
	}{
		{"s3/no-credentials", noAWS, append(s3Flags, "ls", "s3://"+bucket+"/"), []string{"s3://" + bucket, "no AWS credentials found", "AWS_ACCESS_KEY_ID"}, true},
		{"s3/no-bucket", awsCreds(s3srv.SecretAccessKey), append(s3Flags, "ls", "s3://no-such-bucket-x/"), []string{"s3://no-such-bucket-x", "does not exist", "--endpoint"}, true},
		{"s3/wrong-key", awsCreds("wrong-secret"), append(s3Flags, "ls", "s3://"+bucket+"/"), []string{"s3://" + bucket, "credentials refused", "AWS_SECRET_ACCESS_KEY"}, true},
		{"gs/no-credentials", []string{"GOOGLE_APPLICATION_CREDENTIALS=/nonexistent/key.json"}, []string{"ls", "gs://" + gsBucket + "/"}, []string{"gs://" + gsBucket, "no Google credentials found", "GOOGLE_APPLICATION_CREDENTIALS"}, false},
		{"gs/no-bucket", []string{gcstest.EmulatorHostEnv + "=" + gcs.Host}, []string{"ls", "gs://no-such-bucket-x/"}, []string{"gs://no-such-bucket-x", "does not exist"}, true},
		{"azblob/no-credentials", nil, []string{"ls", "azblob://" + container + "/"}, []string{"azblob://" + container, "no Azure storage account or credentials", azuritetest.ConnectionStringEnv}, false},
		{"azblob/no-container", azure(azuritetest.Key), []string{"ls", "azblob://no-such-container/"}, []string{"azblob://no-such-container", "does not exist", azuritetest.ConnectionStringEnv}, true},
		{"azblob/wrong-key", azure(wrongKey), []string{"ls", "azblob://" + container + "/"}, []string{"azblob://" + container, "refused the credentials", "AccountKey"}, true},
		// TLS spoken to each emulator's plain-HTTP port.
		{"s3/tls-to-http", awsCreds(s3srv.SecretAccessKey), []string{"--endpoint", tlsTo(s3srv.Endpoint), "--path-style", "ls", "s3://" + bucket + "/"}, []string{"s3://" + bucket, "speaks plain HTTP, not TLS"}, false},
		{"gs/tls-to-http", []string{gcstest.EmulatorHostEnv + "=https://" + gcs.Host}, []string{"ls", "gs://" + gsBucket + "/"}, []string{"gs://" + gsBucket, "speaks plain HTTP, not TLS", gcstest.EmulatorHostEnv}, false},
		{"azblob/tls-to-http", []string{azuritetest.ConnectionStringEnv + "=DefaultEndpointsProtocol=https;AccountName=" + azuritetest.Account +
			";AccountKey=" + azuritetest.Key + ";BlobEndpoint=" + tlsTo(az.Endpoint) + ";"}, []string{"ls", "azblob://" + container + "/"}, []string{"azblob://" + container, "speaks plain HTTP, not TLS"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, level := range []string{"warn", "error"} {
				cmd := exec.Command(bin, append([]string{"--log-level", level}, tc.args...)...)
				cmd.Env = append(cleanCloudEnv(), tc.env...)
				cmd.Dir = t.TempDir()
				_, stderr, code := runCmd(t, cmd)
				assert.Equal(t, 1, code, stderr)
				assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line at --log-level %s: %q", level, stderr)
				for _, w := range tc.want {
					assert.Contains(t, stderr, w)
				}
				assert.NotContains(t, stderr, `\n`, "no literal newline")
				assert.NotContains(t, stderr, "file does not exist:", "the message says what is missing")
				assert.NotContains(t, stderr, "RESPONSE", "no SDK dump")
			}
			if tc.sdk {
				cmd := exec.Command(bin, append([]string{"--log-level", "debug"}, tc.args...)...)
				cmd.Env = append(cleanCloudEnv(), tc.env...)
				cmd.Dir = t.TempDir()
				_, stderr, code := runCmd(t, cmd)
				assert.Equal(t, 1, code, stderr)
				assert.Contains(t, stderr, "sdk_error=", "the SDK's text under --log-level debug")
			}
		})
	}
}

// tlsTo turns the http:// URL of a plain-HTTP server into https://.
func tlsTo(url string) string { return "https://" + strings.TrimPrefix(url, "http://") }
