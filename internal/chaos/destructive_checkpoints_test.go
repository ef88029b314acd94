package chaos_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	cs "github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/chaos"
	"github.com/vfskit/vfskit/vfs"
)

// TestChaosDestructiveCheckpoints runs, cycle after cycle on every store,
// checkpoints gc (CollectGarbage, retain 1, on the job or its base) or audit
// --delete (AuditJob then DeleteOrphans) on a job with three completed
// checkpoints, a failed checkpoint's leftover and orphaned shared and
// task-owned files, beside another job (and on file:// a chk-N of the job
// that is a link into the other job), while a disturber goroutine rewrites
// the orphans (each rewrite changes the size), writes new state into shared/,
// taskowned/, the kept and the removable checkpoints, the other job and
// around the base. Then every object is checked byte for byte: only files in
// the checkpoints gc reports removed, and the orphans DeleteOrphans reports
// deleted in the version the audit saw, may be gone.
func TestChaosDestructiveCheckpoints(t *testing.T) {
	cycles := chaos.Cycles(t, 3)
	seed := chaos.Seed(t)
	for si, st := range destructiveStores {
		t.Run(st.name, func(t *testing.T) {
			store := st.make(t)
			sum := chaos.NewSummary("destructive-checkpoints-" + st.name)
			for c := range cycles {
				rng := rand.New(rand.NewPCG(seed^0xC4EC, uint64(si)<<32|uint64(c)))
				checkpointCycle(t, store, c, rng, sum, seed, st.name)
			}
			sum.Report(t)
			require.Equal(t, cycles, sum.Get("cycles"))
			require.Zero(t, sum.Get("lost"), "objects lost")
			require.Positive(t, sum.Get("checked"))
		})
	}
}

