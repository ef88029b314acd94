package conformance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// Defaults for the Harness knobs.
const (
	// DefaultLargeFileSize is the size of the file ReadWrite/Large writes and reads
	// back: 16 MiB, larger than any sane write buffer or multipart part size.
	DefaultLargeFileSize = 16 << 20
	// DefaultListSize is the number of entries List/Many creates and lists: more than
	// 1,000, the page size of S3's ListObjectsV2, so a backend must follow pages.
	DefaultListSize = 1100
)

// Harness tells the suite how to get a file system to test. Only New is required;
// the zero value of every other field means "the full, default behaviour".
//
// Capabilities are not configured here: the suite asks the file system's Kind, and
// on vfs.KindObjectStore skips exactly the cases the contract exempts object stores
// from (see the package documentation). A backend cannot opt out of anything else.
type Harness struct {
	// New returns a filesystem and an empty directory under it that the test owns.
	//
	// It is called once per case with that case's *testing.T, so it may use
	// t.Cleanup to remove the directory and t.Fatal when the backend cannot be
	// reached. The directory may be given with or without the file system's scheme
	// and authority; it must be absolute, or relative to the file system's working
	// directory. It need not exist (the suite calls Mkdirs on it first, as Flink's
	// suite does), but it must hold nothing, and no one else may write under it
	// while the case runs. Successive calls may return the same file system as long
	// as the directories differ. Note that t.Context() is already cancelled when
	// t.Cleanup functions run; clean up with a context of your own.
	New func(t *testing.T) (vfs.FileSystem, vfs.Path)

	// LargeFileSize is the size in bytes of the file that ReadWrite/Large writes in
	// many chunks and reads back. Zero means DefaultLargeFileSize (16 MiB). Set it
	// lower only for a slow test server; it must not be negative.
	LargeFileSize int64

	// ListSize is the number of files List/Many creates in one directory and
	// expects to list, complete and sorted. Zero means DefaultListSize (1,100). Set
	// it lower only for a slow test server; it must not be negative.
	ListSize int

	// Registered says that the file system's scheme is registered in vfs's default
	// registry, so that Scheme/Registry checks, as Flink's testPathAndScheme does,
	// that vfs.Get on the test directory serves a file system with the same URI.
	// Leave it false for an unregistered scheme or an instance vfs.Get cannot reach.
	Registered bool

	// OtherFileSystem, when set, returns a file system other than New's (another
	// bucket or authority) and an empty directory on it, with a recoverable
	// writer of the same kind, so that Recoverable/BadTokens checks that a token
	// of another file system is refused. Unset, the suite calls New a second time
	// and uses what it returns when that is another file system (memory:// gives
	// each call its own), and skips the check otherwise.
	OtherFileSystem func(t *testing.T) (vfs.FileSystem, vfs.Path)

	// RecoverableLeftovers, when set, returns what the file system still keeps
	// for recoverable streams writing under dir that a listing of dir does not
	// show (temporary objects kept elsewhere, incomplete multipart uploads), by
	// name. The Recoverable group requires it to return nothing after commit and
	// cleanup, on top of requiring that a walk of dir finds only the committed
	// files. Unset, the walk is the only check.
	RecoverableLeftovers func(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path) ([]string, error)

	// PutObject, when set, writes an object the way another client of the
	// store would, bypassing the file system: the object of the key of dir
	// (its path without the leading "/") followed by "/" and name (which may
	// end in "/"), holding data, with the Content-Type and user metadata
	// given. The Markers group then checks that the directory markers other
	// clients write ("d/", Hadoop's "d_$folder$") read as directories and
	// that a recursive Delete removes them. Unset, the group is skipped.
	PutObject func(ctx context.Context, dir vfs.Path, name string, data []byte, contentType string, metadata map[string]string) error

	// FolderBlobs says that the store holds ADLS's folder blobs (a blob with
	// the metadata hdi_isfolder=true names a directory), which the Markers
	// group then checks too (with PutObject).
	FolderBlobs bool
}

