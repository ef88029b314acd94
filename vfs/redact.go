package vfs

import (
	"net/url"
	"strings"
)

// redactedText replaces a secret, as url.URL.Redacted does.
const redactedText = "xxxxx"

// Redacted returns p.String() with the user info of its authority replaced by
// "xxxxx": "memory://u:pw@h/x" is "memory://xxxxx@h/x". A password written with a
// raw '/' ("memory://u:p/w@h/x", which parses as the authority "u:p") is hidden
// too. Errors, log lines and the CLI show a Path this way; String, which keeps
// the user info, is for reading the Path back.
func (p Path) Redacted() string {
	if i := strings.LastIndexByte(p.authority, '@'); i >= 0 {
		p.authority = redactedText + p.authority[i:]
		return redactUserInfo(p.String())
	}
	return redactURIUserInfo(p.String())
}

// Redact returns s with every secret in it replaced by "xxxxx", for any text
// that may quote a URI: an error message, a log line, a command line. It hides
//   - the user info of every URI ("s3://key:secret@host/x" and "//u:p@h/x" become
//     "s3://xxxxx@host/x" and "//xxxxx@h/x"), percent-encoded or not, even when
//     the password has a raw '/', '#', '?' or '"' (then everything up to the last
//     '@' before the next white space is taken as user info);
//   - the value of every parameter whose name suggests a secret (see
//     IsSecretName), after '?', '&', white space or at the start of s, up to the
//     next '&' or white space, whatever characters it has ('/', '#', '?', '"',
//     "%40"...); quotes and punctuation that end the value are kept;
//   - secrets inside other parameters' values, percent-decoded, as in
//     "?endpoint=http%3A%2F%2Fh%2F%3Fsecret%3Dx" (to three levels of nesting).
//
// It errs on the side of hiding: text that merely looks like a secret (a file
// named "a?token=1", a key with an '@' after "host:port/") is hidden too. Redact
// is linear in len(s) and never fails.
func Redact(s string) string { return redact(s, 0) }

// RedactURI returns s, one URI or path as a user gave it (valid or not), with
// its secrets hidden. Unlike Redact, which reads free text and ends a URI at
// white space, it takes all of s as one URI: after "scheme:" (whatever comes
// before the first ':', valid as a scheme or not, when it has no '/') and an optional
// "//", everything up to the last '@' before the first '/' is user info
// ("gs://svc:pa ss?word@b/x" is "gs://xxxxx@b/x"), and when what comes before
// the first '/' holds a "user:password", everything up to the last '@' of s
// (a password with a raw '/' or '@'). A ':' followed by digits only is a port,
// not a password. The rest is redacted as Redact does. Use it for every
// error that quotes a URI or argument as given.
func RedactURI(s string) string { return Redact(redactURIUserInfo(s)) }

// redactURIUserInfo hides the user info of s, one URI, as RedactURI does,
// and nothing else.
func redactURIUserInfo(s string) string {
	head, rest := "", s
	if i := strings.IndexByte(s, ':'); i >= 0 && !strings.Contains(s[:i], "/") {
		head, rest = s[:i+1], s[i+1:]
	}
	if strings.HasPrefix(rest, "//") {
		head, rest = head+"//", rest[2:]
	} else if head == "" {
		return s
	}
	if at := userInfoEnd(rest); at > 0 && rest[:at] != redactedText {
		rest = redactedText + rest[at:]
	}
	return head + rest
}

// userInfoEnd returns the index of the '@' that ends the user info of rest,
// what follows "scheme://" in a URI as given (see RedactURI), or -1.
func userInfoEnd(rest string) int {
	auth := rest
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		auth = rest[:j]
	}
	at := strings.LastIndexByte(auth, '@')
	switch c := strings.IndexByte(auth, ':'); {
	case c < 0:
	case at > c, at < 0 && !IsPort(auth[c+1:]):
		// A password, which may hold '@' and '/' too: all of it up to the
		// last '@' is hidden (a path with an '@' after a password is hidden
		// with it).
		at = strings.LastIndexByte(rest, '@')
	}
	return at
}

// IsPort reports whether s, what follows the ":" in a URI's authority, is a
// port number: one or more ASCII digits. Where it is not, the ":" separates a
// user name from a password.
func IsPort(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// RedactAuthority returns an authority ("user:password@host") with its user
// info replaced by "xxxxx" ("xxxxx@host"), as Path.Redacted shows it.
func RedactAuthority(authority string) string {
	return strings.TrimPrefix(RedactURI("//"+authority), "//")
}

// RedactURL returns u.String() with its secrets hidden (see Redact); "" for nil.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	return Redact(u.String())
}

// RedactError returns err with its message redacted (see Redact): err itself
// when its message shows no secret, otherwise an error whose Error is the
// redacted message and that unwraps to err, so errors.Is and errors.As still see
// through it. Nil stays nil.
func RedactError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := Redact(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

// redactedError is an error shown with its secrets hidden.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redact(s string, depth int) string {
	return redactParams(redactUserInfo(s), depth)
}

