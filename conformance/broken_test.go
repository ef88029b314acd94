package conformance_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/conformance"
	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// The meta-test: the suite must fail on file systems that break the contract.
//
// Each breakage wraps a healthy memfs and breaks one rule. TestSuiteCatchesBreakages
// runs this test binary again, with the breakage named in brokenEnv, limited to the
// suite case that should notice, and requires that case to fail (and not by a
// panic). A control run first requires every one of those cases to pass on the
// healthy memfs, so each failure is the breakage's doing. Child processes are used
// because a failed *testing.T cannot be caught in-process; they run the suite with
// real testing.T semantics, exactly as an integrator's test does.

// brokenEnv names the breakage TestBrokenBackendChild applies ("none" for none).
const brokenEnv = "VFSKIT_CONFORMANCE_BREAKAGE"

// childTest is the name of the test the child process runs.
const childTest = "TestBrokenBackendChild"

// breakage is one deliberate violation of the contract.
type breakage struct {
	name string // the value of brokenEnv
	// catches is the suite case, "Group/Case", that must fail on it.
	catches string
	wrap    func(vfs.FileSystem) vfs.FileSystem
}

var breakages = []breakage{
	{"list-unsorted", "List/Sorted", func(f vfs.FileSystem) vfs.FileSystem { return &listUnsorted{broken(f)} }},
	{"list-truncated-at-1000", "List/Many", func(f vfs.FileSystem) vfs.FileSystem { return &listTruncated{broken(f)} }},
	{"list-file-empty", "List/File", func(f vfs.FileSystem) vfs.FileSystem { return &listFileEmpty{broken(f)} }},
	{"no-overwrite-overwrites", "Create/NoOverwriteExisting", func(f vfs.FileSystem) vfs.FileSystem { return streams(&noOverwriteOverwrites{broken(f)}) }},
	{"overwrite-refused", "Create/OverwriteExisting", func(f vfs.FileSystem) vfs.FileSystem { return streams(&overwriteRefused{broken(f)}) }},
	{"visible-before-close", "Create/InvisibleUntilClose", func(f vfs.FileSystem) vfs.FileSystem { return streams(&visibleBeforeClose{broken(f)}) }},
	{"cancel-ignored", "Create/CancelledContext", func(f vfs.FileSystem) vfs.FileSystem { return streams(&cancelIgnored{broken(f)}) }},
	{"abort-ignored", "Create/Abort", func(f vfs.FileSystem) vfs.FileSystem { return streams(&abortIgnored{broken(f)}) }},
	{"write-after-close-accepted", "Create/WriteAfterClose", func(f vfs.FileSystem) vfs.FileSystem { return streams(&writeAfterClose{broken(f)}) }},
	{"pos-stuck-at-zero", "ReadWrite/ManySmallWrites", func(f vfs.FileSystem) vfs.FileSystem { return streams(&posStuck{broken(f)}) }},
	{"large-write-truncated", "ReadWrite/Large", func(f vfs.FileSystem) vfs.FileSystem { return streams(&largeTruncated{broken(f)}) }},
	{"no-overwrite-check-then-act", "Concurrent/NoOverwriteRace", func(f vfs.FileSystem) vfs.FileSystem { return streams(&noOverwriteRacy{broken(f)}) }},
	{"rename-check-then-act", "Concurrent/RenameRace", func(f vfs.FileSystem) vfs.FileSystem { return &renameRacy{base: broken(f)} }},
	// An object store whose Rename is an unconditional copy after a check: what
	// the s3 backend did before its copies became conditional.
	{"object-store-rename-check-then-copy", "Concurrent/RenameRace", func(f vfs.FileSystem) vfs.FileSystem {
		return &renameRacy{base: broken(objectStoreOver(f))}
	}},
	{"object-store-no-overwrite-check-then-put", "Concurrent/NoOverwriteRace", func(f vfs.FileSystem) vfs.FileSystem {
		return streams(&noOverwriteRacy{broken(objectStoreOver(f))})
	}},
	{"delete-ignores-recursive", "Delete/NonEmptyDirNonRecursive", func(f vfs.FileSystem) vfs.FileSystem { return streams(&deleteAlwaysRecursive{broken(f)}) }},
	{"delete-missing-fails", "Delete/Missing", func(f vfs.FileSystem) vfs.FileSystem { return streams(&deleteMissingFails{broken(f)}) }},
	{"delete-prefix-siblings", "Delete/SiblingsUntouched", func(f vfs.FileSystem) vfs.FileSystem { return streams(&deletePrefix{broken(f)}) }},
	{"rename-overwrites", "Rename/OntoExistingFile", func(f vfs.FileSystem) vfs.FileSystem { return &renameOverwrites{broken(f)} }},
	{"rename-leaves-source-dir", "Rename/Directory", func(f vfs.FileSystem) vfs.FileSystem { return &renameLeavesSource{broken(f)} }},
	{"rename-missing-source-nil", "Rename/MissingSource", func(f vfs.FileSystem) vfs.FileSystem { return &renameMissingNil{broken(f)} }},
	{"mkdirs-on-file-succeeds", "Mkdirs/OnFile", func(f vfs.FileSystem) vfs.FileSystem { return &mkdirsOnFile{broken(f)} }},
	{"mkdirs-creates-nothing", "Mkdirs/New", func(f vfs.FileSystem) vfs.FileSystem { return &mkdirsNoop{broken(f)} }},
	{"stat-dir-as-file", "Stat/Directory", func(f vfs.FileSystem) vfs.FileSystem { return &statDirAsFile{broken(f)} }},
	{"stat-size-off-by-one", "Stat/File", func(f vfs.FileSystem) vfs.FileSystem { return &statSizeWrong{broken(f)} }},
	{"stat-modtime-year-one", "Stat/EmptyFile", func(f vfs.FileSystem) vfs.FileSystem { return &statNoModTime{broken(f)} }},
	{"errors-without-sentinels", "Open/Missing", func(f vfs.FileSystem) vfs.FileSystem { return streams(&openErrorsFlattened{broken(f)}) }},
	{"errors-not-path-errors", "Stat/Missing", func(f vfs.FileSystem) vfs.FileSystem { return &statBareErrors{broken(f)} }},
	{"open-dir-reads-empty", "Open/Directory", func(f vfs.FileSystem) vfs.FileSystem { return streams(&openDirEmpty{broken(f)}) }},
	{"seek-off-by-one", "Read/Seek", func(f vfs.FileSystem) vfs.FileSystem { return streams(&seekOffByOne{broken(f)}) }},
	{"readat-short-without-eof", "Read/ReadAt", func(f vfs.FileSystem) vfs.FileSystem { return streams(&readAtNoEOF{broken(f)}) }},
	{"readat-moves-offset", "Read/ReadAtKeepsOffset", func(f vfs.FileSystem) vfs.FileSystem { return streams(&readAtMoves{broken(f)}) }},
	{"foreign-scheme-accepted", "Scheme/ForeignSchemeRejected", func(f vfs.FileSystem) vfs.FileSystem { return &foreignAccepted{broken(f)} }},
	{"zero-path-is-working-dir", "Scheme/ZeroPathRejected", func(f vfs.FileSystem) vfs.FileSystem { return &zeroPathAccepted{broken(f)} }},
	{"home-of-another-scheme", "Scheme/HomeDirectory", func(f vfs.FileSystem) vfs.FileSystem { return &homeWrongScheme{broken(f)} }},
	{"names-url-unescaped", "Names/Files", func(f vfs.FileSystem) vfs.FileSystem { return streams(&namesUnescaped{broken(f)}) }},
	{"list-names-trimmed", "Names/Directories", func(f vfs.FileSystem) vfs.FileSystem { return &listTrimmed{broken(f)} }},
	{"cancel-ignored-before-create", "Create/CancelledBeforeCreate", func(f vfs.FileSystem) vfs.FileSystem { return streams(&cancelIgnored{broken(f)}) }},
	{"create-on-dir-wrong-sentinel", "Create/OnDirectory", func(f vfs.FileSystem) vfs.FileSystem { return streams(&createOnDirExist{broken(f)}) }},
	{"list-sizes-zero", "List/Statuses", func(f vfs.FileSystem) vfs.FileSystem { return &listSizesZero{broken(f)} }},
	{"list-modtime-differs-from-stat", "IOFS/TestFS", func(f vfs.FileSystem) vfs.FileSystem { return &listModTimeShifted{broken(f)} }},
	{"recursive-delete-shallow", "Delete/NestedRecursive", func(f vfs.FileSystem) vfs.FileSystem { return streams(&deleteShallow{broken(f)}) }},
	{"uri-with-path", "Scheme/URI", func(f vfs.FileSystem) vfs.FileSystem { return &uriWithPath{broken(f)} }},
	{"relative-paths-rejected", "Scheme/RelativePaths", func(f vfs.FileSystem) vfs.FileSystem { return streams(&relativeRejected{broken(f)}) }},
	{"unqualified-paths-missing", "Scheme/UnqualifiedPaths", func(f vfs.FileSystem) vfs.FileSystem { return &unqualifiedMissing{broken(f)} }},
	{"rename-file-into-existing-dir", "Rename/FileOntoExistingDirectory", func(f vfs.FileSystem) vfs.FileSystem { return &renameIntoDir{broken(f)} }},
	{"streams-share-one-buffer", "Concurrent/DistinctWriters", func(f vfs.FileSystem) vfs.FileSystem { return streams(&sharedBuffer{base: broken(f)}) }},
	{"lazy-open-missing-reads-empty", "Open/Missing", func(f vfs.FileSystem) vfs.FileSystem { return streams(&lazyOpenReadsEmpty{objectStore{broken(f)}}) }},
	{"lazy-open-dir-reads-empty", "Open/Directory", func(f vfs.FileSystem) vfs.FileSystem { return streams(&lazyOpenReadsEmpty{objectStore{broken(f)}}) }},
	{"lazy-open-error-without-path", "Open/Missing", func(f vfs.FileSystem) vfs.FileSystem { return streams(&lazyOpenBareErrors{objectStore{broken(f)}}) }},
	{"stream-reopens-per-read", "Read/OneVersion", func(f vfs.FileSystem) vfs.FileSystem { return streams(&reopening{broken(f)}) }},
	// Layers that change the bytes in Create and Open (an encryption layer) but
	// inherit one fast path from layer.Base, which goes around the change.
	{"layer-forgets-create-unsynced", "FastPaths/CreateUnsynced", func(f vfs.FileSystem) vfs.FileSystem { return &invertingForgetsUnsynced{inverting{broken(f)}} }},
	{"layer-forgets-read-file", "FastPaths/StreamThenReadFile", func(f vfs.FileSystem) vfs.FileSystem { return &invertingForgetsReadFile{inverting{broken(f)}} }},
	{"stream-stat-size-off-by-one", "FastPaths/StreamStat", func(f vfs.FileSystem) vfs.FileSystem { return &streamStatWrong{broken(f)} }},
	{"layer-forgets-write-file", "FastPaths/WriteFileThenStream", func(f vfs.FileSystem) vfs.FileSystem { return &invertingForgetsWriteFile{inverting{broken(f)}} }},
	{"layer-forgets-open-beneath", "FastPaths/StreamThenOpenBeneath", func(f vfs.FileSystem) vfs.FileSystem { return &invertingForgetsOpenBeneath{inverting{broken(f)}} }},
	{"written-version-wrong", "DeleteVersion/WrittenVersion", func(f vfs.FileSystem) vfs.FileSystem { return &writtenVersionWrong{broken(f)} }},
	{"written-version-read-back", "DeleteVersion/WrittenVersionThenRewrite", func(f vfs.FileSystem) vfs.FileSystem { return &writtenVersionReadBack{broken(f)} }},
}

