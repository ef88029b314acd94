package vfs_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// Passwords in the secret URIs below start and end with these markers, so a
// leak of any part of the password's beginning or end shows.
const pwHead, pwTail = "Pw1q", "q9wP"

// secretURIs are URIs, valid or not, whose user info holds pwHead...pwTail.
var secretURIs = []string{
	"s3://AKIAEXAMPLE:" + pwHead + "wJalr#X" + pwTail + "@b/x",
	"gs://svc:" + pwHead + "pa ss?word" + pwTail + "@b/x",
	`s3://u:` + pwHead + `pa\ss` + pwTail + `@b/x`,
	"azblob://u:" + pwHead + "p/a\"s?s#w" + pwTail + "@c/k",
	"s3:AKIA:" + pwHead + "x" + pwTail + "@b/x",
	"memory://u:" + pwHead + "%zz" + pwTail + "@h/x?region=eu",
	"nosuch://u:" + pwHead + "\t\n" + pwTail + "@h/x",
	"file://u:" + pwHead + "@" + pwTail + "@h/x",
	"memory://u:" + pwHead + "a b" + pwTail + "@h",
	"Memory://:" + pwHead + pwTail + "@h/../x",
}

// leaks returns the forms of the password markers that text shows.
func leaks(text string) []string {
	var shown []string
	for _, m := range []string{pwHead, pwTail} {
		if strings.Contains(text, m) {
			shown = append(shown, m)
		}
	}
	return shown
}

// uriErrors returns the errors that parsing and resolving uri give: NewPath,
// ParsePath, MustPath's panic, Registry.Get (of a registry serving memory://
// and a factory that refuses user info, as cloud schemes do), GetPath, Resolve
// and SetDefaultScheme.
func uriErrors(t *testing.T, uri string) []error {
	ctx := context.Background()
	reg := vfs.NewRegistry()
	require.NoError(t, reg.Register("memory", func(context.Context, *url.URL) (vfs.FileSystem, error) {
		return nil, errors.New("not served here")
	}))
	require.NoError(t, reg.Register("s3", func(_ context.Context, u *url.URL) (vfs.FileSystem, error) {
		return nil, fmt.Errorf("s3: URI %s has user info", vfs.RedactURL(u))
	}))
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	_, err := vfs.NewPath(uri)
	add(err)
	p, err := vfs.ParsePath(uri)
	add(err)
	func() {
		defer func() {
			if v := recover(); v != nil {
				add(fmt.Errorf("%v", v))
			}
		}()
		vfs.MustPath(uri)
	}()
	_, err = reg.Get(ctx, uri)
	add(err)
	if err == nil || !p.IsZero() {
		_, err = reg.GetPath(ctx, p)
		add(err)
	}
	_, err = vfs.MustPath("memory://h/").Resolve(uri)
	add(err)
	add(reg.SetDefaultScheme(uri))
	return errs
}

// TestURIErrorsHidePasswords checks that no error of parsing or resolving a
// URI shows its password, whatever characters the password holds: '#', '?',
// spaces, '\', '/', '"', '@', control characters, bad escapes.
func TestURIErrorsHidePasswords(t *testing.T) {
	for _, uri := range secretURIs {
		errs := uriErrors(t, uri)
		assert.NotEmpty(t, errs, "%q is refused somewhere", uri)
		for _, err := range errs {
			assert.Empty(t, leaks(err.Error()), "%q: %v", uri, err)
		}
	}
}

// FuzzURIErrorsHidePasswords builds a URI around a fuzzed user, password and
// rest: no error of NewPath, ParsePath, Registry.Get, GetPath, Resolve or
// SetDefaultScheme shows the password's markers.
func FuzzURIErrorsHidePasswords(f *testing.F) {
	f.Add("s3", "AKIAEXAMPLE", "wJalr#X", "b/x")
	f.Add("gs", "svc", "pa ss?word", "b/x")
	f.Add("s3", "u", `pa\ss`, "b/x")
	f.Add("memory", "u", "p/w", "h/x?region=eu")
	f.Fuzz(func(t *testing.T, scheme, user, pw, rest string) {
		if strings.Contains(scheme+user+rest, pwHead) || strings.Contains(scheme+user+rest, pwTail) {
			return
		}
		if strings.Contains(user+scheme, "/") {
			return // "s3://u/x:pw@h" is the key "x:pw@h" in the bucket "u", "/://" a path: no user info
		}
		if len(scheme) == 1 && ('a' <= scheme[0]|0x20 && scheme[0]|0x20 <= 'z') {
			return // "C://x" is a Windows drive and a local path, not a URI
		}
		for _, uri := range []string{
			scheme + "://" + user + ":" + pwHead + pw + pwTail + "@" + rest,
			scheme + ":" + user + ":" + pwHead + pw + pwTail + "@" + rest,
		} {
			for _, err := range uriErrors(t, uri) {
				if shown := leaks(err.Error()); len(shown) > 0 {
					t.Fatalf("an error of %q shows the password (%q): %v", uri, shown, err)
				}
			}
		}
	})
}

// TestGetQueryAndUserInfo: a '?' inside "user:password@" is refused, redacted;
// a query whose value holds an '@' (a service account) is still a query, and
// so is one after a host and port.
func TestGetQueryAndUserInfo(t *testing.T) {
	reg := vfs.NewRegistry()
	var queries []string
	require.NoError(t, reg.Register("qq", func(_ context.Context, u *url.URL) (vfs.FileSystem, error) {
		queries = append(queries, u.RawQuery)
		return nil, errors.New("stub")
	}))
	_, err := reg.Get(context.Background(), "qq://svc:"+pwHead+"pa?ss"+pwTail+"@b/x")
	require.ErrorIs(t, err, fs.ErrInvalid)
	assert.Empty(t, leaks(err.Error()), err.Error())
	assert.Contains(t, err.Error(), "percent-encoded")
	for _, uri := range []string{"qq://b?access_id=svc@p.example", "qq://h:8333?x=a@b/k"} {
		_, err = reg.Get(context.Background(), uri)
		assert.EqualError(t, err, "stub", uri)
	}
	assert.Equal(t, []string{"access_id=svc@p.example", "x=a@b/k"}, queries)
}
