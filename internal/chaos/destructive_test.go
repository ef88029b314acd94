package chaos_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/azblob"
	_ "github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/chaos"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

// destructiveStore is a file system of the destructive chaos runs and an empty
// directory on it that the test owns.
type destructiveStore struct {
	fs   vfs.FileSystem
	root vfs.Path
	reg  *vfs.Registry // reaches fs (for checkpointstorage)
	// osRoot is root's local directory when symbolic links can be made
	// there (file://), else "".
	osRoot string
	// raw, on object stores, reaches keys that no path names; the root is
	// then the bucket's.
	raw *rawKeys
}

// destructiveStores are the stores every destructive run covers: memory://,
// file://, s3:// (SeaweedFS), gs:// (fake-gcs-server) and azblob:// (Azurite).
var destructiveStores = []struct {
	name string
	make func(t *testing.T) destructiveStore
}{
	{"memory", func(t *testing.T) destructiveStore {
		fsys := memfs.New()
		host := fsys.URI().Host
		t.Cleanup(func() { memfs.Reset(host) })
		reg := vfs.NewRegistry()
		require.NoError(t, reg.Register(memfs.Scheme, func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
			if u.Host == host {
				return fsys, nil
			}
			return memfs.Factory(ctx, u)
		}))
		return destructiveStore{fs: fsys, root: vfs.MustPath("memory://" + host + "/"), reg: reg}
	}},
	{"file", func(t *testing.T) destructiveStore {
		dir := t.TempDir()
		return destructiveStore{fs: local.New(), root: vfs.MustPath("file://" + filepath.ToSlash(dir)), reg: vfs.DefaultRegistry(), osRoot: dir}
	}},
	{"s3", func(t *testing.T) destructiveStore {
		srv := s3test.SeaweedFS(t) // fails under VFSKIT_REQUIRE_S3=1 when it cannot start
		reg := vfs.NewRegistry()
		require.NoError(t, reg.Register("s3", s3.Factory(s3.Options{
			Endpoint: srv.Endpoint, Region: srv.Region,
			Credentials:     credentials.NewStaticCredentialsProvider(srv.AccessKeyID, srv.SecretAccessKey, ""),
			RetryMaxBackoff: 100e6,
		})))
		return storeOn(t, reg, "s3://"+srv.NewBucket(t)+"/")
	}},
	{"gs", func(t *testing.T) destructiveStore {
		srv := gcstest.Shared(t)
		bucket := srv.NewBucket()
		st := storeOn(t, vfs.DefaultRegistry(), "gs://"+bucket+"/")
		st.raw = gcsRaw(srv.Fake(), bucket)
		return st
	}},
	{"azblob", func(t *testing.T) destructiveStore {
		srv := azuritetest.Shared(t) // fails under VFSKIT_REQUIRE_AZURITE=1 when it cannot start
		container, err := srv.NewContainer(t.Context())
		require.NoError(t, err)
		st := storeOn(t, vfs.DefaultRegistry(), "azblob://"+container+"/")
		st.raw = azureRaw(srv.Client(), container)
		return st
	}},
}

func storeOn(t *testing.T, reg *vfs.Registry, root string) destructiveStore {
	p := vfs.MustPath(root)
	fsys, err := reg.GetPath(t.Context(), p)
	require.NoError(t, err)
	return destructiveStore{fs: fsys, root: p, reg: reg}
}

// entry is what the model expects of one object.
type entry struct {
	data []byte
	gone bool // the disturber renamed it away
	// unknown: a disturber operation on it failed, so either version may be
	// there; it is not checked.
	unknown bool
	ver     int
	// from are the names it had before the disturber renamed it (a move
	// may have moved it under one of them first).
	from []string
}

