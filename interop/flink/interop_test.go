// Package flink_test proves vfskit's checkpoint commands against real Flink:
// Flink (the harness in this directory, in its MiniCluster) writes checkpoints
// and savepoints, vfskit inspects, verifies, collects, audits and relocates
// them, and Flink restores from what vfskit left — with the source deleted.
package flink_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/vfskit/vfskit/backends/local"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/cli"
	"github.com/vfskit/vfskit/cli/clis3"
	"github.com/vfskit/vfskit/internal/flinktest"
	"github.com/vfskit/vfskit/internal/s3test"
	"github.com/vfskit/vfskit/vfs"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// scenario is one way of writing state: a backend and the flags that vary the format.
type scenario struct {
	name string
	args []string
	// since is the oldest Flink minor version that has the feature ("" for all).
	since string
	// handles are Flink handle classes the newest checkpoint must hold: the
	// scenario wrote the format it is about. "A|B": A or B.
	handles []string
}

var scenarios = []scenario{
	{name: "hashmap", args: []string{"--backend", "hashmap", "--savepoint", "canonical"}, handles: []string{"KeyGroupsStateHandle"}},
	// RocksDB's full (non-incremental) checkpoints are native snapshots with every file
	// exclusive; the slow relay keeps records in flight, which unaligned checkpoints persist.
	{name: "rocksdb-unaligned", args: []string{"--backend", "rocksdb", "--unaligned"},
		// Flink 2.x merges each subtask's channel state into one handle.
		handles: []string{"IncrementalRemoteKeyedStateHandle", "InputChannelStateHandle|MergedInputChannelStateHandle",
			"ResultSubpartitionStateHandle|MergedResultSubpartitionStateHandle"}},
	{name: "rocksdb-incremental", args: []string{"--backend", "rocksdb-incremental", "--savepoint", "native"}, handles: []string{"IncrementalRemoteKeyedStateHandle"}},
	{name: "file-merging", args: []string{"--backend", "rocksdb-incremental", "--file-merging"}, since: "1.20", handles: []string{"SegmentFileStateHandle"}},
}

// run is one in-process vfskit command line.
type run struct {
	code           int
	stdout, stderr string
}

// env is what every test of this package shares: the harness script and S3.
type env struct {
	script string
	s3     *s3test.Server
	root   string // s3://bucket
}

func setup(t *testing.T) *env {
	script := flinktest.Script(t)
	srv := s3test.SeaweedFS(t)
	return &env{script: script, s3: srv, root: "s3://" + srv.NewBucket(t)}
}

func (e *env) vfskit(t *testing.T, args ...string) run {
	t.Helper()
	args = append([]string{"--endpoint", e.s3.Endpoint, "--path-style"}, args...)
	var out, errOut bytes.Buffer
	code := cli.Run(context.Background(), args, cli.Stdio{Out: &out, Err: &errOut, Terminal: func() bool { return false }}, cli.WithSchemes(clis3.Schemes()))
	return run{code: code, stdout: out.String(), stderr: errOut.String()}
}

func (e *env) ok(t *testing.T, args ...string) string {
	t.Helper()
	r := e.vfskit(t, args...)
	require.Equal(t, cli.ExitOK, r.code, "vfskit %q: %s%s", args, r.stdout, r.stderr)
	return r.stdout
}

func (e *env) harness(t *testing.T, version string) *flinktest.Harness {
	e.s3.SetEnv(t) // vfskit's s3:// reads the credentials from here
	return flinktest.New(t, e.script, version, e.s3.Env()...)
}

// fileURI is the file:// URI of a local path, spelled as a user types it.
func fileURI(p string) string { return "file://" + filepath.ToSlash(p) }

// localPath is the local path of a file: URI in any of Flink's and vfskit's spellings.
func localPath(t *testing.T, uri string) string {
	t.Helper()
	p, err := vfs.NewPath(uri)
	require.NoError(t, err, uri)
	require.Equal(t, "file", p.Scheme(), uri)
	return filepath.FromSlash(p.Path())
}

// canonical spells a URI as vfskit prints it, so Flink's "file:/x" and vfskit's "file:///x" compare.
func canonical(t *testing.T, uri string) string {
	t.Helper()
	p, err := vfs.NewPath(uri)
	require.NoError(t, err, uri)
	return p.String()
}

