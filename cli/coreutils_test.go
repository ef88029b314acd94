package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCoreutilsFlags runs the flags a coreutils user types first, each as a
// coreutils user means it.
func TestCoreutilsFlags(t *testing.T) {
	root := memRoot(t)
	writeTo(t, root+"/d/a.txt", "hello")
	writeTo(t, root+"/d/.hidden", "h")
	writeTo(t, root+"/d/big.bin", strings.Repeat("x", 1536))

	t.Run("rm -f", func(t *testing.T) {
		assert.Empty(t, ok(t, "rm", "-f", root+"/nope"), "a missing path is fine and silent")
		assert.Contains(t, fails(t, ExitFailure, "rm", root+"/nope"), "file does not exist", "without -f it is an error")
		writeTo(t, root+"/f/x", "x")
		ok(t, "rm", "-rf", root+"/f", root+"/gone")
		assert.Contains(t, fails(t, ExitFailure, "stat", root+"/f"), "file does not exist")
		assert.Contains(t, fails(t, ExitFailure, "rm", "-f", root+"/d"), "use -r",
			"-f forgives a missing path, not a directory without -r")
		assert.Equal(t, "hello", ok(t, "cat", root+"/d/a.txt"))
	})
	t.Run("mkdir -p", func(t *testing.T) {
		ok(t, "mkdir", "-p", root+"/m/a/b/c")
		assert.Contains(t, ok(t, "stat", root+"/m/a/b/c"), "Type:        directory")
		ok(t, "mkdir", "--parents", root+"/m/a/b/c")
	})
	t.Run("ls -a -la -lh", func(t *testing.T) {
		assert.Equal(t, ".hidden\na.txt\nbig.bin\n", ok(t, "ls", "-a", root+"/d"))
		la := ok(t, "ls", "-la", root+"/d")
		assert.Len(t, strings.Split(strings.TrimSpace(la), "\n"), 3)
		assert.Regexp(t, `(?m)^- 1536 .* big\.bin$`, la)
		lh := ok(t, "ls", "-lh", root+"/d")
		assert.Regexp(t, `(?m)^- 1.5K .* big\.bin$`, lh)
		assert.Regexp(t, `(?m)^-    5 .* a\.txt$`, lh, "sizes are right-aligned")
		assert.Contains(t, ok(t, "ls", "--help"), "human-readable", "help stays on --help")
	})
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 1023: "1023", 1024: "1.0K", 1536: "1.5K", 1025: "1.1K", 10 * 1024: "10K",
		10*1024 + 1: "11K", 20 << 20: "20M", 3 << 30: "3.0G", 1<<40 - 1: "1.0T",
	} {
		require.Equal(t, want, humanSize(n), "%d", n)
	}
}