// treeModel is what a cycle's objects must hold: keys are paths relative to
// the cycle's directory ("t/src/a"); "dst/..." are below the destination of
// a copy or move, which may be on another file system.
type treeModel struct {
	store   destructiveStore
	dir     vfs.Path
	dstFS   vfs.FileSystem
	dstRoot vfs.Path
	files   map[string]*entry
	// distinct makes every rewrite change the file's size.
	distinct bool
}

func (m *treeModel) where(key string) (vfs.FileSystem, vfs.Path) {
	if rest, ok := strings.CutPrefix(key, "dst/"); ok {
		return m.dstFS, m.dstRoot.Join(strings.Split(rest, "/")...)
	}
	return m.store.fs, m.dir.Join(strings.Split(key, "/")...)
}

// content is version ver of key: unique to (key, ver), of a size the rng
// picks (sometimes the size of the version before, so a store telling
// versions apart by size alone would be caught).
func content(key string, ver int, size int) []byte {
	stamp := fmt.Sprintf("%s v%d|", key, ver)
	b := bytes.Repeat([]byte(stamp), size/len(stamp)+1)
	return b[:max(size, len(stamp))]
}

func (m *treeModel) write(ctx context.Context, rng *rand.Rand, key string) error {
	e := m.files[key]
	if e == nil {
		e = &entry{}
		m.files[key] = e
	}
	size := 1 + rng.IntN(3000)
	switch {
	case len(e.data) > 0 && m.distinct:
		size = len(e.data) + size%100 + 1
	case len(e.data) > 0 && rng.IntN(3) == 0:
		size = len(e.data)
	}
	data := content(key, e.ver+1, size)
	fsys, p := m.where(key)
	if err := vfs.WriteFile(ctx, fsys, p, data, vfs.Overwrite); err != nil {
		e.unknown = true
		return err
	}
	e.ver++
	e.data, e.gone = data, false
	return nil
}

// The names of a cycle: the target tree (t/src), names around it that share
// its prefix or look like vfskit's own, and (file://) a directory outside it
// with the same names as t/src/sub, for the links the disturber swaps in.
var (
	srcNames = []string{"a", "b.txt", "sub/c", "sub/deep/d", "sub/.hidden", ".vfskit-tmp-notes.txt",
		".vfskit-tmp-cache/db", "sp ace", "q?region=us-east-1", "pct%41", "hash#x", "ünï", "x..", "sub/..y"}
	aroundNames = []string{"t/src.bak", "t/srcX/e", "t/sr", "t/src-2/sub/c", "t/src?region=us-east-1",
		"t/.vfskit-tmp-src/f", "t/src.vfskit-tmp-1", "around/g", "t/dst-old/h"}
	outsideNames = []string{"outside/sub/c", "outside/sub/deep/d", "outside/sub/.hidden"}
	newNames     = []string{"new", ".vfskit-tmp-new", "n?region=eu", "sub/new", "sub/deep/new", "fresh/dir/n", "sp ace 2"}
)

// treeOp is one destructive tree operation.
type treeOp string

const (
	opMove   treeOp = "mv"
	opRemove treeOp = "rm-r"
	opCopy   treeOp = "cp-r"
)

// TestChaosDestructiveTrees runs, cycle after cycle on every store, one of mv
// (vfs.MoveTree, to the same or another file system), rm -r (a recursive
// FileSystem.Delete of the tree) and cp -r (vfs.CopyTree) on a tree while a
// disturber goroutine rewrites and creates files in it (with names that look
// like vfskit's temporary files, hold a query or odd characters), renames
// files, writes around it (names sharing its prefix) and in the destination,
// and on file:// swaps a directory of the tree for a symbolic link to a
// directory outside with the same names. Then it checks, against its model of
// what the disturber wrote, that every object the operation was not asked to
// remove is there with its final bytes: an object moved or written during a
// move at the source or the destination, everything outside the tree where it
// was, and every file a move reports as left at the source.
func TestChaosDestructiveTrees(t *testing.T) {
	cycles := chaos.Cycles(t, 4)
	seed := chaos.Seed(t)
	for si, st := range destructiveStores {
		t.Run(st.name, func(t *testing.T) {
			store := st.make(t)
			other := memfs.New()
			t.Cleanup(func() { memfs.Reset(other.URI().Host) })
			sum := chaos.NewSummary("destructive-trees-" + st.name)
			for c := range cycles {
				rng := rand.New(rand.NewPCG(seed, uint64(si)<<32|uint64(c)))
				treeCycle(t, store, other, c, rng, sum, seed, st.name)
			}
			sum.Report(t)
			require.Equal(t, cycles, sum.Get("cycles"))
			require.Zero(t, sum.Get("lost"), "objects lost")
			require.Zero(t, sum.Get("left-missing"), "files reported left that are not there")
		})
	}
}

