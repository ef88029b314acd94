package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// Target is a store a chaos run checkpoints into, with the faults it suffers.
type Target struct {
	// Name names the run in the summary ("memory", "file", "s3").
	Name string
	// Job is the job that checkpoints; its Registry gives the faulted file
	// systems.
	Job *Job
	// Direct gives unfaulted file systems over the same store, to check
	// through.
	Direct *vfs.Registry
	// Fault starts the faults of cycle c, chosen with rng, and returns the
	// function that ends them (waiting until the store is back), which reports
	// whether a fault that the library cannot hide (a kill, a crash, an
	// injected failure) hit while the cycle ran. Faults the library must ride
	// out (lost answers, 503 SlowDown) do not count as hits. Nil: no faults.
	Fault func(ctx context.Context, c int, rng *rand.Rand) (end func() (hit bool))
	// Run runs cycle c of Job; nil means Job.Cycle in this process. It reports
	// whether it was interrupted (a killed child process), which counts as a
	// hit.
	Run func(ctx context.Context, c int, rng *rand.Rand) (r CycleResult, killed bool)
	// Race is the file system the rename races go through (possibly faulted),
	// RaceDir the directory they race in (outside the job). Zero: no races.
	Race    vfs.FileSystem
	RaceDir vfs.Path
	// Racers is the number of renames racing onto one destination (default 6).
	Racers int
	// Settle, when set, releases what idles between requests (idle
	// connections), before goroutines are counted.
	Settle func()
	// Uploads, when set, lists the multipart uploads left on the server (one
	// description each).
	Uploads func(ctx context.Context) ([]string, error)
	// Reported, when set, returns the temporary files the library reported
	// leaving behind since its last call (an s3 upload marker whose DELETE
	// kept failing, s3.MarkerLeftMessage). Such a file left in a cycle that a
	// fault hit is counted apart (temp-files-reported-under-faults), not as a
	// violation; any other file left without a writer killed is one.
	Reported func() []vfs.Path
	// Counts, when set, adds the target's own counts (kills, faults injected,
	// retries) to the summary at the end.
	Counts func(s *Summary)
	// Log, when set, is told what happens (seed, failures); t.Logf fits.
	Log func(format string, args ...any)
}

// MustBeZero are the counts of a run that must be zero: a listed completed
// checkpoint that does not restore byte for byte, the newest finalized
// checkpoint gone, a FinalizeCheckpoint (or any other step) failing in a cycle
// no fault hit, a canary outside the job damaged or gone, two winners of a
// rename race or a racer's source lost, goroutines or multipart uploads left,
// a temporary file (.vfskit-tmp-*, an s3 upload marker) left by a cycle whose
// writer was not killed (unless the library reported leaving it, in a cycle a
// fault hit: see Target.Reported), or one that cleaning (vfs.CleanTemp) did
// not remove.
var MustBeZero = []string{
	"broken-checkpoints",
	"lost-checkpoints",
	"spurious-finalize-failures",
	"spurious-step-failures",
	"canaries-damaged",
	"rename-double-winners",
	"rename-lost-objects",
	"goroutines-left",
	"multipart-uploads-left",
	"temp-files-without-kill",
	"temp-files-left-after-clean",
}