// Run runs every case of the suite as a subtest of t, named Group/Case, on the file
// systems that h.New returns. A case fails when the file system breaks the
// vfs.FileSystem contract; cases the contract does not apply to are skipped with the
// reason (see the package documentation on object stores).
func Run(t *testing.T, h Harness) {
	t.Helper()
	if h.New == nil {
		t.Fatal("conformance: Harness.New is nil; it must return a file system and an empty directory the test owns")
	}
	if h.LargeFileSize < 0 {
		t.Fatalf("conformance: Harness.LargeFileSize is %d; want 0 (the default, %d) or a positive size", h.LargeFileSize, DefaultLargeFileSize)
	}
	if h.ListSize < 0 {
		t.Fatalf("conformance: Harness.ListSize is %d; want 0 (the default, %d) or a positive count", h.ListSize, DefaultListSize)
	}
	if h.LargeFileSize == 0 {
		h.LargeFileSize = DefaultLargeFileSize
	}
	if h.ListSize == 0 {
		h.ListSize = DefaultListSize
	}
	for _, g := range suite() {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				t.Run(c.name, func(t *testing.T) {
					e := newEnv(t, h)
					if c.fileSystemOnly != "" && e.objectStore {
						t.Skipf("not required of object stores: %s", c.fileSystemOnly)
					}
					c.run(t, e)
				})
			}
		})
	}
}

// testCase is one named check of the contract.
type testCase struct {
	name string
	// fileSystemOnly, when set, says why the case does not apply to object stores
	// (vfs.KindObjectStore); the case is skipped on them.
	fileSystemOnly string
	run            func(t *testing.T, e *env)
}

// group is a set of cases about one operation; it becomes one level of subtests.
type group struct {
	name  string
	cases []testCase
}

// suite lists every group in the order Run runs them.
func suite() []group {
	return []group{
		{"Scheme", schemeCases},
		{"Exists", existsCases},
		{"Stat", statCases},
		{"Delete", deleteCases},
		{"DeleteVersion", deleteVersionCases},
		{"Mkdirs", mkdirsCases},
		{"ReadWrite", readWriteCases},
		{"Create", createCases},
		{"Open", openCases},
		{"Read", readCases},
		{"List", listCases},
		{"Rename", renameCases},
		{"Markers", markerCases},
		{"Concurrent", concurrentCases},
		{"Names", nameCases},
		{"FastPaths", fastPathCases},
		{"IOFS", iofsCases},
		{"Recoverable", recoverableCases},
	}
}

// env is what a case works with: the file system, its own directory and the
// harness settings.
type env struct {
	h    Harness
	ctx  context.Context
	fsys vfs.FileSystem
	// raw is the directory exactly as the harness returned it.
	raw vfs.Path
	// dir is raw qualified with the file system's scheme and authority.
	dir         vfs.Path
	objectStore bool
}

func newEnv(t *testing.T, h Harness) *env {
	t.Helper()
	fsys, raw := h.New(t)
	require.NotNil(t, fsys, "conformance: Harness.New returned a nil file system")
	require.False(t, raw.IsZero(), "conformance: Harness.New returned the zero Path as the test directory")
	dir, err := vfs.Qualify("conformance", fsys, raw)
	require.NoError(t, err, "conformance: Harness.New returned a test directory %q that does not belong to its file system %s", raw, fsys.URI())
	require.NoError(t, fsys.Mkdirs(t.Context(), dir), "conformance: Mkdirs(%s) of the test directory from Harness.New", dir)
	return &env{
		h:           h,
		ctx:         t.Context(),
		fsys:        fsys,
		raw:         raw,
		dir:         dir,
		objectStore: fsys.Kind() == vfs.KindObjectStore,
	}
}

// Reasons for skipping cases on object stores, quoting the contract.
const (
	noEmptyDirs   = "an empty directory need not exist on an object store (directories are prefixes)"
	noDirsOnFiles = "an object store need not refuse Mkdirs on or under a file (it has no real directories)"
	fileNextToDir = "an object store can hold the key \"d\" next to keys under \"d/\", so Create need not refuse a directory's path"
)
