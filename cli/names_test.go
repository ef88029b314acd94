package cli

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vfskit/vfskit/vfs"
)

// hostilePieces are what hostile names are made of: URI syntax, escapes of
// every kind, spaces, unicode, and text that looks like gocloud's escapes.
var hostilePieces = []string{
	"?", "#", "%", "%41", "%2F", `\`, " ", "  ", "é", "日本", "🙂", "__0x41__", "__0x2f__", "__0x5f__", "_",
	"..", ".", "a", "Z", "0", "+", "&", "=", ":", "@", "~", "'", `"`, "*", "[", "]", "{}", "$", "!", ";", ",",
	"?x=1", "#frag", "..\\", "\t",
}

// hostileNames returns n distinct names built from hostilePieces with rng,
// some with leading or trailing spaces; never "", "." or "..", never with '/',
// and without the pieces drop refuses.
func hostileNames(rng *rand.Rand, n int, drop func(piece string) bool) []string {
	var names []string
	seen := map[string]bool{}
	for len(names) < n {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			p := hostilePieces[rng.IntN(len(hostilePieces))]
			if drop(p) {
				continue
			}
			b.WriteString(p)
		}
		name := b.String()
		switch rng.IntN(4) {
		case 0:
			name = " " + name
		case 1:
			name += " "
		}
		if strings.Trim(name, ".") == "" || seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
	}
	return names
}

// checkHostileNames writes files with generated hostile names under dir
// through the library (exact Join), lists dir with "vfskit ls", and reads
// every listed name back with "vfskit cat" byte for byte; then removes half of
// them with one "vfskit rm" and checks that exactly the other half is left.
func checkHostileNames(t *testing.T, dir string, seed uint64, n int, drop func(string) bool) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	names := hostileNames(rng, n, drop)
	loc, err := testApp(t).resolve(t.Context(), dir)
	require.NoError(t, err)
	want := map[string]string{}
	for i, name := range names {
		data := fmt.Sprintf("%d:%q:%x", i, name, rng.Uint64())
		want[name] = data
		p := loc.path.Join(name)
		require.Equal(t, name, p.Name(), "Join keeps the name %q", name)
		require.NoError(t, vfs.WriteFile(t.Context(), loc.fsys, p, []byte(data), vfs.NoOverwrite), "write %q", name)
	}
	listed := strings.Split(strings.TrimSuffix(ok(t, "ls", dir), "\n"), "\n")
	assert.ElementsMatch(t, names, listed, "ls shows every name as written")
	for _, name := range listed {
		got := vfskit(t, "cat", dir+"/"+name)
		require.Equal(t, ExitOK, got.code, "cat of listed name %q: %s", name, got.stderr)
		assert.Equal(t, want[name], got.stdout, "the listed name %q reads its own file", name)
	}
	slices.Sort(names)
	var gone []string
	for _, name := range names[:len(names)/2] {
		gone = append(gone, dir+"/"+name)
	}
	ok(t, append([]string{"rm"}, gone...)...)
	left := strings.Split(strings.TrimSuffix(ok(t, "ls", dir), "\n"), "\n")
	assert.ElementsMatch(t, names[len(names)/2:], left, "rm removed exactly the names given")
}

// noneDropped keeps every piece.
func noneDropped(string) bool { return false }

// TestHostileNamesRoundTrip is the property "a name that ls prints reaches the
// same object again", on memory and local disk, over generated names.
func TestHostileNamesRoundTrip(t *testing.T) {
	for seed := range uint64(3) {
		t.Run(fmt.Sprint("memory/", seed), func(t *testing.T) {
			checkHostileNames(t, memRoot(t)+"/h", seed, 40, noneDropped)
		})
		t.Run(fmt.Sprint("file/", seed), func(t *testing.T) {
			checkHostileNames(t, "file://"+t.TempDir(), seed, 40, noneDropped)
		})
	}
}

// TestHostileNamesRoundTripOnS3 is TestHostileNamesRoundTrip on SeaweedFS,
// without '\' (SeaweedFS stores it as '/') and control characters (S3 cannot
// list them; vfskit refuses them at write time).
func TestHostileNamesRoundTripOnS3(t *testing.T) {
	root := s3Root(t)
	drop := func(p string) bool { return strings.ContainsAny(p, "\\\t") }
	for seed := range uint64(2) {
		checkHostileNames(t, fmt.Sprintf("%s/h%d", root, seed), seed, 30, drop)
	}
}
