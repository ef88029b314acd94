// Package memfs is vfskit's in-memory file system, registered for the "memory"
// scheme. It is the aferofs engine over an in-memory tree of its own (an
// afero.Fs), so it has every guarantee of a real file system: directories,
// atomic rename (of whole trees), files visible only after Close, and the vfs
// error sentinels.
//
// # Performance
//
// Every operation costs O(depth of the path), whatever the number of files:
// each directory holds a map of its entries, and a file is written unnamed
// (aferofs.Publisher) and linked into its directory at Close, one map entry,
// under one lock and without a second walk unless a directory was moved or
// removed meanwhile. afero.MemMapFs, which memfs used before, renames by
// scanning every file of the file system, so writing n small files took O(n²).
// A small file costs three allocations (the stream, 176 bytes; the file with
// its handle, 224 bytes, which is all it keeps besides its contents and its
// directory entry; the contents) and no per-file context work: about 1.5 KiB
// allocated and 1.2 KiB kept for 1 KiB of contents. The file is written
// without locks (one goroutine owns it until Close), created under the tree's
// read lock when its directory exists, and stated without building an
// os.FileInfo (aferofs.Statuser). File contents grow in chunks and are never
// copied when appended to. A listing is one consistent snapshot: it names every
// entry once even while files are being overwritten. The benchmarks in bench_test.go
// compare memfs with afero.MemMapFs used directly (see bench/README.md).
//
// # Exactly-once writes
//
// vfs.NewRecoverableWriter gives the engine's recoverable writer
// (aferofs.FileSystem.RecoverableWriter), as on file://: an in-progress file
// ".vfskit-inprogress-<write id><check>-<name>" next to the target (left out
// of listings: aferofs.IsInProgressName), renamed into place at Commit. Its tokens are valid as long as the process keeps the
// file system's contents.
//
// # URLs
//
// memory://name/path. Every authority ("name") is one independent file system
// for the whole process: memory://a/ and memory://b/ never see each other's
// files, and memory://a/ is the same file system wherever it is reached from
// (vfs.Get, any vfs.Registry, Shared). "memory:///x" uses the empty authority.
// The working and home directories are "/". New returns a private file system
// under a unique authority; NewTest does so for one test and drops it when the
// test ends (isolation for tests, where a named authority would be shared).
//
// Importing the package (even blank) registers the scheme with vfs.Register:
//
//	import _ "github.com/vfskit/vfskit/backends/memfs"
//
// Contents live as long as the process (Reset drops an authority's contents).
package memfs

import (
	"context"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/vfs"
)

// Scheme is the URI scheme of the in-memory file system.
const Scheme = "memory"

func init() {
	vfs.Register(Scheme, Factory)
}

// Factory is the vfs.Factory for the "memory" scheme: it returns Shared for the
// URI's authority.
func Factory(_ context.Context, uri *url.URL) (vfs.FileSystem, error) {
	authority := uri.Host
	if uri.User != nil {
		authority = uri.User.String() + "@" + authority
	}
	return Shared(authority)
}

var (
	mu     sync.Mutex
	shared = map[string]*aferofs.FileSystem{}
	nextID atomic.Uint64
)

// Shared returns the process-wide file system of memory://authority/, creating
// it (empty) on first use. It fails with fs.ErrInvalid for an authority that
// cannot be part of a URI (one with a slash, for example).
func Shared(authority string) (*aferofs.FileSystem, error) {
	mu.Lock()
	defer mu.Unlock()
	if fsys, ok := shared[authority]; ok {
		return fsys, nil
	}
	fsys, err := newFS(authority)
	if err != nil {
		return nil, err
	}
	shared[authority] = fsys
	return fsys, nil
}

// New returns a new, empty in-memory file system under a fresh authority
// ("vfskit-private-N") that no other caller uses, for tests and scratch space.
// Its paths can be given to vfs.Get like any other memory:// path.
func New() *aferofs.FileSystem {
	for {
		fsys, err := Shared("vfskit-private-" + strconv.FormatUint(nextID.Add(1), 10))
		if err != nil {
			panic("memfs: " + err.Error()) // unreachable: the authority is valid
		}
		if empty(fsys) {
			return fsys
		}
	}
}

// NewTest returns a new, empty in-memory file system for the test tb (a
// *testing.T or *testing.B) and its root directory, memory://<authority>/.
// The authority is unique (see New), so the file system is isolated from every
// other test, also under t.Parallel and go test -count=N, while its paths
// still resolve through vfs.Get and any vfs.Registry. When the test ends its
// contents are dropped and the authority is forgotten.
func NewTest(tb vfs.TB) (*aferofs.FileSystem, vfs.Path) {
	tb.Helper()
	fsys := New()
	authority := fsys.URI().Host
	tb.Cleanup(func() {
		Reset(authority)
		mu.Lock()
		delete(shared, authority)
		mu.Unlock()
	})
	return fsys, vfs.MustPath(fsys.URI().String())
}

// Reset drops every file and directory of memory://authority/ (the file system
// stays registered and empty). Streams still writing to it fail at Close.
func Reset(authority string) {
	mu.Lock()
	fsys, ok := shared[authority]
	mu.Unlock()
	if !ok {
		return
	}
	fsys.Afero().(*tree).clear()
}

func newFS(authority string) (*aferofs.FileSystem, error) {
	return aferofs.New(newTree(), aferofs.Options{Scheme: Scheme, Authority: authority})
}

// empty reports whether fsys has no entries (a user may have named an authority
// like a private one before New reached its number).
func empty(fsys *aferofs.FileSystem) bool {
	return fsys.Afero().(*tree).empty()
}