// inspected is the part of "checkpoints inspect --json" that describe also tells.
type inspected struct {
	CheckpointID    int64                   `json:"checkpointId"`
	SavepointFormat string                  `json:"savepointFormat"`
	HandleCounts    map[string]int          `json:"handleCounts"`
	Operators       []flinktest.Operator    `json:"operators"`
	Files           []struct{ Path string } `json:"files"`
}

// agree checks that vfskit's reading of the _metadata at pointer is Flink's,
// and that vfskit encodes it back to the same bytes; it returns Flink's reading.
func (e *env) agree(t *testing.T, h *flinktest.Harness, pointer string) flinktest.Description {
	t.Helper()
	d := h.Describe(t, pointer)
	var got inspected
	require.NoError(t, json.Unmarshal([]byte(e.ok(t, "checkpoints", "inspect", "--json", pointer)), &got))
	assert.Equal(t, d.CheckpointID, got.CheckpointID, "checkpoint id of %s", pointer)
	byID := func(ops []flinktest.Operator) []flinktest.Operator {
		ops = slices.Clone(ops)
		sort.Slice(ops, func(i, j int) bool { return ops[i].ID < ops[j].ID })
		return ops
	}
	assert.Equal(t, byID(d.Operators), byID(got.Operators), "operators of %s", pointer)
	var want, have []string
	for _, f := range d.Files {
		want = append(want, canonical(t, f))
	}
	for _, f := range got.Files {
		have = append(have, canonical(t, f.Path))
	}
	sort.Strings(want)
	sort.Strings(have)
	assert.Equal(t, slices.Compact(want), slices.Compact(have), "referenced files of %s", pointer)

	if strings.HasPrefix(pointer, "file:") {
		data, err := os.ReadFile(filepath.Join(localPath(t, pointer), "_metadata"))
		require.NoError(t, err)
		md, err := metadata.Decode(data)
		require.NoError(t, err, "decoding %s", pointer)
		again, err := metadata.Encode(md)
		require.NoError(t, err)
		assert.True(t, bytes.Equal(data, again), "re-encoding %s's _metadata (%d bytes) gave %d different bytes", pointer, len(data), len(again))
	}
	return d
}

// verifyCatchesLoss removes each of a few files describe lists in turn: verify
// fails naming it, and passes again once it is back.
func (e *env) verifyCatchesLoss(t *testing.T, pointer string, d flinktest.Description) {
	t.Helper()
	e.ok(t, "checkpoints", "verify", pointer)
	require.NotEmpty(t, d.Files, "%s references no files: the test would prove nothing", pointer)
	picks := []string{d.Files[0], d.Files[len(d.Files)-1]}
	for _, f := range slices.Compact(picks) {
		local := localPath(t, f)
		aside := local + ".aside"
		require.NoError(t, os.Rename(local, aside))
		r := e.vfskit(t, "checkpoints", "verify", pointer)
		assert.Equal(t, cli.ExitFailure, r.code, "verify with %s removed: %s", f, r.stdout)
		assert.Contains(t, r.stdout, filepath.Base(local), "verify names the missing file")
		require.NoError(t, os.Rename(aside, local))
	}
	e.ok(t, "checkpoints", "verify", pointer)
}