// TestBrokenBackendChild runs the suite on the breakage named in brokenEnv. It is
// skipped unless TestSuiteCatchesBreakages started this process.
func TestBrokenBackendChild(t *testing.T) {
	name := os.Getenv(brokenEnv)
	if name == "" {
		t.Skip("runs only as the child process of TestSuiteCatchesBreakages")
	}
	if h, ok := invalidHarness(name); ok {
		conformance.Run(t, h)
		return
	}
	wrap := func(f vfs.FileSystem) vfs.FileSystem { return f }
	switch name {
	case "none":
	case asObjectStore:
		wrap = objectStoreOver
	default:
		i := slices.IndexFunc(breakages, func(b breakage) bool { return b.name == name })
		require.GreaterOrEqual(t, i, 0, "unknown breakage %q in %s", name, brokenEnv)
		wrap = breakages[i].wrap
	}
	fsys := memfs.New()
	conformance.Run(t, conformance.Harness{
		New: func(t *testing.T) (vfs.FileSystem, vfs.Path) {
			dir := vfs.MustPath("/conformance").Join(t.Name())
			t.Cleanup(func() { _ = fsys.Delete(context.Background(), dir, true) })
			return wrap(fsys), dir
		},
		OtherFileSystem: func(t *testing.T) (vfs.FileSystem, vfs.Path) { return memfs.NewTest(t) },
	})
}

