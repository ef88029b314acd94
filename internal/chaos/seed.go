package chaos

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// SeedEnv names the environment variable that sets the seed of the chaos runs,
// to replay one: every run prints the seed it used. A replay injects the same
// faults at the same points, up to goroutine and process scheduling (a kill
// after N operations lands where the child is after them).
const SeedEnv = "VFSKIT_CHAOS_SEED"

// Seed returns $VFSKIT_CHAOS_SEED when set, else a fresh seed from the clock;
// it logs the seed either way. An invalid value fails the test.
func Seed(t testing.TB) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(SeedEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("chaos: %s=%q is not a seed (an unsigned decimal number)", SeedEnv, v)
		}
		seed = n
	}
	t.Logf("chaos: seed %d (replay with %s=%d)", seed, SeedEnv, seed)
	return seed
}