func treeCycle(t *testing.T, store destructiveStore, other vfs.FileSystem, c int, rng *rand.Rand, sum *chaos.Summary, seed uint64, storeName string) {
	ctx := t.Context()
	dir := store.root.Join(fmt.Sprintf("c%d", c))
	m := &treeModel{store: store, dir: dir, files: map[string]*entry{}}
	op := []treeOp{opMove, opRemove, opCopy}[rng.IntN(3)]
	m.dstFS, m.dstRoot = store.fs, dir.Join("t", "dst")
	if op != opRemove && rng.IntN(3) == 0 {
		m.dstFS, m.dstRoot = other, vfs.MustPath(other.URI().String()).Join(fmt.Sprintf("c%d", c), "dst")
	}
	links := store.osRoot != "" && rng.IntN(2) == 0
	var src []string
	for _, n := range srcNames {
		if n == "a" || n == "sub/c" || rng.IntN(5) != 0 {
			src = append(src, "t/src/"+n)
		}
	}
	setup := append(append([]string(nil), src...), aroundNames...)
	if links {
		setup = append(setup, outsideNames...)
	}
	for _, k := range setup {
		require.NoError(t, m.write(ctx, rng, k), "setup %s", k)
	}
	raw := map[string][]byte{}                // raw key below the cycle's directory → bytes
	if store.raw != nil && rng.IntN(2) == 0 { // else rm -r on an object store is refused
		for _, k := range append(slices.Clone(rawSrcNames), rawAroundNames...) {
			data := content("raw:"+k, 1, 1+rng.IntN(500))
			require.NoError(t, store.raw.put(ctx, fmt.Sprintf("c%d/%s", c, k), data), "setup raw key %s", k)
			raw[k] = data
		}
	}
	srcPath := dir.Join("t", "src")
	what := fmt.Sprintf("seed %d (%s=%d), store %s, cycle %d, %s", seed, chaos.SeedEnv, seed, storeName, c, op)
	if m.dstFS != store.fs {
		what += " to another file system"
	}

	// The operation and the disturber run together; the disturber does a
	// bounded number of steps, the first ones before the operation can end.
	drng := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
	steps := 10 + drng.IntN(30)
	var wg sync.WaitGroup
	var moved *vfs.MoveResult
	var opErr error
	done := make(chan struct{})
	copts := vfs.CopyOptions{Concurrency: 1 + rng.IntN(4)}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		switch op {
		case opMove:
			moved, opErr = vfs.MoveTree(ctx, m.dstFS, m.dstRoot, store.fs, srcPath, copts)
		case opRemove:
			opErr = store.fs.Delete(ctx, srcPath, true)
		case opCopy:
			_, opErr = vfs.CopyTree(ctx, m.dstFS, m.dstRoot, store.fs, srcPath, copts)
		}
	}()
	swapped := false
	for i := 0; i < steps; i++ {
		if i > 3 && isDone(done) {
			break
		}
		disturb(ctx, m, drng, sum, links && !swapped, &swapped)
		runtime.Gosched()
	}
	wg.Wait()

	sum.Add("cycles", 1)
	sum.Add(string(op), 1)
	switch {
	case opErr == nil:
		sum.Add(string(op)+"-ok", 1)
	case errors.As(opErr, new(*vfs.LeftError)):
		sum.Add(string(op)+"-left", 1)
	default:
		sum.Add(string(op)+"-failed", 1)
		t.Logf("%s: %v", what, opErr)
	}
	if moved != nil {
		for _, l := range moved.Left {
			sum.Add("left-reported", 1)
			key, ok := l.Path.Rel(dir)
			if e := m.files[key]; ok && e != nil && (e.gone || e.unknown) {
				continue
			}
			if _, err := store.fs.Stat(ctx, l.Path); err != nil {
				sum.Add("left-missing", 1)
				t.Errorf("%s: reported as left but not there: %s: %v", what, l.Path, err)
			}
		}
	}
	checkTree(t, m, op, what, sum)
	checkRaw(t, store, c, raw, op, m.dstFS == store.fs, what, sum)
}

