package vfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// secret is a password with every character that broke an ad-hoc masker.
const secret = `p/a#s?s"w%40rd`

// secretForms are the ways secret can show up in text: as typed, percent-encoded
// by a URL's user info, by url.QueryEscape and url.PathEscape, and quoted by %q.
func secretForms(s string) []string {
	return []string{
		s,
		url.QueryEscape(s),
		url.PathEscape(s),
		strings.TrimPrefix(url.UserPassword("", s).String(), ":"),
		strings.Trim(fmt.Sprintf("%q", s), `"`),
		url.QueryEscape(url.QueryEscape(s)),
	}
}

func assertNoSecret(t *testing.T, out string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, form := range secretForms(s) {
			assert.NotContains(t, out, form, "output shows a secret (form %q)", form)
		}
	}
}

func TestRedactHidesUserInfoAndSecretParameters(t *testing.T) {
	enc := url.QueryEscape(secret)
	tests := []struct{ in, want string }{
		{"memory://u:" + enc + "@h/x", "memory://xxxxx@h/x"},
		{"memory://u:" + secret + "@h/x", "memory://xxxxx@h/x"}, // raw '/' in the password
		{"s3://key:pw@b/x and //u:pw@h/y", "s3://xxxxx@b/x and //xxxxx@h/y"},
		{`open "memory://u:` + secret + `@h/x": not found`, `open "memory://xxxxx@h/x": not found`},
		{"dst=memory://u:hunter2@h/x", "dst=memory://xxxxx@h/x"},
		{"http://127.0.0.1:8333/?X-Amz-Signature=" + secret + " next", "http://127.0.0.1:8333/?X-Amz-Signature=xxxxx next"},
		{"https://h/o?a=1&secret=" + enc + "&b=2", "https://h/o?a=1&secret=xxxxx&b=2"},
		{"--s3-endpoint=http://h/?token=abc", "--s3-endpoint=http://h/?token=xxxxx"},
		{"password=hunter2 user=bob", "password=xxxxx user=bob"},
		{`"s3://b/?sig=abc"`, `"s3://b/?sig=xxxxx"`},
		{"s3://b/x?endpoint=" + url.QueryEscape("http://h:1/?secret="+secret), "s3://b/x?endpoint=" + url.QueryEscape("http://h:1/?secret=xxxxx")},
		{"Custom endpoint `http://u:pa ss@127.0.0.1:1` was not a valid URI", "Custom endpoint `http://xxxxx@127.0.0.1:1` was not a valid URI"},
		{`parse "gs://svc:pa ss?word@b/x": invalid userinfo`, `parse "gs://xxxxx@b/x": invalid userinfo`},
		// left alone: no secrets
		{"`http://h:1/a b@c`", "`http://h:1/a b@c`"},
		{"s3://bucket/a/b?region=eu", "s3://bucket/a/b?region=eu"},
		{"/tmp/a//b@c", "/tmp/a//b@c"},
		{"file:///tmp/x", "file:///tmp/x"},
		{"s3://b/key@v1", "s3://b/key@v1"},
		{"", ""},
	}
	for _, tt := range tests {
		got := vfs.Redact(tt.in)
		assert.Equal(t, tt.want, got, "Redact(%q)", tt.in)
		assert.Equal(t, got, vfs.Redact(got), "Redact is idempotent")
	}
}

func TestRedactAuthority(t *testing.T) {
	assert.Equal(t, "xxxxx@h:1", vfs.RedactAuthority("u:"+secret+"@h:1"))
	assert.Equal(t, "xxxxx@h", vfs.RedactAuthority("u@h"))
	assert.Equal(t, "bucket", vfs.RedactAuthority("bucket"))
	assert.Equal(t, "a/b", vfs.RedactAuthority("a/b"))
}

