package cli

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vfskit/vfskit/vfs"
)

// quotingStyle says how text output writes names (and paths), as GNU ls's
// --quoting-style does.
type quotingStyle string

const (
	// quoteLiteral writes names as they are: the default when standard output
	// is not a terminal, for scripts (a name holding a newline then reads as
	// two lines: use --json, or ls --zero).
	quoteLiteral quotingStyle = "literal"
	// quoteShellEscape, the default on a terminal, writes a name that the
	// shell would split or that holds a control character or invalid UTF-8 in
	// single quotes, with those characters as $'...' escapes: 'a b',
	// 'a'$'\n''b', $'\033''[2J'. Other names are written as they are. The
	// result pasted into a shell is the name.
	quoteShellEscape quotingStyle = "shell-escape"
	// quoteEscape writes C-like backslash escapes without quotes: a\nb, a\ b,
	// \033[2J, \377 (ls -b).
	quoteEscape quotingStyle = "escape"
	// quoteC writes every name in double quotes with C escapes: "a\nb" (ls -Q).
	quoteC quotingStyle = "c"
	// quoteMessage escapes only what must never reach a terminal raw:
	// control characters and invalid UTF-8, as C escapes. Diagnostics on
	// standard error (one line each) are written this way whatever the style.
	quoteMessage quotingStyle = "message"
)

// quotingStyles are the styles --quoting-style accepts, in the order help
// lists them.
var quotingStyles = []quotingStyle{quoteLiteral, quoteShellEscape, quoteEscape, quoteC}

// parseQuotingStyle returns the style named s, or a usage error naming s and
// the styles there are.
func parseQuotingStyle(s string) (quotingStyle, error) {
	for _, q := range quotingStyles {
		if string(q) == s {
			return q, nil
		}
	}
	names := make([]string, len(quotingStyles))
	for i, q := range quotingStyles {
		names[i] = string(q)
	}
	return "", usageErr(fmt.Errorf("invalid --quoting-style %q: expected %s", s, strings.Join(names, ", ")))
}

// quoteName returns name as style writes it. It is the one place where the
// command line escapes what it prints: every command writes names and paths
// in its text output through it (app.name, app.pathName).
func quoteName(name string, style quotingStyle) string {
	switch style {
	case quoteShellEscape:
		return shellEscape(name)
	case quoteEscape:
		return cEscape(name, `\ `)
	case quoteC:
		return `"` + cEscape(name, `\"`) + `"`
	case quoteMessage:
		return cEscape(name, "")
	}
	return name
}

// shellSafe reports whether the byte c needs no quoting in a shell word.
func shellSafe(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c >= utf8.RuneSelf:
		return true
	case c == '#' || c == '~':
		return !first
	}
	return strings.IndexByte("%+,-./:=@_^", c) >= 0
}

// printable reports whether the rune r (of width size, utf8.RuneError with
// width 1 for invalid UTF-8) can be shown as it is.
func printable(r rune, size int) bool {
	return !(r == utf8.RuneError && size == 1) && unicode.IsPrint(r)
}

func shellEscape(name string) string {
	needs := name == ""
	for i := 0; i < len(name) && !needs; {
		r, size := utf8.DecodeRuneInString(name[i:])
		needs = !shellSafe(name[i], i == 0) || !printable(r, size)
		i += size
	}
	switch {
	case !needs:
		return name
	case name == "":
		return "''"
	}
	var b strings.Builder
	const plain, quoted, escaped = 0, 1, 2 // outside quotes, inside '...', inside $'...'
	state := plain
	enter := func(to int) {
		if state == to {
			return
		}
		if state != plain {
			b.WriteByte('\'')
		}
		switch to {
		case quoted:
			b.WriteByte('\'')
		case escaped:
			b.WriteString("$'")
		}
		state = to
	}
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		switch {
		case !printable(r, size):
			enter(escaped)
			for _, c := range []byte(name[i : i+size]) {
				b.WriteString(cByte(c))
			}
		case r == '\'':
			enter(plain)
			b.WriteString(`\'`)
		default:
			enter(quoted)
			b.WriteString(name[i : i+size])
		}
		i += size
	}
	enter(plain)
	return b.String()
}

// cEscape writes name with C escapes for unprintable characters and invalid
// UTF-8, and a backslash before every character of also.
func cEscape(name, also string) string {
	var b strings.Builder
	for i := 0; i < len(name); {
		r, size := utf8.DecodeRuneInString(name[i:])
		switch {
		case !printable(r, size):
			for _, c := range []byte(name[i : i+size]) {
				b.WriteString(cByte(c))
			}
		case size == 1 && strings.IndexByte(also, name[i]) >= 0:
			b.WriteByte('\\')
			b.WriteString(name[i : i+size])
		default:
			b.WriteString(name[i : i+size])
		}
		i += size
	}
	return b.String()
}

// cByte is the C escape of an unprintable byte: \n, \t, ... or octal \033.
func cByte(c byte) string {
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	return fmt.Sprintf(`\%03o`, c)
}

// name returns a name (or any text naming a file) as the command line's
// quoting style writes it.
func (a *app) name(s string) string { return quoteName(s, a.quoting) }

// pathName returns p redacted (vfs.Path.Redacted) and quoted (see name).
func (a *app) pathName(p vfs.Path) string { return a.name(p.Redacted()) }
