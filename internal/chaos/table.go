package chaos

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
)

// names returns the names of the counts of s, sorted.
func (s *Summary) names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.counts))
	for k := range s.counts {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// has reports whether s has a count called what (zero or not).
func (s *Summary) has(what string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.counts[what]
	return ok
}

// Table lays out summaries side by side: one row per count (the union of
// their names, sorted), one column per summary, "-" where a summary has no
// such count.
func Table(sums ...*Summary) string {
	seen := map[string]bool{}
	var rows []string
	for _, s := range sums {
		for _, n := range s.names() {
			if !seen[n] {
				seen[n] = true
				rows = append(rows, n)
			}
		}
	}
	sort.Strings(rows)
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(w, "count\t")
	for _, s := range sums {
		fmt.Fprintf(w, "%s\t", s.name)
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t", r)
		for _, s := range sums {
			if s.has(r) {
				fmt.Fprintf(w, "%d\t", s.Get(r))
			} else {
				fmt.Fprint(w, "-\t")
			}
		}
		fmt.Fprintln(w)
	}
	_ = w.Flush()
	return b.String()
}
