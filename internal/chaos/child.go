package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// ChildEnv names the environment variable that makes a process a chaos child:
// it holds the cycle to run (JSON). See ChildRunner and RunChild.
const ChildEnv = "VFSKIT_CHAOS_CHILD"

// childJob is what a child needs to rebuild the parent's Job and run a cycle.
type childJob struct {
	Base  string
	Job   Job
	Cycle int
}

// IsChild reports whether this process is a chaos child started by
// ChildRunner.
func IsChild() bool { return os.Getenv(ChildEnv) != "" }

// RunChild runs the cycle a ChildRunner asked for and returns the process's
// exit code: call it from TestMain when IsChild (os.Exit(chaos.RunChild())).
// The job writes through the default registry's file systems, each wrapped in a
// FaultFS that injects nothing and prints "op NAME" before every operation, so
// the parent can kill it at any point. After each step that succeeds it prints
// "step NAME" (and "finalized N" once FinalizeCheckpoint returned), "failed
// STEP: ERROR" when one fails, "counts DISCARDED OUTSIDE" (CycleResult's
// counts so far) after each step, and "done" at the end.
func RunChild() int {
	var cfg childJob
	if err := json.Unmarshal([]byte(os.Getenv(ChildEnv)), &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "chaos child: %s: %v\n", ChildEnv, err)
		return 2
	}
	base, err := vfs.NewPath(cfg.Base)
	if err != nil {
		fmt.Fprintf(os.Stderr, "chaos child: base: %v\n", err)
		return 2
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	reg := vfs.NewRegistry()
	for _, scheme := range vfs.DefaultRegistry().Schemes() {
		_ = reg.Register(scheme, func(ctx context.Context, u *url.URL) (vfs.FileSystem, error) {
			inner, err := vfs.DefaultRegistry().Get(ctx, u.String())
			if err != nil {
				return nil, err
			}
			f := NewFaultFS(inner)
			f.OnOp = func(op string) { say("op %s", op) }
			return f, nil
		})
	}
	j := cfg.Job
	j.Base, j.Registry = base, reg
	r := j.Cycle(context.Background(), cfg.Cycle, func(s Step, r CycleResult) {
		say("step %s", s)
		if s == StepFinalize {
			say("finalized %d", r.Checkpoint)
		}
		say("counts %d %d", r.Discarded, r.Outside)
	})
	if r.Failed != "" {
		say("failed %s: %s", r.Failed, strings.ReplaceAll(r.Err.Error(), "\n", " "))
	}
	say("done")
	return 0
}

// ChildRunner returns a Target.Run that runs each cycle of j in a child
// process (this test binary again, which must call RunChild from TestMain) and
// kills it with SIGKILL at a random point: in a step taken in turn from a
// random start (decline, state, finalize, retain, dispose, or none: one cycle
// in six runs to its end), so that any four cycles in a row include one that
// completes its checkpoint (a short run always has something to restore), after
// a random number of that step's file system operations (up to as many as
// it took last time) plus a random pause of up to 2 ms, which lands inside an
// operation as often as between two. It reports whether the kill came before
// the child was done.
func ChildRunner(j *Job) func(ctx context.Context, c int, rng *rand.Rand) (CycleResult, bool) {
	steps := []Step{StepDecline, StepState, StepFinalize, StepRetain, StepDispose}
	took := map[Step]int{} // operations each step took the last time it ran
	start := -1            // the step cycle 0 is killed in
	return func(ctx context.Context, c int, rng *rand.Rand) (CycleResult, bool) {
		r := CycleResult{Checkpoint: int64(2*c + 2)}
		failed := func(err error) (CycleResult, bool) {
			r.Failed, r.Err = "child", err
			return r, false
		}
		spec := j.childSpec(c)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$", "-test.count=1")
		cmd.Env = append(os.Environ(), ChildEnv+"="+spec)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return failed(err)
		}
		if err := cmd.Start(); err != nil {
			return failed(err)
		}
		if start < 0 {
			start = rng.IntN(len(steps) + 1)
		}
		target := (start + c) % (len(steps) + 1) // len(steps): no kill
		killAt := 1
		if target < len(steps) {
			killAt += rng.IntN(max(took[steps[target]], 1))
		}
		pause := time.Duration(rng.IntN(2000)) * time.Microsecond
		step, ops, killed, done := 0, 0, false, false
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			line := lines.Text()
			switch {
			case strings.HasPrefix(line, "op "):
				ops++
				if step == target && ops == killAt && !killed && !done {
					time.Sleep(pause)
					killed = cmd.Process.Kill() == nil
				}
			case strings.HasPrefix(line, "step "):
				if step < len(steps) && !killed {
					took[steps[step]] = ops
				}
				step, ops = step+1, 0
			case strings.HasPrefix(line, "finalized "):
				r.Finalized = true
			case strings.HasPrefix(line, "counts "):
				_, _ = fmt.Sscanf(line, "counts %d %d", &r.Discarded, &r.Outside)
			case strings.HasPrefix(line, "failed "):
				step, msg, _ := strings.Cut(strings.TrimPrefix(line, "failed "), ": ")
				r.Failed, r.Err = Step(step), errors.New(msg)
			case line == "done":
				done = true
			}
		}
		werr := cmd.Wait()
		switch {
		case killed && !done && r.Failed == "":
			r.Interrupted = "end"
			if step < len(steps) {
				r.Interrupted = steps[step]
			}
			return r, true
		case r.Failed != "":
			return r, false // the child failed on its own, before any kill
		case !done || (werr != nil && !killed):
			return failed(fmt.Errorf("child exited (%v) before it was done: %s", werr, tailOf(stderr.String())))
		}
		return r, false
	}
}

// childSpec is the ChildEnv value for cycle c of j.
func (j *Job) childSpec(c int) string {
	b, _ := json.Marshal(childJob{Base: j.Base.String(), Job: *j, Cycle: c})
	return string(b)
}

func tailOf(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}