// checkRaw checks the raw keys of cycle c: those around the tree are where
// they were; those in it are too, unless the operation was rm -r, or a move
// that put them under the same key below the destination.
func checkRaw(t *testing.T, store destructiveStore, c int, raw map[string][]byte, op treeOp, sameStore bool, what string, sum *chaos.Summary) {
	ctx := context.WithoutCancel(t.Context())
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		rest, _ := strings.CutPrefix(k, "t/src/")
		inTree := slices.Contains(rawSrcNames, k)
		if inTree && op == opRemove {
			continue
		}
		keys := []string{fmt.Sprintf("c%d/%s", c, k)}
		if inTree && op == opMove && sameStore {
			keys = append(keys, fmt.Sprintf("c%d/t/dst/%s", c, rest))
		}
		var found []string
		ok := false
		for _, key := range keys {
			got, err := store.raw.get(ctx, key)
			if err == nil && bytes.Equal(got, raw[k]) {
				ok = true
				break
			}
			found = append(found, fmt.Sprintf("key %q: %d bytes, %v", key, len(got), err))
		}
		sum.Add("raw-checked", 1)
		if !ok {
			sum.Add("lost", 1)
			t.Errorf("%s: LOST raw key %s: %s", what, k, strings.Join(found, "; "))
		}
	}
}

