package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/aferofs"
	"github.com/vfskit/vfskit/vfs"
)

// TestOverwriteFlags runs cp's --update/-n/-u and mv's -f/-n as coreutils
// means them, on one file system and across two.
func TestOverwriteFlags(t *testing.T) {
	dir := t.TempDir()
	disk, mem := "file://"+dir, memRoot(t)
	old, recent := time.Now().Add(-time.Hour), time.Now()
	for _, tc := range []struct {
		name      string
		args      []string // SRC and DST are appended
		srcTime   time.Time
		dstTime   time.Time
		code      int
		wantDst   string // "src" or "dst": whose bytes DST holds after
		srcStays  bool
		errSubstr string
	}{
		{name: "cp replaces", args: []string{"cp"}, code: ExitOK, wantDst: "src", srcStays: true},
		{name: "cp --update=all", args: []string{"cp", "--update=all"}, code: ExitOK, wantDst: "src", srcStays: true},
		{name: "cp -n keeps", args: []string{"cp", "-n"}, code: ExitOK, wantDst: "dst", srcStays: true},
		{name: "cp --update=none keeps", args: []string{"cp", "--update=none"}, code: ExitOK, wantDst: "dst", srcStays: true},
		{name: "cp --update=none-fail", args: []string{"cp", "--update=none-fail"}, code: ExitFailure, wantDst: "dst", srcStays: true, errSubstr: "file already exists (kept: --update=none-fail)"},
		{name: "cp -u older dst replaced", args: []string{"cp", "-u"}, srcTime: recent, dstTime: old, code: ExitOK, wantDst: "src", srcStays: true},
		{name: "cp -u newer dst kept", args: []string{"cp", "-u"}, srcTime: old, dstTime: recent, code: ExitOK, wantDst: "dst", srcStays: true},
		{name: "cp --update newer dst kept", args: []string{"cp", "--update"}, srcTime: old, dstTime: recent, code: ExitOK, wantDst: "dst", srcStays: true},
		{name: "cp --update=older replaced", args: []string{"cp", "--update=older"}, srcTime: recent, dstTime: old, code: ExitOK, wantDst: "src", srcStays: true},
		{name: "cp --update=bogus", args: []string{"cp", "--update=bogus"}, code: ExitUsage, wantDst: "dst", srcStays: true, errSubstr: `--update="bogus": expected all, none, none-fail or older`},
		{name: "cp -n and -u", args: []string{"cp", "-n", "-u"}, code: ExitUsage, wantDst: "dst", srcStays: true, errSubstr: "none of the others can be"},
		{name: "mv replaces", args: []string{"mv"}, code: ExitOK, wantDst: "src"},
		{name: "mv -f replaces", args: []string{"mv", "-f"}, code: ExitOK, wantDst: "src"},
		{name: "mv -n keeps", args: []string{"mv", "-n"}, code: ExitOK, wantDst: "dst", srcStays: true},
		{name: "mv -f -n", args: []string{"mv", "-f", "-n"}, code: ExitUsage, wantDst: "dst", srcStays: true, errSubstr: "none of the others can be"},
	} {
		for _, pair := range []struct{ name, src, dst string }{{"same", disk, disk}, {"across", disk, mem}} {
			t.Run(tc.name+" "+pair.name, func(t *testing.T) {
				n := strings.NewReplacer(" ", "_", "=", "_", "-", "_").Replace(tc.name + pair.name)
				src, dst := pair.src+"/"+n+".src", pair.dst+"/"+n+".dst"
				writeTo(t, src, "source bytes")
				writeTo(t, dst, "destination bytes")
				if !tc.srcTime.IsZero() {
					require.Equal(t, disk, pair.src)
					require.NoError(t, os.Chtimes(filepath.Join(dir, n+".src"), tc.srcTime, tc.srcTime))
					if pair.dst == disk {
						require.NoError(t, os.Chtimes(filepath.Join(dir, n+".dst"), tc.dstTime, tc.dstTime))
					} else if tc.dstTime.Before(tc.srcTime) {
						t.Skip("memory:// files are written now: an older destination needs file://")
					}
				}
				r := vfskit(t, append(append([]string(nil), tc.args...), src, dst)...)
				require.Equal(t, tc.code, r.code, "stderr: %s", r.stderr)
				if tc.errSubstr != "" {
					assert.Contains(t, r.stderr, tc.errSubstr)
				} else {
					assert.Empty(t, r.stderr)
				}
				want := map[string]string{"src": "source bytes", "dst": "destination bytes"}[tc.wantDst]
				got, found := readAt(t, dst)
				assert.True(t, found)
				assert.Equal(t, want, got)
				got, found = readAt(t, src)
				assert.Equal(t, tc.srcStays, found, "the source stays: %v", tc.srcStays)
				if found {
					assert.Equal(t, "source bytes", got)
				}
			})
		}
	}
}