// IsSecretName reports whether a parameter or attribute name suggests a secret:
// it contains (case-insensitively) secret, passw, pwd, token, key, sig,
// credential, session, private, cookie or authoriz, is "auth", or starts with
// x-amz-, x-goog- or x-ms- (signed-URL parameters).
func IsSecretName(name string) bool {
	n := strings.ToLower(name)
	if n == "auth" || strings.HasPrefix(n, "x-amz-") || strings.HasPrefix(n, "x-goog-") || strings.HasPrefix(n, "x-ms-") {
		return true
	}
	for _, w := range [...]string{"secret", "passw", "pwd", "token", "key", "sig", "credential", "session", "private", "cookie", "authoriz"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// tokenEnd returns the index of the first white space in s, or len(s).
func tokenEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return i
		}
	}
	return len(s)
}

// authorityLead reports whether "//" after c starts an authority: after a
// scheme's ':' or where a word starts, not inside a path ("a//b").
func authorityLead(c byte) bool {
	return c == ':' || isSpace(c) || strings.IndexByte("\"'`=([{<,", c) >= 0
}

// redactUserInfo replaces the user info of every authority in s with "xxxxx".
func redactUserInfo(s string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b (or nothing was replaced yet)
	// The token (up to white space) that the current "//" is in, and the last
	// '@' in it, are kept from one "//" to the next: Redact stays linear even
	// on text made of "(//a:" repeated.
	tokEnd, tokLastAt := -1, -1
	for from := 0; ; {
		k := strings.Index(s[from:], "//")
		if k < 0 {
			break
		}
		start := from + k + 2
		from = start
		if k := start - 2; k > 0 && !authorityLead(s[k-1]) {
			continue
		}
		if start > tokEnd {
			tokEnd = start + tokenEnd(s[start:])
			tokLastAt = strings.LastIndexByte(s[start:tokEnd], '@') + start
		}
		tok := s[start:tokEnd]
		strict := tok
		slash := strings.IndexByte(tok, '/')
		if slash >= 0 {
			strict = tok[:slash]
		}
		at := strings.LastIndexByte(strict, '@')
		if at < 0 && slash >= 0 && tokLastAt > start+slash && strings.Contains(strict, ":") {
			at = tokLastAt - start // a password with a raw '/'
		}
		if at < 0 && strings.Contains(strict, ":") {
			at = quotedUserInfoEnd(s, start)
		}
		if at <= 0 || s[start:start+at] == redactedText {
			continue
		}
		b.WriteString(s[done:start])
		b.WriteString(redactedText)
		done = start + at
		from = done
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// quotedUserInfoEnd returns, for the authority starting at s[start:] (after
// "//") of a URI that begins right after an opening quote (a double quote, a
// single quote or a backquote), where its user info ends (see userInfoEnd)
// within the quotes, white space included ("`http://u:pa ss@h/`"); -1 when the URI is not quoted or has none.
// It looks no further than the next quote of the same kind, which keeps
// Redact linear: the next such URI starts after it.
func quotedUserInfoEnd(s string, start int) int {
	// s[start-3] is the scheme's ':'; i goes back to the scheme's start.
	i := start - 3
	for i > 0 && (isNameByte(s[i-1]) || s[i-1] == '+') {
		i--
	}
	if i <= 0 || i >= start-3 || strings.IndexByte("\"'`", s[i-1]) < 0 {
		return -1
	}
	end := strings.IndexByte(s[start:], s[i-1])
	if end < 0 {
		return -1
	}
	return userInfoEnd(s[start : start+end])
}

// maxDepth bounds how deep Redact looks into parameter values.
const maxDepth = 3

// redactParams hides the values of secret parameters (see Redact).
func redactParams(s string, depth int) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); i++ {
		if i > 0 && s[i-1] != '?' && s[i-1] != '&' && !isSpace(s[i-1]) {
			continue
		}
		// s[i:] may start a parameter "name=value".
		n := i
		for n < len(s) && isNameByte(s[n]) {
			n++
		}
		if n == i || n >= len(s) || s[n] != '=' {
			continue
		}
		vs := n + 1
		ve := vs
		for ve < len(s) && s[ve] != '&' && !isSpace(s[ve]) {
			ve++
		}
		if ve == vs {
			continue
		}
		trimmed := ve
		for trimmed > vs && strings.IndexByte("\"'`),;:]}>.", s[trimmed-1]) >= 0 {
			trimmed-- // closing quote or punctuation after the value
		}
		if trimmed > vs {
			ve = trimmed // (a value of punctuation only is all secret)
		}
		v := s[vs:ve]
		var repl string
		switch {
		case IsSecretName(s[i:n]):
			repl = redactedText
		case depth >= maxDepth:
			repl = v
		case strings.Contains(v, "%"):
			dec, err := url.QueryUnescape(v)
			if err != nil {
				dec = v
			}
			if r := redact(dec, depth+1); r != dec {
				repl = url.QueryEscape(r)
			} else {
				repl = v
			}
		default:
			repl = redact(v, depth+1)
		}
		i = ve - 1 // the value was looked into: do not scan it again
		if repl == v {
			continue
		}
		b.WriteString(s[done:vs])
		b.WriteString(repl)
		done = ve
		i = ve - 1
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}