// disturb does one random step of the disturber.
func disturb(ctx context.Context, m *treeModel, rng *rand.Rand, sum *chaos.Summary, mayLink bool, swapped *bool) {
	keys := make([]string, 0, len(m.files))
	for k, e := range m.files {
		if !e.gone && !e.unknown && !strings.HasPrefix(k, "outside/") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var srcKeys []string
	for _, k := range keys {
		if strings.HasPrefix(k, "t/src/") {
			srcKeys = append(srcKeys, k)
		}
	}
	step := rng.IntN(10)
	if mayLink && step == 9 {
		if swapLink(m, rng) {
			*swapped = true
			sum.Add("disturb-link-swaps", 1)
		}
		return
	}
	var err error
	switch {
	case step < 3 && len(srcKeys) > 0: // rewrite a file of the tree
		sum.Add("disturb-rewrites", 1)
		err = m.write(ctx, rng, srcKeys[rng.IntN(len(srcKeys))])
	case step < 5: // a new file in the tree
		sum.Add("disturb-creates", 1)
		err = m.write(ctx, rng, fmt.Sprintf("t/src/%s-%d", newNames[rng.IntN(len(newNames))], rng.IntN(1000)))
	case step < 6 && len(srcKeys) > 0: // a rename inside the tree
		sum.Add("disturb-renames", 1)
		err = renameFile(ctx, m, srcKeys[rng.IntN(len(srcKeys))], rng)
	case step < 7: // a file in the destination the source does not have
		sum.Add("disturb-dst-creates", 1)
		err = m.write(ctx, rng, fmt.Sprintf("dst/zz-only-here-%d", rng.IntN(1000)))
	default: // around the tree
		sum.Add("disturb-around", 1)
		err = m.write(ctx, rng, aroundNames[rng.IntN(len(aroundNames))])
	}
	if err != nil {
		sum.Add("disturb-errors", 1)
	}
}

func renameFile(ctx context.Context, m *treeModel, key string, rng *rand.Rand) error {
	to := fmt.Sprintf("%s.ren-%d", key, rng.IntN(1000))
	if m.files[to] != nil {
		return nil
	}
	_, from := m.where(key)
	_, dst := m.where(to)
	if err := m.store.fs.Rename(ctx, from, dst); err != nil {
		// The operation may have moved or removed it first: the model
		// stays as it was, and the new name, if it appeared, is not checked.
		m.files[to] = &entry{unknown: true}
		return err
	}
	e := m.files[key]
	m.files[to] = &entry{data: e.data, ver: e.ver, from: append(slices.Clone(e.from), key)}
	e.gone = true
	return nil
}

// swapLink renames t/src/sub away and puts a symbolic link to outside/sub in
// its place (file:// only).
func swapLink(m *treeModel, rng *rand.Rand) bool {
	base := filepath.Join(m.store.osRoot, filepath.FromSlash(strings.TrimPrefix(m.dir.Path(), m.store.root.Path())))
	sub := filepath.Join(base, "t", "src", "sub")
	aside := fmt.Sprintf("sub-aside-%d", rng.IntN(1000))
	if err := os.Rename(sub, filepath.Join(base, "t", "src", aside)); err != nil {
		return false
	}
	for k, e := range m.files {
		if rest, ok := strings.CutPrefix(k, "t/src/sub/"); ok && !e.gone {
			m.files["t/src/"+aside+"/"+rest] = &entry{data: e.data, ver: e.ver, unknown: e.unknown, from: append(slices.Clone(e.from), k)}
			e.gone = true
		}
	}
	_ = os.Symlink(filepath.Join(base, "outside", "sub"), sub)
	return true
}

// checkTree checks every object of the model after op.
func checkTree(t *testing.T, m *treeModel, op treeOp, what string, sum *chaos.Summary) {
	keys := make([]string, 0, len(m.files))
	for k := range m.files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e := m.files[k]
		if e.gone || e.unknown {
			sum.Add("unchecked", 1)
			continue
		}
		rest, inTree := strings.CutPrefix(k, "t/src/")
		if inTree && op == opRemove {
			continue // asked to remove
		}
		places := []string{k}
		if inTree && op == opMove {
			places = append(places, "dst/"+rest)
			for _, f := range e.from {
				places = append(places, "dst/"+strings.TrimPrefix(f, "t/src/"))
			}
		}
		checkObject(t, m, k, e, what, sum, places...)
	}
}

func isDone(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// checkObject checks that e, the model's object k, is at one of places (k
// itself when none are given) with its bytes, and counts it as lost if not.
func checkObject(t *testing.T, m *treeModel, k string, e *entry, what string, sum *chaos.Summary, places ...string) {
	ctx := context.WithoutCancel(t.Context())
	if len(places) == 0 {
		places = []string{k}
	}
	var found []string
	ok := false
	for _, p := range places {
		fsys, path := m.where(p)
		got, err := vfs.ReadFile(ctx, fsys, path)
		switch {
		case err == nil && bytes.Equal(got, e.data):
			ok = true
		case err == nil:
			found = append(found, fmt.Sprintf("%s holds %d other bytes (%.40q)", path, len(got), got))
		case errors.Is(err, fs.ErrNotExist):
			found = append(found, fmt.Sprintf("%s is missing", path))
		default:
			found = append(found, fmt.Sprintf("%s: %v", path, err))
		}
		if ok {
			break
		}
	}
	sum.Add("checked", 1)
	if !ok {
		sum.Add("lost", 1)
		t.Errorf("%s: LOST %s (version %d, %d bytes): %s", what, k, e.ver, len(e.data), strings.Join(found, "; "))
	}
}
