package chaos_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/chaos"
	"github.com/vfskit/vfskit/internal/s3test"
)

func TestMain(m *testing.M) {
	if chaos.IsChild() {
		os.Exit(chaos.RunChild())
	}
	if os.Getenv(rwChildEnv) != "" {
		os.Exit(rwChild())
	}
	code := s3test.Main(m) // stops the shared SeaweedFS
	azuritetest.Stop()
	os.Exit(code)
}

// TestChaosCheckpoints runs cycles of checkpoint + retain + dispose, with rename
// races, on memory:// (faults injected and crashes through a FaultFS), file://
// (the writing process killed with SIGKILL) and s3:// (SeaweedFS behind a proxy
// that loses 5% of the answers and throttles 20% of the requests, killed and
// restarted every fifth cycle), and asserts that every count of
// chaos.MustBeZero is zero. It prints the summary table. make test runs a few
// cycles; make chaos runs 100 (VFSKIT_CHAOS_CYCLES).
func TestChaosCheckpoints(t *testing.T) {
	cycles := chaos.Cycles(t, 4)
	seed := chaos.Seed(t)
	targets := []struct {
		name string
		make func(testing.TB, uint64) chaos.Target
	}{
		{"memory", chaos.MemoryTarget},
		{"file", chaos.FileTarget},
		{"s3", chaos.S3Target},
	}
	var sums []*chaos.Summary
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			sum, errs := chaos.Run(t.Context(), tc.make(t, seed), cycles, seed)
			sums = append(sums, sum)
			for _, err := range errs {
				t.Error(err)
			}
			for _, what := range chaos.MustBeZero {
				assert.Zero(t, sum.Get(what), what)
			}
			assert.Equal(t, cycles, sum.Get("cycles"))
			assert.Positive(t, sum.Get("checkpoints-finalized"), "some checkpoints complete")
			assert.Positive(t, sum.Get("checkpoints-restored"), "completed checkpoints were restored")
		})
	}
	fmt.Printf("chaos summary: %d cycles per store, seed %d\n%schaos end\n", cycles, seed, chaos.Table(sums...))
}