func TestSuiteCatchesBreakages(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("this is the child process")
	}
	// The control: every case used below passes on the healthy memfs, so a failure
	// under a breakage is that breakage's doing.
	var cases []string
	for _, b := range breakages {
		cases = append(cases, b.catches)
	}
	out, err := runChild(t, "none", cases...)
	require.NoError(t, err, "the suite fails on the healthy memfs, so the breakages prove nothing; output:\n%s", out)
	for _, c := range cases {
		require.Contains(t, out, "--- PASS: "+childTest+"/"+c+" ", "case %s did not run on the healthy memfs; output:\n%s", c, out)
	}

	for _, b := range breakages {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			out, err := runChild(t, b.name, b.catches)
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "the suite's case %s passed on a file system with breakage %q; output:\n%s", b.catches, b.name, out)
			require.Contains(t, out, "--- FAIL: "+childTest+"/"+b.catches+" ", "case %s did not fail on breakage %q; output:\n%s", b.catches, b.name, out)
			require.NotContains(t, out, "panic:", "the suite panicked instead of failing on breakage %q", b.name)
		})
	}
}

// asObjectStore is the child mode that runs the suite on memfs reporting itself as
// an object store.
const asObjectStore = "as-object-store"

// objectStoreSkips are the cases the suite skips on an object store: exactly those
// the contract exempts object stores from (and Scheme/Registry, which the harness
// did not ask for, and FastPaths/CreateUnsynced: the store has no vfs.DirSyncer).
var objectStoreSkips = []string{
	"Scheme/Registry",
	"FastPaths/CreateUnsynced",
	"Stat/EmptyDirectory",
	"Mkdirs/ExistingEmpty",
	"Mkdirs/OnFile",
	"Mkdirs/UnderFile",
	"Create/OnDirectory",
	"Create/UnderFile",
	"Open/EmptyDirectory",
	"List/EmptyDirectory",
	"Rename/EmptyDirectory",
	"Rename/OntoExistingEmptyDirectory",
}

// markerSkips are the Markers cases, skipped where the harness writes no
// objects as another client would (Harness.PutObject).
var markerSkips = []string{"Markers/SlashMarker", "Markers/SlashMarkerWithFiles", "Markers/HadoopFolder", "Markers/FolderBlob"}

func TestSuiteOnObjectStoreSkipsOnlyExemptCases(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("this is the child process")
	}
	out, err := runChild(t, asObjectStore)
	require.NoError(t, err, "the suite fails on memfs behaving as an object store; output:\n%s", out)
	var skipped []string
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "--- SKIP: "+childTest+"/"); ok {
			skipped = append(skipped, strings.Fields(rest)[0])
		}
	}
	require.ElementsMatch(t, slices.Concat(objectStoreSkips, markerSkips), skipped, "the cases skipped on an object store")
	require.Equal(t, len(objectStoreSkips), strings.Count(out, "not required of object stores")+2,
		"every object-store skip must say why")
}

// runChild runs this test binary on breakage name, limited to the suite cases
// ("Group/Case"; with several, every combination of their groups and names; with
// none, all of them), and returns its combined output.
func runChild(t *testing.T, name string, cases ...string) (string, error) {
	t.Helper()
	pattern := "^" + childTest + "$"
	if len(cases) > 0 {
		var groups, names []string
		for _, c := range cases {
			group, caseName, _ := strings.Cut(c, "/")
			groups = append(groups, regexp.QuoteMeta(group))
			names = append(names, regexp.QuoteMeta(caseName))
		}
		pattern += "/^(" + strings.Join(groups, "|") + ")$/^(" + strings.Join(names, "|") + ")$"
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run="+pattern, "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), brokenEnv+"="+name)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// --- the breakages -----------------------------------------------------------