func TestIsSecretName(t *testing.T) {
	for _, n := range []string{"secret", "password", "Passwd", "pwd", "token", "X-Amz-Security-Token", "key", "api_key",
		"sig", "Signature", "credential", "X-Amz-Credential", "session", "private_key", "auth", "Authorization", "x-goog-date"} {
		assert.True(t, vfs.IsSecretName(n), n)
	}
	for _, n := range []string{"region", "endpoint", "profile", "use_path_style", "path", "dst", "authority", "bytes"} {
		assert.False(t, vfs.IsSecretName(n), n)
	}
}

func TestPathRedacted(t *testing.T) {
	p, err := vfs.ParsePath("memory://u:" + url.QueryEscape(secret) + "@h/x")
	require.NoError(t, err)
	assert.Equal(t, "memory://xxxxx@h/x", p.Redacted())
	assert.Equal(t, "//xxxxx@h/x", vfs.MustPath("//u@h/x").Redacted(), "a user alone may be a token")
	assert.Equal(t, "s3://b/a?token=1", vfs.MustPath("s3://b/a?token=1").Redacted(), "a Path has no query: '?' is a name")
	raw, err := vfs.ParsePath("memory://u:" + secret + "@h/x") // authority "u:p", the rest is a path
	require.NoError(t, err)
	assertNoSecret(t, raw.Redacted(), secret)
	assert.Equal(t, "memory://xxxxx@h/x", raw.Redacted())
	assert.Equal(t, "", vfs.Path{}.Redacted())
}

// TestErrorsAreRedacted checks every error that vfs makes from a path or URI.
func TestErrorsAreRedacted(t *testing.T) {
	enc := url.QueryEscape(secret)
	p := vfs.MustPath("memory://u:" + enc + "@h/x")
	ctx := context.Background()
	r := vfs.NewRegistry()

	var errs []error
	errs = append(errs, vfs.NewPathError("open", p, fs.ErrNotExist))
	_, err := r.Get(ctx, "memory://u:"+enc+"@h/x?secret="+enc) // unknown scheme
	errs = append(errs, err)
	_, err = r.GetPath(ctx, p)
	errs = append(errs, err)
	_, err = r.Get(ctx, "file://u:"+enc+"@h/x") // did you forget a slash?
	errs = append(errs, err)
	errs = append(errs, r.SetDefaultScheme("ab:c?secret="+enc))
	_, err = vfs.ParsePath("1x://u:" + secret + "@h/x")
	errs = append(errs, err)
	_, err = vfs.NewPath("memory://u:" + enc + "@h")
	require.NoError(t, err)
	_, err = p.Resolve("//u:" + enc + "@other/x")
	errs = append(errs, err)
	_, err = vfs.PathOf("s3", "u:"+enc+"@b", ".")
	errs = append(errs, err)

	require.NoError(t, r.Register("memory", func(context.Context, *url.URL) (vfs.FileSystem, error) { panic("boom memory://u:" + secret + "@h") }))
	_, err = r.GetPath(ctx, p)
	errs = append(errs, err)
	require.NoError(t, r.Register("nilfs", func(context.Context, *url.URL) (vfs.FileSystem, error) { return nil, nil }))
	_, err = r.Get(ctx, "nilfs://u:"+enc+"@h/")
	errs = append(errs, err)
	other := fakeFS{uri: &url.URL{Scheme: "memory", Host: "other", User: url.UserPassword("u", secret)}}
	_, err = vfs.Qualify("stat", other, p)
	errs = append(errs, err)

	for i, err := range errs {
		require.Error(t, err, "case %d", i)
		msg := err.Error()
		assertNoSecret(t, msg, secret)
		assert.NotContains(t, msg, "u:", "case %d: %s", i, msg)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			assertNoSecret(t, pe.Path, secret)
		}
	}
	var use *vfs.UnsupportedSchemeError
	require.ErrorAs(t, errs[1], &use)
	assert.Equal(t, "memory://xxxxx@h/x", use.URI)
}

// fakeFS is a FileSystem whose URI and working directory are given; Qualify
// needs nothing else.
type fakeFS struct {
	vfs.FileSystem
	uri *url.URL
}