// TestFlinkInterop runs every scenario on every selected Flink version: inspect
// agrees with Flink's describe and re-encodes byte for byte, verify catches a
// lost file, and Flink restores exactly (nothing lost, nothing twice) from the
// newest checkpoint after gc --retain 1, audit --delete, relocation to another
// directory and on to S3 with each source deleted, and from a savepoint
// relocated with its source deleted. The same two commands delete nothing a
// checkpoint needs when they reach it by another spelling: s3:// for a job
// written through s3a://, a linked ancestor for one written under the real
// path (with a job restored in CLAIM mode from it too).
func TestFlinkInterop(t *testing.T) {
	e := setup(t)
	for _, version := range flinktest.Versions(t, e.script) {
		t.Run(version, func(t *testing.T) {
			h := e.harness(t, version)
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					if sc.since != "" && versionLess(version, sc.since) {
						// The harness refuses what the version does not have.
						_, stderr, err := h.Run(append([]string{"write", "--dir", fileURI(t.TempDir())}, sc.args...)...)
						require.Error(t, err, "write %q on Flink %s, which has no %s", sc.args, version, sc.name)
						assert.Contains(t, stderr, "since Flink "+sc.since)
						return
					}
					e.scenario(t, h, sc)
				})
			}
			for _, p := range []int{1, 3} {
				t.Run(fmt.Sprintf("parallelism-%d", p), func(t *testing.T) { e.parallelism(t, h, p) })
			}
			t.Run("cross-job-claim", func(t *testing.T) {
				base := fileURI(filepath.Join(t.TempDir(), "jobs ü"))
				e.crossJob(t, h, base, base)
			})
			t.Run("s3a-written", func(t *testing.T) { e.s3aWritten(t, h) })
			t.Run("linked-base", func(t *testing.T) { e.linkedBase(t, h) })
			t.Run("cross-job-claim-through-link", func(t *testing.T) {
				real, link := linkedDir(t)
				e.crossJob(t, h, fileURI(filepath.Join(real, "jobs ü")), fileURI(filepath.Join(link, "jobs ü")))
			})
		})
	}
}

func (e *env) scenario(t *testing.T, h *flinktest.Harness, sc scenario) {
	tmp := t.TempDir()
	base := fileURI(filepath.Join(tmp, "state dir", "ü "+sc.name))
	w := h.Write(t, append([]string{"--dir", base, "--checkpoints", "3"}, sc.args...)...)
	require.Len(t, w.Checkpoints, 3)
	jobDir := base + "/" + w.JobID

	for _, c := range w.Checkpoints {
		d := e.agree(t, h, c)
		require.NotEmpty(t, d.Operators)
	}
	latest := w.Latest()
	var got inspected
	require.NoError(t, json.Unmarshal([]byte(e.ok(t, "checkpoints", "inspect", "--json", latest)), &got))
	for _, handle := range sc.handles {
		n := 0
		for _, h := range strings.Split(handle, "|") {
			n += got.HandleCounts[h]
		}
		assert.Positive(t, n, "%s holds no %s: %v", latest, handle, got.HandleCounts)
	}
	e.verifyCatchesLoss(t, latest, h.Describe(t, latest))

	e.ok(t, "checkpoints", "gc", jobDir, "--retain", "1")
	assert.NoDirExists(t, localPath(t, w.Checkpoints[0]), "gc --retain 1 removes older checkpoints")
	e.ok(t, "checkpoints", "verify", latest)
	e.ok(t, "checkpoints", "audit", jobDir, "--delete")
	e.ok(t, "checkpoints", "verify", latest)

	// Relocate to another directory, delete the source; relocate on to S3, delete again.
	moved := fileURI(filepath.Join(tmp, "moved ß", w.JobID))
	e.ok(t, "checkpoints", "relocate", jobDir, moved)
	require.NoError(t, os.RemoveAll(localPath(t, jobDir)))
	name := latest[strings.LastIndex(latest, "/")+1:]
	rd := h.Describe(t, moved+"/"+name)
	assert.Equal(t, rd.CheckpointID, checkpointID(t, name))
	for _, f := range rd.Files {
		assert.True(t, strings.HasPrefix(canonical(t, f), canonical(t, moved)+"/"), "relocated metadata references %s, outside %s", f, moved)
	}
	remote := e.root + "/" + strings.ReplaceAll(sc.name, "-", " ") + " ü/" + w.JobID
	e.ok(t, "checkpoints", "relocate", moved, remote)
	require.NoError(t, os.RemoveAll(localPath(t, moved)))
	e.ok(t, "checkpoints", "verify", remote+"/"+name)
	require.NoError(t, h.Restore("--from", remote+"/"+name), "restore from the relocated %s on S3", name)

	if format := flagValue(sc.args, "--savepoint"); format != "" {
		require.NotNil(t, w.Savepoint, "write %q printed no savepoint", sc.args)
		sp := *w.Savepoint
		var spGot inspected
		require.NoError(t, json.Unmarshal([]byte(e.ok(t, "checkpoints", "inspect", "--json", sp)), &spGot))
		assert.Equal(t, format, spGot.SavepointFormat, "format of the savepoint %s", sp)
		d := e.agree(t, h, sp)
		e.verifyCatchesLoss(t, sp, d)
		spMoved := fileURI(filepath.Join(tmp, "savepoints é", filepath.Base(localPath(t, sp))))
		e.ok(t, "checkpoints", "relocate", sp, spMoved)
		require.NoError(t, os.RemoveAll(localPath(t, sp)))
		e.agree(t, h, spMoved)
		require.NoError(t, h.Restore("--from", spMoved), "restore from the relocated savepoint")
	}
}

