package cli

import (
	"fmt"
	"slices"
	"strings"
)

// schemeUse is how the top-level help shows a scheme vfskit knows: an
// example URI and what it reaches; and the other names people write for it.
type schemeUse struct {
	scheme, example, what string
	aliases               []string
}

// schemeUsage lists the schemes every command line serves and the sets of
// cfg (WithSchemes), in the order the help shows them.
func schemeUsage(cfg config) []schemeUse {
	u := []schemeUse{{"file", "file:///tmp/x or a plain path", "local disk", []string{"local"}}}
	for _, set := range cfg.sets {
		for _, s := range set.Schemes {
			u = append(u, schemeUse{s.Name, s.Example, s.What, s.Aliases})
		}
	}
	return append(u, schemeUse{"memory", "memory://name/path", "in-memory (lives only as long as the process)", []string{"mem"}})
}

// schemeHelp returns one line per scheme in schemes for the top-level help:
// the ones cfg describes in schemeUsage's order with an example, then the
// others (added with WithScheme) as registered by this program.
func schemeHelp(cfg config, schemes []string) string {
	var b strings.Builder
	line := func(example, what string) { fmt.Fprintf(&b, "  %-32s %s\n", example, what) }
	schemeUsage := schemeUsage(cfg)
	for _, u := range schemeUsage {
		if slices.Contains(schemes, u.scheme) {
			line(u.example, u.what)
		}
	}
	for _, s := range schemes {
		if !slices.ContainsFunc(schemeUsage, func(u schemeUse) bool { return u.scheme == s }) {
			line(s+"://...", "added by this program")
		}
	}
	return b.String()
}

// schemeList returns the schemes this command line serves as "file://,
// s3://, ...", in the order the help shows them.
func (a *app) schemeList() string {
	var b strings.Builder
	for i, s := range orderedSchemes(schemeUsage(a.cfg), a.reg.Schemes()) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s + "://")
	}
	return b.String()
}
