package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/s3test"
)

// Secrets with every character that broke an ad-hoc masker: '/', '#', '?', '"'
// and an escape-looking "%40".
const (
	password    = `p/a#s?s"w%40rd`
	querySecret = `q/s#e?c"r%40et`
)

// leakForms are the ways a secret can show up: as typed, percent-encoded (user
// info, url.QueryEscape, url.PathEscape, twice), quoted by %q or slog, and the
// tails that a redaction stopping at a '"' or a '#' would leave.
func leakForms(s string) []string {
	q := strings.Trim(fmt.Sprintf("%q", s), `"`)
	return []string{
		s, q,
		url.QueryEscape(s), url.PathEscape(s), url.QueryEscape(url.QueryEscape(s)),
		strings.TrimPrefix(url.UserPassword("", s).String(), ":"),
		s[strings.IndexByte(s, '"')+1:],                               // w%40rd / r%40et
		url.QueryEscape(s[strings.IndexByte(s, '"')+1:]),              // w%2540rd
		s[:strings.IndexByte(s, '#')+2] + "?",                         // p/a#s? : cut at '#'
		strings.Replace(s[strings.IndexByte(s, '#'):], "#", "%23", 1), // %23s?s"w...
	}
}

// TestBinaryNeverPrintsSecrets builds the vfskit binary and runs file,
// checkpoint and demo commands, successful and failing, at debug log level, on
// URIs whose user info holds a password and on S3 endpoints whose user info or
// query holds a secret. Neither secret appears in any output, in any encoding.
func TestBinaryNeverPrintsSecrets(t *testing.T) {
	bin := buildVfskit(t)
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, "a.txt"), []byte("hello"), 0o644))

	enc := url.QueryEscape(password)
	qenc := url.QueryEscape(querySecret)
	mem := "memory://u:" + enc + "@h"
	rawMem := "memory://u:" + password + "@h"
	badEndpoint := "http://127.0.0.1:1/?X-Amz-Signature=" + qenc + "&secret=" + qenc
	cmds := []cmdline{
		{nil, []string{"mkdir", mem + "/d"}},
		{nil, []string{"ls", "-l", mem + "/"}},
		{nil, []string{"ls", "-R", mem + "/missing"}},
		{nil, []string{"stat", mem + "/"}},
		{nil, []string{"stat", mem + "/missing"}},
		{nil, []string{"cat", mem + "/missing"}},
		{nil, []string{"cp", "a.txt", mem + "/d/a.txt"}},
		{nil, []string{"cp", mem + "/missing", "b.txt"}},
		{nil, []string{"mv", "a.txt", mem + "/d/"}},
		{nil, []string{"rm", mem + "/missing"}},
		{nil, []string{"rm", "-r", mem + "/"}},
		{nil, []string{"checkpoints", "list", mem + "/ckpt"}},
		{nil, []string{"checkpoints", "inspect", mem + "/ckpt/chk-1"}},
		{nil, []string{"checkpoints", "gc", mem + "/ckpt", "--retain", "1"}},
		{nil, []string{"demo", "--records", "2000", "-k", "500", "--rate", "0", "--checkpoint-dir", mem + "/ckpt"}},
		{nil, []string{"ls", rawMem + "/x"}},
		{nil, []string{"stat", rawMem + "/x"}},
		{nil, []string{"rm", "-r", rawMem + "/x"}},
		{nil, []string{"ls", "file://u:" + enc + "@/tmp"}},
		{nil, []string{"ls", "nosuch://u:" + enc + "@h/x?secret=" + qenc}},
		{nil, []string{"--endpoint", badEndpoint, "ls", "s3://bucket/x"}},
		{nil, []string{"--endpoint", badEndpoint, "stat", "s3://bucket/x"}},
		{nil, []string{"ls", "s3://bucket?endpoint=" + url.QueryEscape(badEndpoint) + "/x"}},
		{nil, []string{"ls", "s3://AKIAEXAMPLE:" + password + "#X@bucket/x"}},
		{nil, []string{"ls", "gs://svc:pa ss?" + password + "@bucket/x"}},
		{nil, []string{"ls", `s3://u:\` + password + `@bucket/x`}},
		{nil, []string{"--endpoint", "http://u:pa ss" + password + "@127.0.0.1:1", "ls", "s3://bucket/x"}},
		{[]string{"AWS_ENDPOINT_URL_S3=http://u:pa ss" + password + "@127.0.0.1:1"}, []string{"ls", "s3://bucket/x"}},
		{[]string{"AWS_ENDPOINT_URL_S3=" + badEndpoint}, []string{"cp", "a.txt", "s3://bucket/a.txt"}},
	}
	runAndGrep(t, bin, work, cmds)

	// The S3 commands that reach a server: the endpoint's user info holds the
	// password, and a missing bucket's error names the endpoint.
	t.Run("s3", func(t *testing.T) {
		srv := s3test.SeaweedFS(t) // skips when no SeaweedFS is available
		bucket := srv.NewBucket(t)
		u, err := url.Parse(srv.Endpoint)
		require.NoError(t, err)
		u.User = url.UserPassword("u", password)
		s3env := []string{"AWS_ACCESS_KEY_ID=" + srv.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + srv.SecretAccessKey, "AWS_REGION=" + srv.Region}
		flags := []string{"--endpoint", u.String(), "--path-style"}
		var cmds []cmdline
		for _, args := range [][]string{
			{"cp", "a.txt", "s3://" + bucket + "/a.txt"},
			{"ls", "-l", "s3://" + bucket + "/"},
			{"stat", "s3://" + bucket + "/a.txt"},
			{"cp", "s3://" + bucket + "/a.txt", "c.txt"},
			{"ls", "s3://no-such-bucket-here/"}, // BucketNotFoundError names the endpoint
			{"checkpoints", "list", "s3://" + bucket + "/"},
			{"rm", "s3://" + bucket + "/a.txt"},
			{"rm", "s3://" + bucket + "/a.txt"}, // now missing
		} {
			cmds = append(cmds, cmdline{s3env, append(append([]string(nil), flags...), args...)})
		}
		cmds = append(cmds, cmdline{s3env, []string{"--endpoint", srv.Endpoint + "/?secret=" + qenc, "--path-style", "ls", "s3://" + bucket + "/"}})
		runAndGrep(t, bin, work, cmds)
	})
}

// cmdline is one run of the binary: environment additions and arguments.
type cmdline struct {
	env  []string
	args []string
}

// runAndGrep runs every command line (at debug log level) and checks that no
// form of either secret is in its stdout or stderr, that the URIs were printed
// redacted, and that failures were among the runs.
func runAndGrep(t *testing.T, bin, work string, cmds []cmdline) {
	env := []string{"AWS_ACCESS_KEY_ID=AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY=example", "AWS_REGION=us-east-1",
		"AWS_ENDPOINT_URL_S3=", "AWS_ENDPOINT_URL=", "AWS_EC2_METADATA_DISABLED=true", "AWS_MAX_ATTEMPTS=1"}
	var all strings.Builder
	redacted, failed := 0, 0
	for _, c := range cmds {
		args := append([]string{"--log-level", "debug"}, c.args...)
		run := runner(t, bin, work, append(append([]string(nil), env...), c.env...))
		stdout, stderr, code := run(args...)
		out := stdout + stderr
		fmt.Fprintf(&all, "$ vfskit %q -> %d\n%s\n", args, code, out)
		if code != 0 {
			failed++
		}
		if strings.Contains(out, "xxxxx") {
			redacted++
		}
		for _, s := range []string{password, querySecret} {
			for _, form := range leakForms(s) {
				assert.NotContains(t, out, form, "vfskit %q shows a secret (form %q)", args, form)
			}
		}
	}
	assert.GreaterOrEqual(t, failed, 2, "failures were exercised")
	assert.GreaterOrEqual(t, redacted, 2, "the commands did print the URIs, redacted")
	if t.Failed() {
		t.Log(all.String())
	}
}