// crossJob: job B is restored in CLAIM mode from an older checkpoint of job A
// (incremental RocksDB), so B's checkpoints reference files in A's shared/
// that A's newest checkpoint no longer does. The harness makes that so every
// time: A's RocksDB compacts fully before each checkpoint (each checkpoint's
// SST files are new), B's never compacts (B keeps every file it restored).
// audit on A alone would call those files orphans; gc --retain 1 and audit
// --delete on A must leave them, and B then verifies and restores. Flink
// writes under base; vfskit reaches it as seen, the same directory (through
// a linked ancestor, when they differ).
func (e *env) crossJob(t *testing.T, h *flinktest.Harness, base, seen string) {
	a := h.Write(t, "--dir", base, "--backend", "rocksdb-incremental", "--checkpoints", "4", "--compaction", "every-checkpoint")
	b := h.RestoreCheckpoints(t, "--from", a.Checkpoints[1], "--claim-mode", "claim", "--checkpoints", "1", "--compaction", "never")
	require.NotEqual(t, a.JobID, b.JobID)
	aDir := seen + "/" + a.JobID
	// via spells a URI Flink printed as vfskit reaches it.
	via := func(uri string) string {
		return canonical(t, seen) + strings.TrimPrefix(canonical(t, uri), canonical(t, base))
	}

	aLatest := map[string]bool{}
	for _, f := range h.Describe(t, a.Latest()).Files {
		aLatest[canonical(t, f)] = true
	}
	var onlyB []string
	for _, f := range h.Describe(t, b.Latest()).Files {
		if strings.Contains(f, a.JobID+"/shared/") && !aLatest[canonical(t, f)] {
			onlyB = append(onlyB, canonical(t, f))
		}
	}
	require.NotEmpty(t, onlyB, "job B references no file of job A's shared/ beyond A's newest checkpoint: the test would prove nothing")
	t.Logf("job B needs %d files in job A's shared/ that A's newest checkpoint does not reference", len(onlyB))

	// What A's own checkpoints reference does not keep them: only B's checkpoint does.
	dry := e.ok(t, "checkpoints", "audit", aDir)
	for _, f := range onlyB {
		assert.Regexp(t, `(?m)^orphan `+regexp.QuoteMeta(via(f))+` .*\(kept: referenced by `+regexp.QuoteMeta(via(b.Latest())), dry,
			"audit of job A finds %s referenced by job B alone", f)
	}

	e.ok(t, "checkpoints", "gc", aDir, "--retain", "1")
	e.ok(t, "checkpoints", "audit", aDir, "--delete")
	for _, f := range onlyB {
		assert.FileExists(t, localPath(t, f), "job B's file in job A's shared/ survives gc and audit --delete on job A")
	}
	e.ok(t, "checkpoints", "verify", via(b.Latest()))
	require.NoError(t, h.Restore("--from", b.Latest()), "job B restores after gc and audit --delete on job A")
}

// linkedDir returns a directory and a link to it (/data -> /mnt/disk1, a
// common mount layout).
func linkedDir(t *testing.T) (real, link string) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	real, link = filepath.Join(root, "mnt", "disk1"), filepath.Join(root, "data")
	require.NoError(t, os.MkdirAll(real, 0o755))
	require.NoError(t, os.Symlink(real, link))
	return real, link
}