// TestMoveTreeNoClobber checks mv -n of a tree across file systems: files
// whose destination exists stay at the source, the others move.
func TestMoveTreeNoClobber(t *testing.T) {
	disk, mem := "file://"+t.TempDir(), memRoot(t)
	writeTo(t, disk+"/t/a", "new a")
	writeTo(t, disk+"/t/sub/b", "new b")
	writeTo(t, mem+"/t/sub/b", "old b")
	ok(t, "mv", "-n", disk+"/t", mem+"/")
	assert.Equal(t, "new a", ok(t, "cat", mem+"/t/a"))
	assert.Equal(t, "old b", ok(t, "cat", mem+"/t/sub/b"))
	assert.Equal(t, "new b", ok(t, "cat", disk+"/t/sub/b"), "kept destination: the source stays")
	_, found := readAt(t, disk+"/t/a")
	assert.False(t, found, "the file whose destination was free moved")
}

// stopper:// is an in-memory destination that cancels the command line's
// context once it has published a given number of files: an interrupt
// (Ctrl-C) in the middle of a cp -r. With deletes set, it also cancels it
// once it has deleted that many files (vfs.DeleteVersion): an interrupt in
// the middle of an mv's deletes at the source.
type stopperFS struct {
	*aferofs.FileSystem
	after   int64
	closed  *atomic.Int64
	cancel  func()
	deletes int64
	deleted *atomic.Int64
}

func (s stopperFS) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	err := s.FileSystem.DeleteVersion(ctx, p, v)
	if err == nil && s.deletes > 0 && s.deleted.Add(1) == s.deletes && s.cancel != nil {
		s.cancel()
	}
	return err
}

type stopperOutput struct {
	vfs.OutputStream
	fs stopperFS
}

func (o stopperOutput) Close() error {
	err := o.OutputStream.Close()
	if err == nil && o.fs.closed.Add(1) == o.fs.after && o.fs.cancel != nil {
		o.fs.cancel()
	}
	return err
}

// CreateUnsynced is Create (with its directory sync): a tree copy creates
// its files this way (vfs.DirSyncer), and must meet the same wrapper.
func (s stopperFS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	return s.Create(ctx, p, mode)
}

func (s stopperFS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := s.FileSystem.Create(ctx, p, mode)
	if err != nil {
		return out, err
	}
	return stopperOutput{out, s}, nil
}

var stoppers sync.Map // authority → *stopperFS

func stopperFactory(_ context.Context, u *url.URL) (vfs.FileSystem, error) {
	if s, ok := stoppers.Load(u.Host); ok {
		return *s.(*stopperFS), nil
	}
	return nil, fmt.Errorf("no stopper:// file system %q", u.Host)
}

// newStopper registers a stopper:// file system of this authority that
// cancels the returned context once after files were published in it, and
// returns a runner of command lines that reach it.
func newStopper(t *testing.T, authority string, after int64) (context.Context, *stopperFS, func(context.Context, ...string) result) {
	mfs, err := aferofs.New(afero.NewMemMapFs(), aferofs.Options{Scheme: "stopper", Authority: authority})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stopper := &stopperFS{FileSystem: mfs, after: after, closed: &atomic.Int64{}, cancel: cancel, deleted: &atomic.Int64{}}
	stoppers.Store(authority, stopper)
	t.Cleanup(func() { stoppers.Delete(authority) })
	opts := append(append([]Option(nil), allSchemes...), WithScheme("stopper", stopperFactory))
	return ctx, stopper, func(ctx context.Context, args ...string) result {
		var out, errOut bytes.Buffer
		code := Run(withLastingMemory(ctx), args, Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return false }}, opts...)
		return result{code: code, stdout: out.String(), stderr: errOut.String()}
	}
}

