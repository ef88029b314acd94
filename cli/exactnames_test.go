package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vfskit/vfskit/internal/s3test"
)

// TestListedQueryNamesAreExactOnS3 gives listed names that look like a query
// back to rm and mv: they act on those objects, never on the name before the
// '?'. A query goes right after the bucket; a "." or ".." segment is refused
// on an object store whether or not a query was split off, and "x/.." with a
// query-looking tail is a name, so nothing above it is touched.
func TestListedQueryNamesAreExactOnS3(t *testing.T) {
	root := s3Root(t)
	region := s3test.SeaweedFS(t).Region
	writeTo(t, root+"/x/report", "report")
	writeTo(t, root+"/x/report?region=us-east-1", "listed")
	writeTo(t, root+"/p/child/f", "child")
	writeTo(t, root+"/p/keep", "keep")
	assert.Equal(t, "report\nreport?region=us-east-1\n", ok(t, "ls", root+"/x/"))

	assert.Equal(t, "listed", ok(t, "cat", root+"/x/report?region=us-east-1"))
	ok(t, "rm", root+"/x/report?region=us-east-1")
	assert.Equal(t, "report\n", ok(t, "ls", root+"/x/"), "rm removed the listed object, not x/report")
	assert.Equal(t, "report", ok(t, "cat", root+"?region="+region+"/x/report"), "a query right after the bucket")

	bucket := strings.TrimPrefix(root, "s3://")
	for _, args := range [][]string{
		{"rm", "-r", root + "/p/child/..?region=us-east-1"},
		{"mv", root + "/p/child/..?region=us-east-1", root + "/q"},
	} {
		r := vfskit(t, args...)
		assert.NotEqual(t, ExitOK, r.code, "%q", args)
	}
	for _, args := range [][]string{
		{"rm", "-r", "s3://" + bucket + "?region=" + region + "/p/child/.."},
		{"mv", "s3://" + bucket + "?region=" + region + "/p/child/..", root + "/q"},
		{"rm", "-r", root + "/p/child/.."},
		{"rm", "-r", root + "/p/./child"},
		{"rm", "-r", root + "/p//child"},
	} {
		assert.Contains(t, fails(t, ExitUsage, args...), "cannot name", "%q", args)
	}
	assert.Equal(t, "child/\nchild/f\nkeep\n", ok(t, "ls", "-R", root+"/p"), "p is intact")
	assert.Contains(t, fails(t, ExitFailure, "ls", root+"/q"), "q")
}

// pwHead and pwTail mark the start and end of the passwords below, so a leak
// of either end of one shows.
const pwHead, pwTail = "Pw1q", "q9wP"

// resolveSchemes are the schemes FuzzResolveHidesPassword puts in front of a
// password: served ones (whose factories refuse user info before any request),
// an unknown one, and a local one.
var resolveSchemes = []string{"s3", "gs", "azblob", "memory", "file", "keeper", "nosuch", "S3a"}

// FuzzResolveHidesPassword resolves command-line arguments whose user info
// holds a fuzzed password, valid URIs or not: no error shows either end of the
// password, before printError's last redaction.
func FuzzResolveHidesPassword(f *testing.F) {
	f.Add(uint8(0), "AKIAEXAMPLE", "wJalr#X", "b/x")
	f.Add(uint8(1), "svc", "pa ss?word", "b/x")
	f.Add(uint8(0), "u", `pa\ss`, "b/x")
	f.Add(uint8(3), "u", "p/w", "h/x/..")
	f.Fuzz(func(t *testing.T, which uint8, user, pw, rest string) {
		scheme := resolveSchemes[int(which)%len(resolveSchemes)]
		if strings.Contains(user+rest, pwHead) || strings.Contains(user+rest, pwTail) || strings.Contains(rest, "endpoint") {
			return
		}
		if strings.Contains(user, "/") {
			return // "s3://u/x:pw@h" is the key "x:pw@h" in the bucket "u": no user info
		}
		secret := pwHead + pw + pwTail
		for _, arg := range []string{
			scheme + "://" + user + ":" + secret + "@" + rest,
			scheme + ":" + user + ":" + secret + "@" + rest,
			scheme + "://" + user + ":" + secret + "@" + rest + "/..",
		} {
			_, err := testApp(t).resolve(t.Context(), arg)
			if err == nil {
				continue
			}
			if msg := err.Error(); strings.Contains(msg, pwHead) || strings.Contains(msg, pwTail) {
				t.Fatalf("resolve(%q) shows the password: %v", arg, err)
			}
		}
	})
}