// base forwards everything to a healthy file system, its fast paths included
// (layer.Base); each breakage overrides one method. A breakage of Open, Create
// or Delete is also hidden behind layer.Streams (see streams), so that vfs's
// helpers go through the broken method instead of around it.
type base struct{ layer.Base }

// broken returns a base over the healthy file system f.
func broken(f vfs.FileSystem) base { return base{layer.Base{Inner: f}} }

// streams hides the fast paths of a breakage of Open, Create or Delete
// (ReadFile, WriteFile, CopyFile, CleanTemp go to the healthy file system
// below, around the breakage), so that vfs's helpers use the broken methods,
// as on a backend broken that way.
func streams(f vfs.FileSystem) vfs.FileSystem { return layer.Streams(f) }

// objectStoreOver returns the healthy object store over f, its fast paths
// hidden: its Open, Delete and Rename differ from f's.
func objectStoreOver(f vfs.FileSystem) vfs.FileSystem {
	return withRecoverable{streams(&objectStore{broken(f)}), f}
}

// withRecoverable is a file system with the recoverable writer of another (rw).
type withRecoverable struct {
	vfs.FileSystem
	rw vfs.FileSystem
}

func (w withRecoverable) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return vfs.NewRecoverableWriter(w.rw)
}

// objectStore is a healthy memfs that behaves like an object store where the
// contract lets one: it says it is one, Mkdirs creates nothing, a directory
// vanishes when its last entry is deleted or renamed away, and Open is lazy (a
// missing file or a directory is reported by the first Read, ReadAt or Seek). It
// is not a breakage.
type objectStore struct{ base }

func (*objectStore) Kind() vfs.Kind { return vfs.KindObjectStore }

func (f *objectStore) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	q, err := vfs.Qualify("open", f, p)
	if err != nil {
		return nil, err
	}
	return &lazyInput{path: q, open: func() (vfs.InputStream, error) { return f.Inner.Open(ctx, q) }}, nil
}

// lazyInput opens its stream on first use.
type lazyInput struct {
	path vfs.Path
	open func() (vfs.InputStream, error)
	in   vfs.InputStream
	err  error
}

func (l *lazyInput) stream() (vfs.InputStream, error) {
	if l.in == nil && l.err == nil {
		l.in, l.err = l.open()
	}
	return l.in, l.err
}

func (l *lazyInput) Read(b []byte) (int, error) {
	in, err := l.stream()
	if err != nil {
		return 0, err
	}
	return in.Read(b)
}

func (l *lazyInput) ReadAt(b []byte, off int64) (int, error) {
	in, err := l.stream()
	if err != nil {
		return 0, err
	}
	return in.ReadAt(b, off)
}

func (l *lazyInput) Seek(off int64, whence int) (int64, error) {
	in, err := l.stream()
	if err != nil {
		return 0, err
	}
	return in.Seek(off, whence)
}

func (l *lazyInput) Close() error {
	if l.in == nil {
		l.err = vfs.NewPathError("read", l.path, fs.ErrClosed)
		return nil
	}
	return l.in.Close()
}

// lazyOpenReadsEmpty opens lazily, like objectStore, but a missing file or a
// directory reads as an empty file instead of failing.
type lazyOpenReadsEmpty struct{ objectStore }

func (f *lazyOpenReadsEmpty) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nopCloser{bytes.NewReader(nil)}, nil
	}
	return in, nil
}

// lazyOpenBareErrors opens lazily, like objectStore, but its first Read fails
// with the bare sentinel, not an *fs.PathError naming the path.
type lazyOpenBareErrors struct{ objectStore }

func (f *lazyOpenBareErrors) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	return &lazyInput{path: p, open: func() (vfs.InputStream, error) {
		in, err := f.Inner.Open(ctx, p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		return in, err
	}}, nil
}

func (f *objectStore) Mkdirs(_ context.Context, p vfs.Path) error {
	_, err := vfs.Qualify("mkdirs", f, p)
	return err
}

func (f *objectStore) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	if err := f.Inner.Delete(ctx, p, recursive); err != nil {
		return err
	}
	f.prune(ctx, p)
	return nil
}

func (f *objectStore) Rename(ctx context.Context, src, dst vfs.Path) error {
	if err := f.Inner.Rename(ctx, src, dst); err != nil {
		return err
	}
	f.prune(ctx, src)
	return nil
}

// prune deletes the now empty directories above p.
func (f *objectStore) prune(ctx context.Context, p vfs.Path) {
	for d := p.MakeQualified(f).Parent(); !d.IsZero() && d.Path() != "/"; d = d.Parent() {
		if list, err := f.List(ctx, d); err != nil || len(list) > 0 {
			return
		}
		if f.Inner.Delete(ctx, d, false) != nil {
			return
		}
	}
}

type listUnsorted struct{ base }

func (f *listUnsorted) List(ctx context.Context, p vfs.Path) ([]vfs.FileStatus, error) {
	list, err := f.Inner.List(ctx, p)
	slices.Reverse(list)
	return list, err
}

type listTruncated struct{ base }

func (f *listTruncated) List(ctx context.Context, p vfs.Path) ([]vfs.FileStatus, error) {
	list, err := f.Inner.List(ctx, p)
	return list[:min(len(list), 1000)], err
}

type listFileEmpty struct{ base }

func (f *listFileEmpty) List(ctx context.Context, p vfs.Path) ([]vfs.FileStatus, error) {
	list, err := f.Inner.List(ctx, p)
	if err == nil && len(list) == 1 && list[0].Path.Path() == p.MakeQualified(f).Path() {
		return nil, nil
	}
	return list, err
}

type noOverwriteOverwrites struct{ base }

func (f *noOverwriteOverwrites) Create(ctx context.Context, p vfs.Path, _ vfs.WriteMode) (vfs.OutputStream, error) {
	return f.Inner.Create(ctx, p, vfs.Overwrite)
}

