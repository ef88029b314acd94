package conformance_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/vfs"
)

// TestRunOnMemfs runs the whole suite in-process on the healthy memfs, with a
// shared file system and cleanup as the package documentation recommends.
func TestRunOnMemfs(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("this is the child process")
	}
	fsys := memfs.New()
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := vfs.MustPath("/conformance").Join(t.Name())
			t.Cleanup(func() { require.NoError(t, fsys.Delete(context.Background(), dir, true)) })
			return fsys, dir
		},
		OtherFileSystem: func(t *testing.T) (vfs.FileSystem, vfs.Path) { return memfs.NewTest(t) },
	})
	var files []string
	err := vfs.Walk(context.Background(), fsys, vfs.MustPath("/conformance"), func(st vfs.FileStatus, err error) error {
		if err == nil && !st.IsDir {
			files = append(files, st.Path.String())
		}
		return err
	})
	require.NoError(t, err, "Walk after the suite")
	require.Empty(t, files, "files left after every case's directory was cleaned up")
}

// TestRunOnInvertingLayer runs the whole suite on a layer that changes the
// bytes in Create and Open and overrides every fast path alike: the cases
// that catch a forgotten override (FastPaths) pass on the complete layer, and
// what it stores below is the complement of what was written.
func TestRunOnInvertingLayer(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("this is the child process")
	}
	inner := memfs.New()
	fsys := &invertingComplete{inverting{broken(inner)}}
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			return fsys, vfs.MustPath("/conformance").Join(t.Name())
		},
	})
	ctx := context.Background()
	p := vfs.MustPath("/stored")
	require.NoError(t, vfs.WriteFile(ctx, fsys, p, []byte{0x00, 0x0f}, vfs.NoOverwrite))
	raw, err := vfs.ReadFile(ctx, inner, p)
	require.NoError(t, err)
	require.Equal(t, []byte{0xff, 0xf0}, raw, "bytes stored below the layer")
}

// TestRunRejectsInvalidHarness requires Run to fail, with a message naming the
// field, on a harness it cannot use.
func TestRunRejectsInvalidHarness(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("this is the child process")
	}
	for mode, want := range map[string]string{
		invalidNilNew:        "Harness.New is nil",
		invalidLargeFileSize: "Harness.LargeFileSize is -1",
		invalidListSize:      "Harness.ListSize is -5",
		invalidDirectory:     "does not belong to its file system",
	} {
		t.Run(mode, func(t *testing.T) {
			out, err := runChild(t, mode, "Scheme/URI")
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "Run accepted an invalid harness (%s); output:\n%s", mode, out)
			require.Contains(t, out, want, "the failure must explain the invalid harness")
			require.NotContains(t, out, "panic:")
		})
	}
}

// Child modes with invalid harnesses.
const (
	invalidNilNew        = "invalid-nil-new"
	invalidLargeFileSize = "invalid-large-file-size"
	invalidListSize      = "invalid-list-size"
	invalidDirectory     = "invalid-directory"
)

// invalidHarness returns the harness of an invalid-* child mode, or false.
func invalidHarness(mode string) (conformance.Harness, bool) {
	healthy := func(*testing.T) (vfs.FileSystem, vfs.Path) {
		return memfs.New(), vfs.MustPath("/conformance")
	}
	switch mode {
	case invalidNilNew:
		return conformance.Harness{}, true
	case invalidLargeFileSize:
		return conformance.Harness{New: healthy, LargeFileSize: -1}, true
	case invalidListSize:
		return conformance.Harness{New: healthy, ListSize: -5}, true
	case invalidDirectory:
		return conformance.Harness{New: func(*testing.T) (vfs.FileSystem, vfs.Path) {
			return memfs.New(), vfs.MustPath("other-scheme://host/dir")
		}}, true
	}
	return conformance.Harness{}, false
}
