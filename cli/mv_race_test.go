package cli

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// hook:// is an in-memory destination whose publication of a file named
// "a" runs the hook registered for its authority, once: the test's damage to
// the source, done after mv has read a and before it deletes anything.
type hookFS struct {
	*aferofs.FileSystem
	hook func()
	once *sync.Once
}

type hookedOutput struct {
	vfs.OutputStream
	fs hookFS
}

func (o hookedOutput) Close() error {
	err := o.OutputStream.Close()
	if err == nil {
		o.fs.once.Do(o.fs.hook)
	}
	return err
}

// CreateUnsynced is Create (with its directory sync): a tree copy creates
// its files this way (vfs.DirSyncer), and must meet the same wrapper.
func (h hookFS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return h.Create(ctx, p, mode)
}

func (h hookFS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := h.FileSystem.Create(ctx, p, mode)
	if err != nil || p.Name() != "a" {
		return out, err
	}
	return hookedOutput{out, h}, nil
}

var (
	hooks    sync.Map // authority → hookFS
	hookRuns atomic.Int64
)

func hookFactory(_ context.Context, u *url.URL) (vfs.FileSystem, error) {
	if h, ok := hooks.Load(u.Host); ok {
		return h.(hookFS), nil
	}
	return nil, fmt.Errorf("no hook:// file system %q", u.Host)
}

// newHookRoot returns hook://AUTHORITY for one test, whose hook is damage.
func newHookRoot(t *testing.T, damage func()) string {
	return newHookRootOfKind(t, vfs.KindFileSystem, damage)
}

// newHookRootOfKind is newHookRoot for a file system that reports kind.
func newHookRootOfKind(t *testing.T, kind vfs.Kind, damage func()) string {
	t.Helper()
	auth := fmt.Sprintf("hook%d", hookRuns.Add(1))
	fsys, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "hook", Authority: auth, Kind: kind})
	require.NoError(t, err)
	hooks.Store(auth, hookFS{FileSystem: fsys, hook: damage, once: &sync.Once{}})
	t.Cleanup(func() { hooks.Delete(auth) })
	return "hook://" + auth
}

// readAt reads uri through the command line's registry; ok is false when it
// does not exist.
func readAt(t *testing.T, uri string) (string, bool) {
	t.Helper()
	fsys, err := testApp(t).reg.Get(t.Context(), uri)
	require.NoError(t, err)
	if found, err := vfs.Exists(t.Context(), fsys, vfs.MustPath(uri)); err != nil || !found {
		require.NoError(t, err)
		return "", false
	}
	data, err := vfs.ReadFile(t.Context(), fsys, vfs.MustPath(uri))
	require.NoError(t, err)
	return string(data), true
}

// gsRoot returns gs://BUCKET, a fresh bucket of the shared fake-gcs-server.
func gsRoot(t *testing.T) string { return "gs://" + gcstest.Shared(t).NewBucket() }

// azblobRoot returns azblob://CONTAINER, a fresh container of the shared
// Azurite.
func azblobRoot(t *testing.T) string {
	c, err := azuritetest.Shared(t).NewContainer(t.Context())
	require.NoError(t, err)
	return "azblob://" + c
}

// TestMvLeavesWhatChangedDuringTheMove: mv across file systems while the
// source is written: a copied file is rewritten and a new file appears
// before mv deletes anything. Both stay at the source byte for byte, mv
// names them and exits 1; the unchanged files are moved.
func TestMvLeavesWhatChangedDuringTheMove(t *testing.T) {
	roots := map[string]func(t *testing.T) string{
		"memory": memRoot,
		"file":   func(t *testing.T) string { return "file://" + t.TempDir() },
		"s3":     s3Root,
		"gs":     gsRoot,
		"azblob": azblobRoot,
	}
	for name, root := range roots {
		t.Run(name, func(t *testing.T) {
			src := root(t) + "/src"
			writeTo(t, src+"/a", "version one of a")
			writeTo(t, src+"/b", "bee")
			writeTo(t, src+"/sub/c", "sea")
			damaged := false
			dst := newHookRoot(t, func() {
				damaged = true
				writeTo(t, src+"/a", "version two of a, written during the move")
				writeTo(t, src+"/sub/new", "a file that appeared during the move")
			}) + "/dst"

			msg := fails(t, ExitFailure, "mv", src, dst)
			require.True(t, damaged, "the hook ran")
			assert.Contains(t, msg, src+"/a")
			assert.Contains(t, msg, src+"/sub/new")

			got, found := readAt(t, src+"/a")
			assert.True(t, found)
			assert.Equal(t, "version two of a, written during the move", got)
			got, found = readAt(t, src+"/sub/new")
			assert.True(t, found)
			assert.Equal(t, "a file that appeared during the move", got)
			for _, gone := range []string{"/b", "/sub/c"} {
				_, found := readAt(t, src+gone)
				assert.False(t, found, "%s was moved", gone)
			}
			for rel, want := range map[string]string{"/a": "version one of a", "/b": "bee", "/sub/c": "sea"} {
				got, found := readAt(t, dst+rel)
				assert.True(t, found, rel)
				assert.Equal(t, want, got, rel)
			}
			_, found = readAt(t, dst+"/sub/new")
			assert.False(t, found)
			assert.Equal(t, 2, strings.Count(msg, "left at the source:"), "exactly the two files are named: %s", msg)
			assert.Contains(t, msg, "left at the source: "+src+"/a (changed since it was copied)")
			assert.Contains(t, msg, "left at the source: "+src+"/sub/new (appeared during the move)")
		})
	}
}

// TestMvWithinAnObjectStoreLeavesWhatChanged: within one object store a
// rename would be a copy and a delete that cannot tell a rewritten key, so
// mv moves through vfs.MoveTree there too: a file rewritten after it was
// copied stays at the source with its new bytes, named, exit 1.
func TestMvWithinAnObjectStoreLeavesWhatChanged(t *testing.T) {
	var root string
	// raw writes below the hook (a write of a file named "a" through hook://
	// would run the hook itself).
	raw := func(rel, data string) {
		h, ok := hooks.Load(strings.TrimPrefix(root, "hook://"))
		require.True(t, ok)
		require.NoError(t, vfs.WriteFile(t.Context(), h.(hookFS).FileSystem, vfs.MustPath(root+rel), []byte(data), vfs.Overwrite))
	}
	root = newHookRootOfKind(t, vfs.KindObjectStore, func() { raw("/src/a", "version two of a, written during the move") })
	raw("/src/a", "version one of a")
	raw("/src/b", "bee")

	msg := fails(t, ExitFailure, "mv", root+"/src", root+"/dst")
	assert.Contains(t, msg, "left at the source: "+root+"/src/a (changed since it was copied)")
	got, found := readAt(t, root+"/src/a")
	require.True(t, found)
	assert.Equal(t, "version two of a, written during the move", got)
	got, _ = readAt(t, root+"/dst/a")
	assert.Equal(t, "version one of a", got)
	got, _ = readAt(t, root+"/dst/b")
	assert.Equal(t, "bee", got)
	_, found = readAt(t, root+"/src/b")
	assert.False(t, found, "b was moved")
}