type overwriteRefused struct{ base }

func (f *overwriteRefused) Create(ctx context.Context, p vfs.Path, _ vfs.WriteMode) (vfs.OutputStream, error) {
	return f.Inner.Create(ctx, p, vfs.NoOverwrite)
}

// visibleBeforeClose publishes everything written so far on every Write.
type visibleBeforeClose struct{ base }

func (f *visibleBeforeClose) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	if ok, _ := vfs.Exists(ctx, f.Inner, p); ok && mode == vfs.NoOverwrite {
		return nil, vfs.NewPathError("create", p, fs.ErrExist)
	}
	return &writeThrough{ctx: ctx, fsys: f.Inner, p: p}, nil
}

type writeThrough struct {
	ctx  context.Context
	fsys vfs.FileSystem
	p    vfs.Path
	buf  bytes.Buffer
}

func (w *writeThrough) Write(b []byte) (int, error) {
	w.buf.Write(b)
	return len(b), vfs.WriteFile(w.ctx, w.fsys, w.p, w.buf.Bytes(), vfs.Overwrite)
}
func (w *writeThrough) Close() error {
	return vfs.WriteFile(w.ctx, w.fsys, w.p, w.buf.Bytes(), vfs.Overwrite)
}
func (w *writeThrough) Pos() int64   { return int64(w.buf.Len()) }
func (w *writeThrough) Flush() error { return nil }
func (w *writeThrough) Sync() error  { return nil }

type cancelIgnored struct{ base }

func (f *cancelIgnored) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.Inner.Create(context.WithoutCancel(ctx), p, mode)
}

type abortIgnored struct{ base }

func (f *abortIgnored) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return noopAbort{layer.Output{OutputStream: out}}, nil
}

type noopAbort struct{ layer.Output }

func (noopAbort) Abort() error { return nil }

type writeAfterClose struct{ base }

func (f *writeAfterClose) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return &swallowAfterClose{Output: layer.Output{OutputStream: out}}, nil
}

type swallowAfterClose struct {
	layer.Output
	closed bool
}

func (s *swallowAfterClose) Write(b []byte) (int, error) {
	if s.closed {
		return len(b), nil
	}
	return s.OutputStream.Write(b)
}
func (s *swallowAfterClose) Close() error { s.closed = true; return s.OutputStream.Close() }

type posStuck struct{ base }

func (f *posStuck) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return zeroPos{layer.Output{OutputStream: out}}, nil
}

type zeroPos struct{ layer.Output }

func (zeroPos) Pos() int64 { return 0 }

// largeTruncated silently drops everything past 8 MiB.
type largeTruncated struct{ base }

func (f *largeTruncated) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return &truncating{Output: layer.Output{OutputStream: out}}, nil
}

type truncating struct {
	layer.Output
	n int64
}

func (s *truncating) Write(b []byte) (int, error) {
	keep := max(0, min(int64(len(b)), 8<<20-s.n))
	s.n += int64(len(b))
	if _, err := s.OutputStream.Write(b[:keep]); err != nil {
		return 0, err
	}
	return len(b), nil
}
func (s *truncating) Pos() int64 { return s.n }

// noOverwriteRacy implements NoOverwrite as "check, then overwrite".
type noOverwriteRacy struct{ base }

func (f *noOverwriteRacy) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	if mode == vfs.NoOverwrite {
		if ok, _ := vfs.Exists(ctx, f.Inner, p); ok {
			return nil, vfs.NewPathError("create", p, fs.ErrExist)
		}
	}
	return f.Inner.Create(ctx, p, vfs.Overwrite)
}

// renameRacy implements Rename as "check, then replace", and holds its first
// callers between the check and the act until 8 have checked, as an unlucky
// scheduler would.
type renameRacy struct {
	base
	mu      sync.Mutex
	checked int
	gate    chan struct{}
}

func (f *renameRacy) Rename(ctx context.Context, src, dst vfs.Path) error {
	if ok, _ := vfs.Exists(ctx, f.Inner, dst); ok {
		return vfs.NewPathError("rename", dst, fs.ErrExist)
	}
	f.mu.Lock()
	if f.gate == nil {
		f.gate = make(chan struct{})
	}
	gate := f.gate
	if f.checked++; f.checked == 8 {
		close(gate)
	}
	f.mu.Unlock()
	<-gate
	_ = f.Inner.Delete(ctx, dst, true)
	return f.Inner.Rename(ctx, src, dst)
}

type deleteAlwaysRecursive struct{ base }

func (f *deleteAlwaysRecursive) Delete(ctx context.Context, p vfs.Path, _ bool) error {
	return f.Inner.Delete(ctx, p, true)
}

type deleteMissingFails struct{ base }

func (f *deleteMissingFails) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	if _, err := f.Stat(ctx, p); err != nil {
		return err
	}
	return f.Inner.Delete(ctx, p, recursive)
}

// deletePrefix deletes everything whose name starts with the deleted name, like an
// object store deleting by key prefix without the trailing slash.
type deletePrefix struct{ base }

func (f *deletePrefix) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	if err := f.Inner.Delete(ctx, p, recursive); err != nil {
		return err
	}
	siblings, _ := f.List(ctx, p.MakeQualified(f).Parent())
	for _, st := range siblings {
		if strings.HasPrefix(st.Name(), p.Name()) {
			_ = f.Inner.Delete(ctx, st.Path, true)
		}
	}
	return nil
}

type renameOverwrites struct{ base }

func (f *renameOverwrites) Rename(ctx context.Context, src, dst vfs.Path) error {
	if _, err := f.Stat(ctx, src); err != nil {
		return err
	}
	_ = f.Inner.Delete(ctx, dst, true)
	return f.Inner.Rename(ctx, src, dst)
}