// TestCopyInterruptedAndFinished interrupts a cp -r of 150 files midway,
// then finishes it with cp -r --update=none: every file is byte for byte the
// source's, and what was at the destination before the second run is kept.
func TestCopyInterruptedAndFinished(t *testing.T) {
	const files, stopAfter = 150, 60
	src := "file://" + t.TempDir() + "/tree"
	sums := map[string][32]byte{}
	for i := range files {
		rel := fmt.Sprintf("d%d/f%03d", i%4, i)
		sums[rel] = putRandom(t, src+"/"+rel, uint64(i+1), int64(1+i*97))
	}
	ctx, stopper, run := newStopper(t, "resume", stopAfter)
	mfs := stopper.FileSystem
	dst := "stopper://resume/out"

	r := run(ctx, "cp", "-r", src, dst)
	require.Equal(t, ExitInterrupted, r.code, r.stderr)
	m := regexp.MustCompile(`(?m)^vfskit: cp: interrupted: copied \d+ files \(.*\) of 150 to stopper://resume/out; to copy the rest, re-run with --update=none: vfskit (cp -r -T --update=none \S+ stopper://resume/out)$`).FindStringSubmatch(r.stderr)
	require.NotNil(t, m, "the interrupt says what was copied and how to finish: %s", r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "that one line is all it says: %q", r.stderr)
	finish := strings.Fields(m[1])
	var copied []string
	for rel := range sums {
		if found, _ := vfs.Exists(t.Context(), mfs, vfs.MustPath(dst+"/"+rel)); found {
			copied = append(copied, rel)
		}
	}
	require.GreaterOrEqual(t, len(copied), stopAfter, "the files copied before the interrupt are kept")
	require.Less(t, len(copied), files, "the copy was interrupted midway")

	// Before the re-run: one copied file was edited at the destination and
	// one not yet copied was put there by someone else. Both are kept.
	edited, foreign := copied[0], ""
	for rel := range sums {
		if !slices.Contains(copied, rel) {
			foreign = rel
			break
		}
	}
	require.NotEmpty(t, foreign)
	require.NoError(t, vfs.WriteFile(t.Context(), mfs, vfs.MustPath(dst+"/"+edited), []byte("edited"), vfs.Overwrite))
	require.NoError(t, vfs.WriteFile(t.Context(), mfs, vfs.MustPath(dst+"/"+foreign), []byte("foreign"), vfs.Overwrite))

	stopper.cancel = nil
	r = run(context.Background(), finish...)
	require.Equal(t, ExitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	for rel, want := range sums {
		data, err := vfs.ReadFile(t.Context(), mfs, vfs.MustPath(dst+"/"+rel))
		require.NoError(t, err, rel)
		switch rel {
		case edited:
			assert.Equal(t, "edited", string(data))
		case foreign:
			assert.Equal(t, "foreign", string(data))
		default:
			require.Equal(t, want, sha256.Sum256(data), "%s is byte for byte the source's", rel)
		}
	}
}

// TestSeveralSourcesInterruptedAndFinished interrupts a cp -r of two trees
// into a directory during the second: one line says what was copied and
// prints the command that finishes every source (without -T, each into the
// directory again), and that command copies the rest.
func TestSeveralSourcesInterruptedAndFinished(t *testing.T) {
	const each, stopAfter = 20, 25
	base := "file://" + t.TempDir()
	sums := map[string][32]byte{}
	for _, tree := range []string{"one", "two"} {
		for i := range each {
			rel := fmt.Sprintf("%s/f%02d", tree, i)
			sums[rel] = putRandom(t, base+"/"+rel, uint64(len(sums)+1), int64(1+i*31))
		}
	}
	ctx, stopper, run := newStopper(t, "several", stopAfter)
	mfs := stopper.FileSystem
	require.NoError(t, vfs.WriteFile(t.Context(), mfs, vfs.MustPath("stopper://several/in/keep"), []byte("k"), vfs.NoOverwrite))

	r := run(ctx, "cp", "-r", base+"/one", base+"/two", "stopper://several/in")
	require.Equal(t, ExitInterrupted, r.code, r.stderr)
	m := regexp.MustCompile(`^vfskit: cp: interrupted: copied \d+ files \(.*\) of 20 to stopper://several/in/two; to copy the rest, re-run with --update=none: vfskit (cp -r --update=none \S+/one \S+/two stopper://several/in)\n$`).FindStringSubmatch(r.stderr)
	require.NotNil(t, m, "one line: what was copied and the command that finishes every source: %q", r.stderr)

	stopper.cancel = nil
	r = run(context.Background(), strings.Fields(m[1])...)
	require.Equal(t, ExitOK, r.code, r.stderr)
	for rel, want := range sums {
		data, err := vfs.ReadFile(t.Context(), mfs, vfs.MustPath("stopper://several/in/"+rel))
		require.NoError(t, err, rel)
		require.Equal(t, want, sha256.Sum256(data), "%s is byte for byte the source's", rel)
	}
}

// TestMoveInterruptedAndFinished interrupts an mv of a tree from stopper://
// to file:// while it deletes at the source, into an existing directory, to
// a new name and with a second source not moved yet: one line names mv and the command that finishes it, which
// moves the rest (every file byte for byte at the destination, none left at
// the source). With -n, the same line says that mv -n again would not.
func TestMoveInterruptedAndFinished(t *testing.T) {
	const files, stopAfter = 12, 5
	for _, tc := range []struct {
		name, flag, into, finish string
		second                   bool // a second source, untouched when the first is interrupted
	}{
		{name: "into a directory", into: "/", finish: `mv stopper://\S+/tree file://\S+/dst`},
		{name: "several sources", into: "/", second: true, finish: `mv stopper://\S+/tree stopper://\S+/tree2 file://\S+/dst`},
		{name: "to a new name", into: "/tree", finish: `mv stopper://\S+/tree file://\S+/dst/`},
		{name: "no clobber", flag: "-n", into: "/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			authority := "mv-" + strings.ReplaceAll(tc.name, " ", "-")
			ctx, stopper, run := newStopper(t, authority, 0)
			stopper.deletes = stopAfter
			mfs := stopper.FileSystem
			srcs := []string{"stopper://" + authority + "/tree"}
			if tc.second {
				srcs = append(srcs, srcs[0]+"2")
			}
			sums := map[string][32]byte{} // by path below the destination
			for _, src := range srcs {
				for i := range files {
					rel := fmt.Sprintf("d%d/f%02d", i%3, i)
					data := bytes.Repeat([]byte{byte(i)}, 1+i*53)
					require.NoError(t, vfs.WriteFile(t.Context(), mfs, vfs.MustPath(src+"/"+rel), data, vfs.NoOverwrite))
					sums[vfs.MustPath(src).Name()+"/"+rel] = sha256.Sum256(data)
				}
			}
			dst := "file://" + filepath.ToSlash(t.TempDir()) + "/dst"
			require.NoError(t, os.Mkdir(vfs.MustPath(dst).Path(), 0o755))
			args := append(append([]string{"mv"}, srcs...), dst+strings.TrimSuffix(tc.into, "/"))
			if tc.flag != "" {
				args = slices.Insert(args, 1, tc.flag)
			}

			r := run(ctx, args...)
			require.Equal(t, ExitInterrupted, r.code, r.stderr)
			line := `(?m)^vfskit: mv: interrupted: copied 12 files \(.*\) to file://\S+/dst/tree, then stopped deleting them at the source; `
			if tc.finish == "" {
				assert.Regexp(t, line+`mv -n again would keep them there, as their destination exists$`, r.stderr)
				assert.NotContains(t, r.stderr, "cp")
				return
			}
			m := regexp.MustCompile(line + `to finish, re-run it \(it copies the files left at the source over their copies, then deletes them there\): vfskit (` + tc.finish + `)$`).FindStringSubmatch(r.stderr)
			require.NotNil(t, m, "the interrupt names mv and the command that finishes it: %s", r.stderr)
			assert.NotContains(t, r.stderr, "cp")

			stopper.cancel = nil
			r = run(context.Background(), strings.Fields(m[1])...)
			require.Equal(t, ExitOK, r.code, r.stderr)
			for rel, want := range sums {
				data, err := os.ReadFile(filepath.Join(vfs.MustPath(dst).Path(), rel))
				require.NoError(t, err, rel)
				require.Equal(t, want, sha256.Sum256(data), "%s is byte for byte the source's", rel)
			}
			for _, src := range srcs {
				found, err := vfs.Exists(t.Context(), mfs, vfs.MustPath(src))
				require.NoError(t, err)
				assert.False(t, found, "nothing is left at the source %s", src)
			}
		})
	}
}