// Run writes the canaries and the crafted checkpoint 0 (Job.WriteCrafted),
// then runs cycles cycles of t.Job against t, with faults chosen from seed,
// checking after every cycle, through t.Direct, that every listed completed
// checkpoint restores byte for byte and that the newest finalized one is still
// there (after sweeping the temporary files killed writers left, see
// sweepTemp), and at the end that the canaries are intact and that no
// goroutine (and no multipart upload) was left. It returns the summary; errs describes each
// violation counted in a MustBeZero count (nil when none).
func Run(ctx context.Context, t Target, cycles int, seed uint64) (*Summary, []error) {
	sum := NewSummary(t.Name)
	for _, n := range MustBeZero {
		sum.Add(n, 0)
	}
	for _, n := range []string{"cycles", "cycles-completed", "faulted-cycles", "checkpoints-finalized", "finalize-failures-under-faults",
		"checkpoints-restored", "checkpoints-discarded", "outside-references-kept", "temp-files-cleaned",
		"temp-files-reported-under-faults"} {
		sum.Add(n, 0)
	}
	logf := t.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	logf("chaos %s: seed %d, %d cycles, job %s", t.Name, seed, cycles, t.Job.Dir())
	var errs []error
	violation := func(what string, err error) {
		sum.Add(what, 1)
		errs = append(errs, fmt.Errorf("%s: %w", what, err))
		logf("chaos %s: %s: %v", t.Name, what, err)
	}
	t.Job.Defaults()
	if err := t.Job.WriteCanaries(ctx, t.Direct); err != nil {
		return sum, []error{fmt.Errorf("writing the canaries: %w", err)}
	}
	if err := t.Job.WriteCrafted(ctx, t.Direct); err != nil {
		return sum, []error{fmt.Errorf("writing the crafted checkpoint: %w", err)}
	}
	racers := t.Racers
	if racers == 0 {
		racers = 6
	}
	settle := func() int {
		if t.Settle != nil {
			t.Settle()
		}
		return runtime.NumGoroutine()
	}
	base := settle()
	rng := rand.New(rand.NewPCG(seed, 0xc4a05))
	newest := int64(-1) // the newest checkpoint whose FinalizeCheckpoint succeeded
	broken := map[int64]bool{}
	for c := range cycles {
		if ctx.Err() != nil {
			break
		}
		sum.Add("cycles", 1)
		end := func() bool { return false }
		if t.Fault != nil {
			end = t.Fault(ctx, c, rng)
		}
		var r CycleResult
		killed := false
		if t.Run != nil {
			r, killed = t.Run(ctx, c, rng)
		} else {
			r = t.Job.Cycle(ctx, c, nil)
		}
		var race RaceResult
		var raceErr error
		if t.Race != nil {
			fsys, err := t.Direct.GetPath(ctx, t.RaceDir)
			if err == nil {
				race, raceErr = RenameRace(ctx, t.Race, fsys, t.RaceDir.Join(fmt.Sprintf("c%d", c)), racers)
			} else {
				raceErr = err
			}
		}
		hit := end() || killed
		if hit {
			sum.Add("faulted-cycles", 1)
		}
		if r.Finalized {
			sum.Add("checkpoints-finalized", 1)
			newest = r.Checkpoint
		}
		sum.Add("checkpoints-discarded", r.Discarded)
		sum.Add("outside-references-kept", r.Outside)
		switch {
		case killed:
			sum.Add("cycles-interrupted", 1)
			sum.Add("kills-during-"+string(r.Interrupted), 1)
		case r.Failed == "":
			sum.Add("cycles-completed", 1)
		case hit && r.Failed == StepFinalize:
			sum.Add("finalize-failures-under-faults", 1)
		case hit:
			sum.Add("step-failures-under-faults", 1)
		case r.Failed == StepFinalize:
			violation("spurious-finalize-failures", fmt.Errorf("cycle %d: FinalizeCheckpoint of chk-%d failed with no fault: %w", c, r.Checkpoint, r.Err))
		default:
			violation("spurious-step-failures", fmt.Errorf("cycle %d: %s of chk-%d failed with no fault: %w", c, r.Failed, r.Checkpoint, r.Err))
		}

		if t.Race != nil {
			switch {
			case raceErr != nil && hit:
				sum.Add("rename-races-skipped-under-faults", 1)
			case raceErr != nil:
				violation("spurious-step-failures", fmt.Errorf("cycle %d: rename race: %w", c, raceErr))
			default:
				sum.Add("rename-races", 1)
				if race.DoubleWin() {
					violation("rename-double-winners", fmt.Errorf("cycle %d: %d renames succeeded, %d sources moved", c, race.Succeeded, race.Moved))
				}
				if race.Lost > 0 {
					violation("rename-lost-objects", fmt.Errorf("cycle %d: %d sources gone and not at the destination", c, race.Lost))
				}
				if race.Winner < 0 {
					sum.Add("rename-races-without-winner", 1)
					if !hit {
						violation("spurious-step-failures", fmt.Errorf("cycle %d: no rename won, with no fault", c))
					}
				}
			}
		}

		// Sweep what killed writers left, as an operator would run
		// "vfskit clean-temp" after a crash; the verification below then
		// checks that the sweep removed nothing a checkpoint needs.
		removed, left, err := sweepTemp(ctx, t.Direct, t.Job.Base, t.RaceDir)
		sum.Add("temp-files-cleaned", len(removed))
		if err != nil {
			violation("spurious-step-failures", fmt.Errorf("cycle %d: cleaning temporary files: %w", c, err))
		}
		var reported []vfs.Path
		if t.Reported != nil {
			reported = t.Reported()
		}
		if unexplained := unexplainedTemp(removed, reported, killed, hit); len(unexplained) > 0 {
			violation("temp-files-without-kill", fmt.Errorf("cycle %d: no writer was killed, yet it left %v (the library reported leaving %v)", c, unexplained, reported))
		} else if !killed {
			sum.Add("temp-files-reported-under-faults", len(removed))
		}
		if len(left) > 0 {
			violation("temp-files-left-after-clean", fmt.Errorf("cycle %d: vfs.CleanTemp left %v", c, left))
		}

		v, err := t.Job.Verify(ctx, t.Direct)
		if err != nil {
			violation("spurious-step-failures", fmt.Errorf("cycle %d: listing the checkpoints after the faults: %w", c, err))
			continue
		}
		sum.Add("checkpoints-restored", len(v.Listed)-len(v.Broken))
		for i, id := range v.Broken {
			// Count each broken checkpoint once, however many cycles list it.
			if !broken[id] {
				broken[id] = true
				violation("broken-checkpoints", fmt.Errorf("cycle %d: %w", c, v.Why[i]))
			}
		}
		if newest >= 0 && !slices.Contains(v.Listed, newest) {
			newer := 0
			for _, id := range v.Listed {
				if id > newest {
					newer++
				}
			}
			if newer < t.Job.Retain {
				violation("lost-checkpoints", fmt.Errorf("cycle %d: chk-%d was finalized and is not listed (listed: %v)", c, newest, v.Listed))
			}
			newest = -1 // counted once
		}
	}

	damaged, cerrs := t.Job.CheckCanaries(ctx, t.Direct)
	sum.Add("canaries-damaged", damaged)
	for _, err := range cerrs {
		errs = append(errs, fmt.Errorf("canaries-damaged: %w", err))
	}
	if t.Uploads != nil {
		ups, err := t.Uploads(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("listing multipart uploads: %w", err))
		}
		sum.Add("multipart-uploads-left", len(ups))
		for _, u := range ups {
			errs = append(errs, fmt.Errorf("multipart-uploads-left: %s", u))
		}
	}
	left := settle()
	for range 500 {
		if left <= base {
			break
		}
		time.Sleep(10 * time.Millisecond)
		left = settle()
	}
	if left > base {
		sum.Add("goroutines-left", left-base)
		errs = append(errs, fmt.Errorf("goroutines-left: %d more than the %d before the run:\n%s", left-base, base, goroutines()))
	}
	if t.Counts != nil {
		t.Counts(sum)
	}
	return sum, errs
}

// unexplainedTemp returns the temporary files of removed that no kill
// explains: none when the writer was killed; else those the library did not
// report leaving (reported), or all of them when no fault hit the cycle.
func unexplainedTemp(removed, reported []vfs.Path, killed, hit bool) []vfs.Path {
	if killed {
		return nil
	}
	var out []vfs.Path
	for _, p := range removed {
		if !hit || !slices.Contains(reported, p) {
			out = append(out, p)
		}
	}
	return out
}

// goroutines is the stack dump of every goroutine, cut to a readable length.
func goroutines() string {
	b := make([]byte, 1<<16)
	return string(b[:runtime.Stack(b, true)])
}