type renameLeavesSource struct{ base }

func (f *renameLeavesSource) Rename(ctx context.Context, src, dst vfs.Path) error {
	st, err := f.Stat(ctx, src)
	if err != nil {
		return err
	}
	if err := f.Inner.Rename(ctx, src, dst); err != nil || !st.IsDir {
		return err
	}
	return f.Mkdirs(ctx, src)
}

type renameMissingNil struct{ base }

func (f *renameMissingNil) Rename(ctx context.Context, src, dst vfs.Path) error {
	if err := f.Inner.Rename(ctx, src, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

type mkdirsOnFile struct{ base }

func (f *mkdirsOnFile) Mkdirs(ctx context.Context, p vfs.Path) error {
	if err := f.Inner.Mkdirs(ctx, p); err != nil && !errors.Is(err, vfs.ErrNotDir) {
		return err
	}
	return nil
}

// mkdirsNoop creates nothing.
type mkdirsNoop struct{ base }

func (*mkdirsNoop) Mkdirs(context.Context, vfs.Path) error { return nil }

type statDirAsFile struct{ base }

func (f *statDirAsFile) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	st, err := f.Inner.Stat(ctx, p)
	st.IsDir = false
	return st, err
}

type statSizeWrong struct{ base }

func (f *statSizeWrong) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	st, err := f.Inner.Stat(ctx, p)
	if !st.IsDir && st.Size > 0 {
		st.Size++
	}
	return st, err
}

type statNoModTime struct{ base }

func (f *statNoModTime) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	st, err := f.Inner.Stat(ctx, p)
	st.ModTime = st.ModTime.AddDate(-st.ModTime.Year()+1, 0, 0)
	return st, err
}

// openErrorsFlattened loses the sentinels: the message stays, errors.Is fails.
type openErrorsFlattened struct{ base }

func (f *openErrorsFlattened) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: p.String(), Err: errors.New(err.Error())}
	}
	return in, nil
}

// statBareErrors keeps the sentinel but drops the *fs.PathError.
type statBareErrors struct{ base }

func (f *statBareErrors) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	st, err := f.Inner.Stat(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("stat failed: %w", fs.ErrNotExist)
	}
	return st, err
}

type openDirEmpty struct{ base }

func (f *openDirEmpty) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	if st, err := f.Stat(ctx, p); err == nil && st.IsDir {
		return nopCloser{bytes.NewReader(nil)}, nil
	}
	return f.Inner.Open(ctx, p)
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

type seekOffByOne struct{ base }

func (f *seekOffByOne) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return offByOne{layer.Input{InputStream: in}}, nil
}

// offByOne reports the offset asked for but lands one byte further.
type offByOne struct{ layer.Input }

func (s offByOne) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekStart || off == 0 {
		return s.InputStream.Seek(off, whence)
	}
	pos, err := s.InputStream.Seek(off+1, whence)
	return pos - 1, err
}

type readAtNoEOF struct{ base }

func (f *readAtNoEOF) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return noEOF{layer.Input{InputStream: in}}, nil
}

type noEOF struct{ layer.Input }

func (s noEOF) ReadAt(b []byte, off int64) (int, error) {
	n, err := s.InputStream.ReadAt(b, off)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

type readAtMoves struct{ base }

func (f *readAtMoves) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return seekingReadAt{layer.Input{InputStream: in}}, nil
}

// seekingReadAt implements ReadAt as Seek plus Read, moving the Read offset.
type seekingReadAt struct{ layer.Input }

func (s seekingReadAt) ReadAt(b []byte, off int64) (int, error) {
	if _, err := s.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(s.InputStream, b)
}

// foreignAccepted drops the scheme and authority of every path it is given, so a
// path of another file system reaches this one.
type foreignAccepted struct{ base }

func strip(p vfs.Path) vfs.Path {
	if p.IsZero() {
		return p
	}
	return vfs.MustPath(p.Path())
}

func (f *foreignAccepted) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	return f.Inner.Stat(ctx, strip(p))
}
func (f *foreignAccepted) Mkdirs(ctx context.Context, p vfs.Path) error {
	return f.Inner.Mkdirs(ctx, strip(p))
}

type zeroPathAccepted struct{ base }

func (f *zeroPathAccepted) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	if p.IsZero() {
		p = f.WorkingDirectory()
	}
	return f.Inner.Stat(ctx, p)
}

type homeWrongScheme struct{ base }

func (*homeWrongScheme) HomeDirectory() vfs.Path { return vfs.MustPath("other-scheme://host/home") }

// namesUnescaped URL-decodes paths, like a backend that builds URLs by string
// concatenation and lets the server decode them.
type namesUnescaped struct{ base }

func unescape(p vfs.Path) vfs.Path {
	s, err := url.PathUnescape(p.Path())
	if err != nil || p.IsZero() {
		return p
	}
	q, err := vfs.NewPath(s)
	if err != nil {
		return p
	}
	return q
}

func (f *namesUnescaped) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.Inner.Create(ctx, unescape(p), mode)
}
func (f *namesUnescaped) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	return f.Inner.Stat(ctx, unescape(p))
}
func (f *namesUnescaped) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	return f.Inner.Open(ctx, unescape(p))
}

// listTrimmed trims spaces from listed names, as a sloppy key parser would.
type listTrimmed struct{ base }

func (f *listTrimmed) List(ctx context.Context, p vfs.Path) ([]vfs.FileStatus, error) {
	list, err := f.Inner.List(ctx, p)
	for i, st := range list {
		list[i].Path = st.Path.Parent().Join(strings.TrimSpace(st.Name()))
	}
	return list, err
}

