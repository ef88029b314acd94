package blobfs

import (
	"strings"
	"testing"

	"github.com/vfskit/vfskit/vfs"
)

// FuzzChildName checks that every listed key either maps to a single entry name
// that a vfs.Path under the directory names exactly, or is left out.
func FuzzChildName(f *testing.F) {
	for _, s := range []string{"dir/a", "dir/", "dir//x", "dir/./y", "dir/../z", "dir/b/", "dir/a\\b", "dir/...__0x2f__...", "dir/ünï"} {
		f.Add(s, strings.HasSuffix(s, "/"))
	}
	parent := vfs.MustPath("mem://b/dir")
	f.Fuzz(func(t *testing.T, key string, isDir bool) {
		if !strings.HasPrefix(key, "dir/") {
			return
		}
		name, child, _, ok := childName(parent, "dir/", key, isDir)
		if !ok {
			return
		}
		if name == "" || strings.Contains(name, "/") {
			t.Fatalf("key %q gave entry name %q", key, name)
		}
		if got := parent.Join(name); got.Name() != name || got.Parent() != parent || got != child {
			t.Fatalf("key %q: entry %q joins to %s", key, name, got)
		}
	})
}