func (f fakeFS) URI() *url.URL { return f.uri }

func (f fakeFS) WorkingDirectory() vfs.Path {
	return vfs.MustPath(f.uri.Scheme + "://" + f.uri.User.String() + "@" + f.uri.Host + "/")
}

func TestRedactingHandler(t *testing.T) {
	enc := url.QueryEscape(secret)
	var buf bytes.Buffer
	log := slog.New(vfs.RedactingHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	u, err := url.Parse("s3://b/?X-Amz-Signature=" + enc)
	require.NoError(t, err)
	log = log.With("base", "memory://u:"+enc+"@h/")
	log.Debug("copied memory://u:"+secret+"@h/x",
		"dst", vfs.MustPath("memory://u:hunter2@h/x"),
		"src", "memory://u:"+secret+"@h/y",
		"url", u, "urlv", *u,
		"err", fmt.Errorf("open memory://u:%s@h/z: %w", enc, fs.ErrNotExist),
		"password", "hunter2",
		slog.Group("g", "token", "hunter2", "uri", "//u:hunter2@h/x"),
		"list", []string{"memory://u:hunter2@h/x"},
		"bytes", 42)
	log.WithGroup("grp").Info("x", "secret", secret)
	out := buf.String()
	assertNoSecret(t, out, secret, "hunter2")
	assert.Contains(t, out, "dst=memory://xxxxx@h/x")
	assert.Contains(t, out, "bytes=42")
	assert.Contains(t, out, "password=xxxxx")
	assert.Contains(t, out, "list=[memory://xxxxx@h/x]")

	// Values with nothing to hide keep their type.
	buf.Reset()
	log.Info("y", "ints", []int{1, 2}, "err", fs.ErrNotExist)
	assert.Contains(t, buf.String(), `ints="[1 2]"`)
	assert.Contains(t, buf.String(), `err="file does not exist"`)
	var jbuf bytes.Buffer
	slog.New(vfs.RedactingHandler(slog.NewJSONHandler(&jbuf, nil))).Info("z", "ints", []int{1, 2})
	assert.Contains(t, jbuf.String(), `"ints":[1,2]`)

	// Without the handler, a Path still logs redacted (slog.LogValuer).
	buf.Reset()
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "p", vfs.MustPath("memory://u:hunter2@h/x"))
	assert.NotContains(t, buf.String(), "hunter2")
}

// FuzzRedact: whatever text surrounds it, a URI's percent-encoded password and a
// secret parameter never survive Redact, and Redact is idempotent.
func FuzzRedact(f *testing.F) {
	f.Add("", secret, "")
	f.Add(`open "`, "hunter2", `": not found`)
	f.Add("?a=", "x%41yz", "&b=//u:p@h")
	f.Fuzz(func(t *testing.T, prefix, pw, suffix string) {
		if len(pw) < 4 {
			return // too short to tell from the text around it
		}
		enc := url.QueryEscape(pw)
		text := prefix + " memory://u:" + enc + "@h/x?secret=" + enc + " " + suffix
		out := vfs.Redact(text)
		if strings.Contains(out, "u:"+enc+"@") || strings.Contains(out, "secret="+enc) {
			t.Fatalf("Redact(%q) = %q shows the secret", text, out)
		}
		if again := vfs.Redact(out); again != out {
			t.Fatalf("Redact is not idempotent on %q: %q then %q", text, out, again)
		}
	})
}

// TestRedactIsLinear: text built to make a naive scan quadratic (1 MiB of
// authorities that each look ahead to the end of the token) is redacted in one
// pass; the test would take minutes, not milliseconds, if it were quadratic.
func TestRedactIsLinear(t *testing.T) {
	for _, unit := range []string{"(//a:", "?a=%41", "&k=", "s://u:p/"} {
		s := strings.Repeat(unit, 1<<20/len(unit)) + "@h"
		out := vfs.Redact(s)
		assert.NotEmpty(t, out)
		assert.LessOrEqual(t, len(out), len(s)*3, unit)
	}
}