// createOnDirExist reports a directory in the way as fs.ErrExist, not vfs.ErrIsDir.
type createOnDirExist struct{ base }

func (f *createOnDirExist) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if errors.Is(err, vfs.ErrIsDir) {
		return nil, vfs.NewPathError("create", p, fs.ErrExist)
	}
	return out, err
}

type listSizesZero struct{ base }

func (f *listSizesZero) List(ctx context.Context, p vfs.Path) ([]vfs.FileStatus, error) {
	list, err := f.Inner.List(ctx, p)
	for i := range list {
		list[i].Size = 0
	}
	return list, err
}

type listModTimeShifted struct{ base }

func (f *listModTimeShifted) List(ctx context.Context, p vfs.Path) ([]vfs.FileStatus, error) {
	list, err := f.Inner.List(ctx, p)
	for i := range list {
		list[i].ModTime = list[i].ModTime.Add(time.Hour)
	}
	return list, err
}

// deleteShallow's recursive Delete removes only the files directly in a directory.
type deleteShallow struct{ base }

func (f *deleteShallow) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	st, err := f.Stat(ctx, p)
	if err != nil || !st.IsDir || !recursive {
		return f.Inner.Delete(ctx, p, recursive)
	}
	list, err := f.List(ctx, p)
	if err != nil {
		return err
	}
	for _, child := range list {
		if !child.IsDir {
			if err := f.Inner.Delete(ctx, child.Path, false); err != nil {
				return err
			}
		}
	}
	_ = f.Inner.Delete(ctx, p, false)
	return nil
}

type uriWithPath struct{ base }

func (f *uriWithPath) URI() *url.URL {
	u := *f.Inner.URI()
	u.Path = "/sub/dir"
	return &u
}

// relativeRejected refuses relative paths instead of resolving them.
type relativeRejected struct{ base }

func (f *relativeRejected) check(op string, p vfs.Path) error {
	if !p.IsZero() && !p.IsAbsolute() {
		return vfs.NewPathError(op, p, fmt.Errorf("%w: relative path", fs.ErrInvalid))
	}
	return nil
}

func (f *relativeRejected) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	if err := f.check("stat", p); err != nil {
		return vfs.FileStatus{}, err
	}
	return f.Inner.Stat(ctx, p)
}

func (f *relativeRejected) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	if err := f.check("open", p); err != nil {
		return nil, err
	}
	return f.Inner.Open(ctx, p)
}

// unqualifiedMissing does not find paths given without scheme and authority.
type unqualifiedMissing struct{ base }

func (f *unqualifiedMissing) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	if p.Scheme() == "" {
		return vfs.FileStatus{}, vfs.NewPathError("stat", p, fs.ErrNotExist)
	}
	return f.Inner.Stat(ctx, p)
}

// renameIntoDir moves a file into an existing destination directory, as mv does.
type renameIntoDir struct{ base }

func (f *renameIntoDir) Rename(ctx context.Context, src, dst vfs.Path) error {
	if st, err := f.Stat(ctx, dst); err == nil && st.IsDir {
		dst = dst.Join(src.Name())
	}
	return f.Inner.Rename(ctx, src, dst)
}

// sharedBuffer's streams all write into one buffer, which a Close publishes and
// empties: right for one stream at a time, wrong for concurrent ones.
type sharedBuffer struct {
	base
	mu  sync.Mutex
	buf []byte
}

func (f *sharedBuffer) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return &sharedStream{Output: layer.Output{OutputStream: out}, f: f}, nil
}

type sharedStream struct {
	layer.Output
	f   *sharedBuffer
	pos int64
}

func (s *sharedStream) Write(b []byte) (int, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.buf = append(s.f.buf, b...)
	s.pos += int64(len(b))
	return len(b), nil
}

func (s *sharedStream) Pos() int64 { return s.pos }

func (s *sharedStream) Close() error {
	s.f.mu.Lock()
	data := s.f.buf
	s.f.buf = nil
	s.f.mu.Unlock()
	if _, err := s.OutputStream.Write(data); err != nil {
		discard(s.OutputStream)
		return err
	}
	return s.OutputStream.Close()
}

func discard(out vfs.OutputStream) { vfs.Discard(out, nil) }

// reopening reads like an object store that sends a new unconditional GET for
// every ReadAt and every Read: each opens the file anew, so a stream whose
// file is replaced mixes bytes of two versions.
type reopening struct{ base }

func (f *reopening) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	_ = in.Close()
	return &reopenInput{open: func() (vfs.InputStream, error) { return f.Inner.Open(ctx, p) }}, nil
}

type reopenInput struct {
	open func() (vfs.InputStream, error)
	off  int64
}

func (r *reopenInput) ReadAt(b []byte, off int64) (int, error) {
	in, err := r.open()
	if err != nil {
		return 0, err
	}
	defer in.Close()
	return in.ReadAt(b, off)
}

func (r *reopenInput) Read(b []byte) (int, error) {
	n, err := r.ReadAt(b, r.off)
	r.off += int64(n)
	if n > 0 && errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

func (r *reopenInput) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += r.off
	case io.SeekEnd:
		in, err := r.open()
		if err != nil {
			return 0, err
		}
		defer in.Close()
		if off, err = in.Seek(off, io.SeekEnd); err != nil {
			return 0, err
		}
	}
	if off < 0 {
		return 0, fs.ErrInvalid
	}
	r.off = off
	return off, nil
}

func (*reopenInput) Close() error { return nil }

// inverting stores every byte complemented: a stand-in for an encryption layer.
// Its Create and Open invert; each type below overrides every fast path but
// one, which layer.Base forwards to the file system below with the bytes as
// they are stored.
type inverting struct{ base }

