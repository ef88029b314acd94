// Package chaos is the shared support of vfskit's fault runs: the tests named
// TestChaos* anywhere in the module. Each runs a number of cycles of real work
// (writes, renames, checkpoints) while faults are injected (a fault proxy in
// front of SeaweedFS dropping answers and throttling, the server killed and
// restarted, ...), checks that nothing was lost or misreported, and prints a
// Summary of what happened.
//
// Under `make test` each runs a short form (a few cycles); `make chaos` runs
// them all with VFSKIT_CHAOS_CYCLES=100 (minutes). A new fault run only needs
// the TestChaos prefix, Cycles for its cycle count and a Summary for its
// counts.
//
// The checkpoint driver: a Job checkpoints (state streams, FinalizeCheckpoint,
// RetainCheckpoints, DisposeOnFailure, DisposeStorageLocation) with content
// that is a function of its seed, so any process can check it byte for byte.
// Run drives a Job against a Target — MemoryTarget (a FaultFS failing,
// losing answers and crashing), FileTarget (a child writer killed with
// SIGKILL, see ChildRunner and RunChild) or S3Target (SeaweedFS behind a
// faultproxy, killed and restarted) — and counts, in a Summary, everything
// MustBeZero lists; RenameRace races renames onto one destination; Table lays
// summaries side by side. TestChaosCheckpoints runs all three.
package chaos

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// CyclesEnv names the environment variable that sets the number of cycles of
// every chaos run (make chaos sets it).
const CyclesEnv = "VFSKIT_CHAOS_CYCLES"

// Cycles returns the number of cycles a chaos run should do: $VFSKIT_CHAOS_CYCLES
// when set, else short (the short form that runs under make test). An invalid
// value fails the test.
func Cycles(t testing.TB, short int) int {
	t.Helper()
	v := os.Getenv(CyclesEnv)
	if v == "" {
		return short
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("chaos: %s=%q is not a positive number of cycles", CyclesEnv, v)
	}
	return n
}

// Summary counts what a chaos run did and saw, by name. It is safe for
// concurrent use.
type Summary struct {
	name   string
	mu     sync.Mutex
	counts map[string]int
}

// NewSummary returns an empty summary for the run called name.
func NewSummary(name string) *Summary {
	return &Summary{name: name, counts: map[string]int{}}
}

// Add adds n to the count called what.
func (s *Summary) Add(what string, n int) {
	s.mu.Lock()
	s.counts[what] += n
	s.mu.Unlock()
}

// Get returns the count called what.
func (s *Summary) Get(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[what]
}

// String is one line: "chaos NAME: a=1 b=2 ...", names sorted.
func (s *Summary) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.counts))
	for k := range s.counts {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "chaos %s:", s.name)
	for _, k := range names {
		fmt.Fprintf(&b, " %s=%d", k, s.counts[k])
	}
	return b.String()
}

// Report logs the summary on t and prints it on stdout, so `make chaos` shows it
// without -v.
func (s *Summary) Report(t testing.TB) {
	t.Helper()
	t.Log(s.String())
	fmt.Println(s.String())
}