// collectAndRestore runs gc --retain 1 and audit --delete on the job Flink
// wrote (its checkpoints w) through jobDir, another spelling of its
// directory (seen spells a checkpoint of w that way), then verify and a
// restore from the newest checkpoint: nothing it references was deleted.
func (e *env) collectAndRestore(t *testing.T, h *flinktest.Harness, w flinktest.Written, jobDir string, seen func(string) string) {
	t.Helper()
	latest := w.Latest()
	d := h.Describe(t, latest)
	shared := 0
	for _, f := range d.Files {
		if strings.Contains(f, w.JobID+"/shared/") {
			shared++
		}
	}
	require.Positive(t, shared, "%s references no shared file: the test would prove nothing", latest)
	e.ok(t, "checkpoints", "gc", jobDir, "--retain", "1")
	r := e.vfskit(t, "checkpoints", "verify", seen(w.Checkpoints[0]))
	assert.NotEqual(t, cli.ExitOK, r.code, "gc --retain 1 removed the oldest checkpoint")
	e.ok(t, "checkpoints", "audit", jobDir, "--delete")
	e.ok(t, "checkpoints", "verify", seen(latest))
	require.NoError(t, h.Restore("--from", latest), "restore from %s after gc and audit --delete through %s", latest, jobDir)
}

// s3aWritten: Flink writes its checkpoints through s3a:// (flink-s3-fs-hadoop),
// so its _metadata names s3a:// files; gc and audit --delete through s3://
// delete none of them.
func (e *env) s3aWritten(t *testing.T, h *flinktest.Harness) {
	base := strings.Replace(e.root, "s3://", "s3a://", 1) + "/s3a " + strings.ReplaceAll(t.Name(), "/", "-")
	w := h.Write(t, "--dir", base, "--backend", "rocksdb-incremental", "--checkpoints", "3")
	require.Len(t, w.Checkpoints, 3)
	require.True(t, strings.HasPrefix(w.Latest(), "s3a://"), w.Latest())
	s3 := func(uri string) string { return strings.Replace(uri, "s3a://", "s3://", 1) }
	e.collectAndRestore(t, h, w, s3(base+"/"+w.JobID), s3)
}

// linkedBase: Flink writes under the real directory, vfskit reaches it
// through a link in an ancestor.
func (e *env) linkedBase(t *testing.T, h *flinktest.Harness) {
	real, link := linkedDir(t)
	base := fileURI(filepath.Join(real, "base"))
	w := h.Write(t, "--dir", base, "--backend", "rocksdb-incremental", "--checkpoints", "3")
	require.Len(t, w.Checkpoints, 3)
	seen := func(uri string) string {
		return fileURI(link) + strings.TrimPrefix(canonical(t, uri), canonical(t, fileURI(real)))
	}
	e.collectAndRestore(t, h, w, seen(base+"/"+w.JobID), seen)
}

// parallelism writes with --parallelism p: every operator but the broadcast
// source (parallelism 1) has p subtasks in Flink's reading and vfskit's, and
// Flink restores exactly from the newest checkpoint and from the savepoint.
func (e *env) parallelism(t *testing.T, h *flinktest.Harness, p int) {
	base := fileURI(filepath.Join(t.TempDir(), fmt.Sprintf("parallelism %d ü", p)))
	w := h.Write(t, "--dir", base, "--backend", "rocksdb-incremental", "--checkpoints", "2", "--savepoint", "canonical",
		"--parallelism", fmt.Sprint(p))
	require.Len(t, w.Checkpoints, 2)
	require.NotNil(t, w.Savepoint)
	for _, pointer := range []string{w.Latest(), *w.Savepoint} {
		d := e.agree(t, h, pointer)
		var ps []int
		for _, op := range d.Operators {
			ps = append(ps, op.Parallelism)
		}
		sort.Ints(ps)
		want := append(slices.Repeat([]int{p}, len(d.Operators)-1), 1) // the broadcast source has 1
		sort.Ints(want)
		assert.Equal(t, want, ps, "parallelism of the operators of %s", pointer)
		require.NoError(t, h.Restore("--from", pointer), "restore from %s", pointer)
	}
}

// flagValue is the value of flag in args, "" when absent.
func flagValue(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

func checkpointID(t *testing.T, name string) int64 {
	t.Helper()
	var n int64
	_, err := fmt.Sscanf(name, "chk-%d", &n)
	require.NoError(t, err, name)
	return n
}

// versionLess reports whether Flink version v is older than minor (e.g. "1.20").
func versionLess(v, minor string) bool {
	var a, b, c, d int
	fmt.Sscanf(v, "%d.%d", &a, &b)
	fmt.Sscanf(minor, "%d.%d", &c, &d)
	return a < c || (a == c && b < d)
}
