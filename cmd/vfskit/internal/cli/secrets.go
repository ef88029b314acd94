package cli

import (
	"net/url"
	"strings"
)

// password returns the password of a URI's user info ("secret" in
// "s3://key:secret@b/x"), or "" when it has none. arg may be a flag with its
// value ("--checkpoint-dir=s3://key:secret@b/x").
func password(arg string) string {
	_, rest, ok := strings.Cut(arg, "://")
	if !ok {
		return ""
	}
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		rest = rest[:end]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, secret, _ := strings.Cut(rest[:at], ":")
	return secret
}

// masker hides the passwords of the URIs on a command line in messages:
// errors from vfskit and from backends quote the URIs they were given, and an
// error must never show a secret.
type masker []string

// newMasker collects the passwords in args, as typed and as a URL's String
// escapes them (":" may become "%3A", and so may characters of the password).
func newMasker(args []string) masker {
	var m masker
	for _, a := range args {
		pw := password(a)
		if pw == "" {
			continue
		}
		escaped := strings.TrimPrefix(url.UserPassword("", pw).String(), ":")
		for _, p := range []string{pw, escaped} {
			m = append(m, ":"+p+"@", "%3A"+p+"@", "%3a"+p+"@")
		}
	}
	return m
}

// mask replaces every "user:password@" of a known password with "user:xxxxx@".
func (m masker) mask(msg string) string {
	for _, s := range m {
		msg = strings.ReplaceAll(msg, s, ":xxxxx@")
	}
	return msg
}