// RecoverableWriter: the layer has none (the writer below would go around the
// inversion).
func (*inverting) RecoverableWriter() (vfs.RecoverableWriter, error) {
	return nil, fmt.Errorf("inverting layer: no recoverable writer: %w", errors.ErrUnsupported)
}

func (f *inverting) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return &invertingOutput{Output: layer.Output{OutputStream: out}}, nil
}

func (f *inverting) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return &invertingInput{InputStream: in}, nil
}

// createUnsynced is the correct override: Create's inversion over the
// CreateUnsynced below.
func (f *inverting) createUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.(vfs.DirSyncer).CreateUnsynced(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return &invertingOutput{Output: layer.Output{OutputStream: out}}, nil
}

type invertingOutput struct {
	layer.Output
	buf []byte
}

func (s *invertingOutput) Write(b []byte) (int, error) {
	s.buf = append(s.buf[:0], b...)
	for i := range s.buf {
		s.buf[i] = ^s.buf[i]
	}
	return s.OutputStream.Write(s.buf)
}

type invertingInput struct{ vfs.InputStream }

func (s *invertingInput) Read(b []byte) (int, error) {
	n, err := s.InputStream.Read(b)
	invert(b[:n])
	return n, err
}

func (s *invertingInput) ReadAt(b []byte, off int64) (int, error) {
	n, err := s.InputStream.ReadAt(b, off)
	invert(b[:n])
	return n, err
}

func invert(b []byte) {
	for i := range b {
		b[i] = ^b[i]
	}
}

// invertingForgetsUnsynced overrides ReadFile and WriteFile but not
// CreateUnsynced.
type invertingForgetsUnsynced struct{ inverting }

func (f *invertingForgetsUnsynced) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	return vfs.ReadFile(ctx, layer.Streams(f), p)
}

func (f *invertingForgetsUnsynced) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	return vfs.WriteFile(ctx, layer.Streams(f), p, data, mode)
}

// invertingForgetsReadFile overrides WriteFile and CreateUnsynced but not
// ReadFile.
type invertingForgetsReadFile struct{ inverting }

func (f *invertingForgetsReadFile) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	return vfs.WriteFile(ctx, layer.Streams(f), p, data, mode)
}

func (f *invertingForgetsReadFile) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.createUnsynced(ctx, p, mode)
}

// invertingForgetsOpenBeneath overrides every fast path but OpenBeneath.
type invertingForgetsOpenBeneath struct{ inverting }

func (f *invertingForgetsOpenBeneath) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	return vfs.ReadFile(ctx, layer.Streams(f), p)
}

func (f *invertingForgetsOpenBeneath) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	return vfs.WriteFile(ctx, layer.Streams(f), p, data, mode)
}

func (f *invertingForgetsOpenBeneath) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.createUnsynced(ctx, p, mode)
}

// invertingForgetsWriteFile overrides ReadFile and CreateUnsynced but not
// WriteFile.
type invertingForgetsWriteFile struct{ inverting }

func (f *invertingForgetsWriteFile) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	return vfs.ReadFile(ctx, layer.Streams(f), p)
}

func (f *invertingForgetsWriteFile) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.createUnsynced(ctx, p, mode)
}

// invertingComplete overrides every fast path: the correct way to write the
// layer, which passes the whole suite (TestRunOnInvertingLayer).
type invertingComplete struct{ inverting }

func (f *invertingComplete) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	in, err := f.Base.OpenBeneath(ctx, dir, rel)
	if err != nil {
		return nil, err
	}
	return &invertingInput{InputStream: in}, nil
}

func (f *invertingComplete) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	return vfs.ReadFile(ctx, layer.Streams(f), p)
}

func (f *invertingComplete) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	return vfs.WriteFile(ctx, layer.Streams(f), p, data, mode)
}

func (f *invertingComplete) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return f.createUnsynced(ctx, p, mode)
}

// streamStatWrong's input streams tell a size one larger than the file's.
type streamStatWrong struct{ base }

func (f *streamStatWrong) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Inner.Open(ctx, p)
	if err != nil {
		return nil, err
	}
	return &wrongStatInput{Input: layer.Input{InputStream: in}, f: f.Inner, ctx: ctx, p: p}, nil
}

type wrongStatInput struct {
	layer.Input
	f   vfs.FileSystem
	ctx context.Context
	p   vfs.Path
}

func (s *wrongStatInput) Stat() (vfs.FileStatus, error) {
	st, err := s.f.Stat(s.ctx, s.p)
	st.Size++
	return st, err
}

// writtenVersionWrong's output streams say they published a version a
// second older than the one they did.
type writtenVersionWrong struct{ base }

func (f *writtenVersionWrong) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return wrongWritten{layer.Output{OutputStream: out}}, nil
}

type wrongWritten struct{ layer.Output }

func (w wrongWritten) Version() (vfs.Version, error) {
	v, err := w.Output.Version()
	v.ModTime = v.ModTime.Add(-time.Second)
	return v, err
}

// writtenVersionReadBack's output streams say they published whatever is at
// their path when asked (read back, as a stream that cannot tell would be).
type writtenVersionReadBack struct{ base }

func (f *writtenVersionReadBack) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Inner.Create(ctx, p, mode)
	if err != nil {
		return nil, err
	}
	return readBack{Output: layer.Output{OutputStream: out}, f: f.Inner, ctx: ctx, p: p}, nil
}

type readBack struct {
	layer.Output
	f   vfs.FileSystem
	ctx context.Context
	p   vfs.Path
}

func (r readBack) Version() (vfs.Version, error) {
	return vfs.WrittenVersion(context.WithoutCancel(r.ctx), r.f, r.p, nil)
}
