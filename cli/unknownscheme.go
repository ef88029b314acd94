package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// unknownSchemeError is a URI's scheme that this command line does not
// serve, said for a person: the closest scheme it serves, and the list. It
// errors.Is vfs.ErrUnsupportedScheme (a usage error).
type unknownSchemeError struct {
	msg string
	err error
}

func (e *unknownSchemeError) Error() string { return e.msg }

// Unwrap returns the registry's error.
func (e *unknownSchemeError) Unwrap() error { return e.err }

// unknownScheme replaces a registry's *vfs.UnsupportedSchemeError (which
// speaks to a Go programmer: "import the backend package") with
// "gcs:// is not a scheme here; did you mean gs://? (in "gcs://b/"; the
// schemes served: ...)", the URI redacted. Other
// errors are returned as they are.
func (a *app) unknownScheme(err error) error {
	var ue *vfs.UnsupportedSchemeError
	if !errors.As(err, &ue) {
		return err
	}
	schemes := a.reg.Schemes()
	msg := ue.Scheme + ":// is not a scheme here"
	if s := closestScheme(ue.Scheme, schemeUsage(a.cfg), schemes); s != "" {
		msg += "; did you mean " + s + "://?"
	}
	sorted := slices.Clone(schemes)
	slices.Sort(sorted)
	msg += fmt.Sprintf(" (in %q; the schemes served: %s; 'vfskit --help' says what each reaches)", vfs.RedactURI(ue.URI), strings.Join(sorted, ", "))
	return &unknownSchemeError{msg: msg, err: err}
}

// closestScheme returns the served scheme a user most likely meant by
// scheme: the one that names it among its aliases, else the one fewest
// edits away (at most one edit for a name of up to four letters, two for a
// longer one), preferring the order of the help; "" when none is close.
func closestScheme(scheme string, usage []schemeUse, served []string) string {
	scheme = strings.ToLower(scheme)
	for _, u := range usage {
		if slices.Contains(served, u.scheme) && slices.Contains(u.aliases, scheme) {
			return u.scheme
		}
	}
	limit := 2
	if len(scheme) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, s := range orderedSchemes(usage, served) {
		if d := editDistance(scheme, s); d < bestD {
			best, bestD = s, d
		}
	}
	return best
}

// orderedSchemes returns served in the order the help shows them (usage),
// then the others as served.
func orderedSchemes(usage []schemeUse, served []string) []string {
	ordered := make([]string, 0, len(served))
	for _, u := range usage {
		if slices.Contains(served, u.scheme) {
			ordered = append(ordered, u.scheme)
		}
	}
	for _, s := range served {
		if !slices.Contains(ordered, s) {
			ordered = append(ordered, s)
		}
	}
	return ordered
}

// editDistance is the number of edits between a and b (bytes): inserting,
// deleting or replacing one, or swapping two neighbours (optimal string
// alignment distance).
func editDistance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		pp, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		rows = [3][]int{prev, cur, pp}
	}
	return rows[1][len(b)]
}