func checkpointCycle(t *testing.T, store destructiveStore, c int, rng *rand.Rand, sum *chaos.Summary, seed uint64, storeName string) {
	ctx := t.Context()
	dir := store.root.Join(fmt.Sprintf("k%d", c))
	m := &treeModel{store: store, dir: dir, files: map[string]*entry{}, distinct: true}
	base := dir.Join("base")
	jobA := &chaos.Job{Base: base, Seed: rng.Uint64(), Registry: store.reg, Retain: 10, DisposeEvery: 1000, Streams: 3, MaxState: 8 << 10}
	jobB := &chaos.Job{Base: base, Seed: rng.Uint64(), Registry: store.reg, Retain: 10, DisposeEvery: 1000, Streams: 3, MaxState: 8 << 10}
	jobRel := "base/" + jobA.ID().String()
	otherRel := "base/" + jobB.ID().String()
	orphans := []string{jobRel + "/shared/orphan-1", jobRel + "/shared/orphan-2", jobRel + "/taskowned/orphan-3", jobRel + "/chk-3/leftover"}
	// Their crafted checkpoints name canary files beside the jobs.
	require.NoError(t, jobA.WriteCanaries(ctx, store.reg))
	require.NoError(t, jobB.WriteCanaries(ctx, store.reg))
	for k := range 3 {
		r := jobA.Cycle(ctx, k, nil)
		require.NoError(t, r.Err, "job A, cycle %d", k)
		if k == 1 { // older than the newest _metadata: deletable
			for _, o := range orphans {
				require.NoError(t, m.write(ctx, rng, o))
			}
			if store.fs.Kind() == vfs.KindObjectStore {
				// Object stores tell modification times in whole seconds:
				// the orphans must be a second older than the next _metadata.
				time.Sleep(1100 * time.Millisecond)
			}
		}
	}
	require.NoError(t, jobB.Cycle(ctx, 0, nil).Err)
	around := []string{"base/" + jobA.ID().String() + ".bak/x", "base/notes.txt", "outside/y", jobRel + "x/chk-1/_metadata"}
	for _, k := range around {
		require.NoError(t, m.write(ctx, rng, k))
	}
	if store.osRoot != "" && rng.IntN(2) == 0 { // a chk-N of A that is a link into B
		osDir := filepath.Join(store.osRoot, filepath.FromSlash(strings.TrimPrefix(dir.Path(), store.root.Path())))
		require.NoError(t, os.Symlink(filepath.Join(osDir, filepath.FromSlash(otherRel), "chk-2"), filepath.Join(osDir, filepath.FromSlash(jobRel), "chk-8")))
		sum.Add("linked-checkpoints", 1)
	}
	// Everything there is in the model, with its bytes.
	require.NoError(t, vfs.Walk(ctx, store.fs, dir, func(st vfs.FileStatus, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist): // a directory the job removed, still listed
			return nil
		case err != nil || st.IsDir || st.Symlink:
			return err
		}
		key, ok := st.Path.Rel(dir)
		require.True(t, ok, "%s below %s", st.Path, dir)
		if m.files[key] == nil {
			data, err := vfs.ReadFile(ctx, store.fs, st.Path)
			require.NoError(t, err)
			m.files[key] = &entry{data: data, ver: 1}
		}
		return nil
	}))

	gc := rng.IntN(2) == 0
	op := "audit-delete"
	if gc {
		op = "gc"
	}
	what := fmt.Sprintf("seed %d (%s=%d), store %s, cycle %d, %s", seed, chaos.SeedEnv, seed, storeName, c, op)
	opts := []cs.Option{cs.WithRegistry(store.reg)}
	gcDir := dir.Join(strings.Split(jobRel, "/")...)
	if rng.IntN(2) == 0 {
		gcDir = base
	}
	var (
		jobs    []cs.JobGC
		audit   *cs.Audit
		deleted []vfs.Path
		opErr   error
		wg      sync.WaitGroup
	)
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		if gc {
			jobs, opErr = cs.CollectGarbage(ctx, gcDir, 1, opts...)
			return
		}
		audit, opErr = cs.AuditJob(ctx, jobA.Dir(), opts...)
		if opErr == nil {
			runtime.Gosched()
			deleted, opErr = cs.DeleteOrphans(ctx, audit, opts...)
		}
	}()
	drng := rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
	steps := 8 + drng.IntN(24)
	for i := 0; i < steps; i++ {
		if i > 3 && isDone(done) {
			break
		}
		var key string
		switch s := drng.IntN(8); s {
		case 0, 1:
			key = orphans[drng.IntN(len(orphans))]
			sum.Add("disturb-orphan-rewrites", 1)
		case 2:
			key = fmt.Sprintf("%s/%s/new-%d", jobRel, []string{"shared", "taskowned"}[drng.IntN(2)], drng.IntN(1000))
			sum.Add("disturb-state-creates", 1)
		case 3:
			key = fmt.Sprintf("%s/chk-%d/extra-%d", jobRel, []int{2, 6}[drng.IntN(2)], drng.IntN(1000))
			sum.Add("disturb-checkpoint-creates", 1)
		case 4:
			key = fmt.Sprintf("%s/shared/new-%d", otherRel, drng.IntN(1000))
			sum.Add("disturb-other-job", 1)
		default:
			key = around[drng.IntN(len(around))]
			sum.Add("disturb-around", 1)
		}
		if err := m.write(ctx, drng, key); err != nil {
			sum.Add("disturb-errors", 1)
		}
		runtime.Gosched()
	}
	wg.Wait()
	sum.Add("cycles", 1)
	sum.Add(op, 1)
	if opErr != nil {
		sum.Add(op+"-failed", 1)
		t.Logf("%s: %v", what, opErr)
	}

	// What the operation was asked to remove.
	removedDirs := []string{}
	for _, j := range jobs {
		for _, r := range j.Reports {
			if r.Removed() {
				rel, ok := r.Dir.Rel(dir)
				require.True(t, ok, "%s: gc removed %s, outside the cycle's directory", what, r.Dir)
				removedDirs = append(removedDirs, rel+"/")
				sum.Add("gc-removed-checkpoints", 1)
			}
		}
	}
	if gc && opErr != nil {
		// gc stopped in the job it was cleaning (the reports of that job
		// are not returned): what it may have removed is what retain 1
		// removes there, the older completed checkpoints and the leftover.
		for _, n := range []int{2, 3, 4} {
			removedDirs = append(removedDirs, fmt.Sprintf("%s/chk-%d/", jobRel, n))
		}
	}
	auditedSize := map[string]int64{}
	if audit != nil {
		for _, o := range audit.Orphans {
			if !o.Deletable {
				sum.Add("orphans-kept", 1)
			}
			if rel, ok := o.Path.Rel(dir); ok {
				auditedSize[rel] = o.Size
			}
		}
	}
	exempt := map[string]bool{}
	for _, p := range deleted {
		rel, ok := p.Rel(dir)
		require.True(t, ok, "%s: deleted %s, outside the cycle's directory", what, p)
		sum.Add("orphans-deleted", 1)
		if e := m.files[rel]; e != nil && int64(len(e.data)) != auditedSize[rel] {
			continue // rewritten since the audit saw it: must still be there
		}
		exempt[rel] = true
	}
	keys := make([]string, 0, len(m.files))
	for k := range m.files {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e := m.files[k]
		if e.unknown || exempt[k] || slices.ContainsFunc(removedDirs, func(d string) bool { return strings.HasPrefix(k, d) }) {
			sum.Add("unchecked", 1)
			continue
		}
		checkObject(t, m, k, e, what, sum)
	}
}
