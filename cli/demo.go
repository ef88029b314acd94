package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/internal/demo"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) demoCommand() *cobra.Command {
	def := demo.DefaultConfig()
	var (
		cfg                    = def
		storage, checkpointDir = string(def.Storage), def.CheckpointDir.String()
		savepointDir, jobID    string
		crashAtFlag            int64
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run a streaming job that checkpoints, crashes, recovers and proves exactly-once",
		Long: `Run a small streaming word count to show what vfskit is for.

A deterministic generated stream of words is counted by N parallel subtasks
that keep keyed state (word → count). Every K records the job takes a
checkpoint through vfskit's checkpoint storage (a Go port of Apache Flink's):
each subtask writes its state, the source records its offset, and the
metadata completes the checkpoint on any file system.

Mid-run the job crashes on purpose and loses all in-memory state. It then
finds the latest completed checkpoint in the checkpoint directory, resolves it
with CheckpointStorage.ResolveCheckpoint, restores every subtask's state,
replays the stream from the checkpointed offset, and compares its final counts
with a run of the same job without failure. The job also writes its results
(a line "word count" per record) as rolling part files through the
recoverable writer (Flink's FileSink) to <checkpoint-dir>/output/<job id>,
recording the writer's tokens in its checkpoints, and the demo checks that
the committed files hold every result exactly once after the crash. Equal
counts and exact output exit 0 with a summary; any difference exits 1 naming
it. The job ends with a
savepoint and prints its pointer.

The default needs no setup: memory storage on memory://demo/checkpoints. The
same job runs unchanged on local disk or S3, and "vfskit checkpoints list"
then shows what it wrote:

  vfskit demo --checkpoint-dir file:///tmp/vfskit-demo --storage fs
  vfskit checkpoints list file:///tmp/vfskit-demo`,
		Example: `  vfskit demo
  vfskit demo --storage fs --checkpoint-dir file:///tmp/vfskit-demo
  vfskit --endpoint http://127.0.0.1:8333 --path-style demo --checkpoint-dir s3://bucket/demo`,
		Args: args(cobra.NoArgs),
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			var err error
			cfg.Storage = demo.Storage(storage)
			if cfg.CheckpointDir, err = a.dirFlag(cmd, "checkpoint-dir", checkpointDir); err != nil {
				return err
			}
			if savepointDir != "" {
				if cfg.SavepointDir, err = a.dirFlag(cmd, "savepoint-dir", savepointDir); err != nil {
					return err
				}
			}
			if jobID != "" {
				if cfg.JobID, err = checkpointstorage.ParseJobID(jobID); err != nil {
					return usageErr(fmt.Errorf("invalid --job-id: %w", err))
				}
			}
			cfg.CrashAt = crashAtFlag
			if !cmd.Flags().Changed("crash-at") {
				cfg.CrashAt = cfg.Records * 55 / 100
				if cfg.CrashAt%cfg.CheckpointInterval == 0 && cfg.CrashAt+cfg.CheckpointInterval/2 < cfg.Records {
					cfg.CrashAt += cfg.CheckpointInterval / 2
				}
			}
			if err := cfg.Validate(); err != nil {
				return usageErr(err)
			}
			return a.demo(cmd, cfg)
		}),
	}
	f := cmd.Flags()
	f.Int64Var(&cfg.Records, "records", def.Records, "number of records in the generated stream")
	f.IntVarP(&cfg.Parallelism, "parallelism", "p", def.Parallelism, "number of parallel counting subtasks")
	f.Int64VarP(&cfg.CheckpointInterval, "checkpoint-interval", "k", def.CheckpointInterval, "take a checkpoint every K records")
	f.Int64Var(&crashAtFlag, "crash-at", 0, "record offset at which to crash; 0: no crash (default: 55% of --records, off a checkpoint boundary)")
	f.StringVar(&storage, "storage", storage, "checkpoint storage: memory (MemoryBackendCheckpointStorage) or fs (FsCheckpointStorage)")
	f.StringVar(&checkpointDir, "checkpoint-dir", checkpointDir, "checkpoint base directory: a local path or a URI of a scheme served ("+a.schemeList()+")")
	f.StringVar(&savepointDir, "savepoint-dir", "", "savepoint directory URI (default: <checkpoint-dir>/savepoints)")
	f.StringVar(&jobID, "job-id", "", "job id, 32 hex characters (default: a new random id)")
	f.Uint64Var(&cfg.Seed, "seed", def.Seed, "seed of the generated stream")
	f.IntVar(&cfg.Vocabulary, "vocabulary", def.Vocabulary, "number of distinct words the stream draws from")
	f.IntVar(&cfg.Rate, "rate", def.Rate, "source speed limit in records per second; 0: unlimited")
	f.IntVar(&cfg.FileStateThreshold, "file-state-threshold", 20*1024, "fs storage: state up to this many bytes stays inline in the metadata")
	f.IntVar(&cfg.MaxStateSize, "max-state-size", checkpointstorage.DefaultMaxStateSize, "memory storage: the largest state one subtask may write, in bytes")
	f.BoolVar(&cfg.SkipRestore, "skip-restore", false, "sabotage recovery (keep the offset, drop the state) to see the exactly-once check fail")
	_ = f.MarkHidden("skip-restore")
	return cmd
}

// dirFlag parses a directory URI given to a flag; a bad one is a usage error.
func (a *app) dirFlag(cmd *cobra.Command, name, value string) (vfs.Path, error) {
	loc, err := a.resolve(cmd.Context(), value)
	if err != nil {
		return vfs.Path{}, usageErr(fmt.Errorf("--%s: %w", name, err))
	}
	return loc.path, nil
}

// errDemoMismatch is returned when the recovered job's counts differ.
var errDemoMismatch = errors.New("exactly-once check FAILED")

func (a *app) demo(cmd *cobra.Command, cfg demo.Config) error {
	cfg.Registry = a.reg
	view := a.newDemoView(cfg.Records)
	rep, err := demo.Run(cmd.Context(), cfg, view.observe)
	view.finish()
	if err != nil {
		if !strings.HasPrefix(err.Error(), "demo: ") { // the job's own errors say so already
			err = fmt.Errorf("demo: %w", err)
		}
		return err
	}
	writeDemoSummary(a.stdio.Out, rep)
	if !rep.OK() {
		why := rep.Mismatch
		if why == "" {
			why = "output files: " + rep.Output.Problem
		}
		return fmt.Errorf("demo: %w: %s", errDemoMismatch, why)
	}
	return nil
}

// demoView shows the demo's progress on stderr: a progress bar with event lines
// above it on a terminal, plain event lines otherwise.
type demoView struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int64
}

func (a *app) newDemoView(total int64) *demoView {
	v := &demoView{w: a.stdio.Err, total: total}
	if a.terminal() {
		v.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(v.w),
			progressbar.OptionSetDescription("records"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("rec"),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(80*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return v
}

// line prints one event line (above the bar on a terminal).
func (v *demoView) line(format string, args ...any) {
	if v.bar != nil {
		_ = v.bar.Clear()
	}
	fmt.Fprintln(v.w, quoteName(vfs.Redact(fmt.Sprintf(format, args...)), quoteMessage))
}

func (v *demoView) observe(e demo.Event) {
	switch e.Kind {
	case demo.EventPhase:
		v.line("» %s", e.Phase)
		if v.bar != nil {
			v.bar.Reset()
		}
	case demo.EventProgress:
		if v.bar != nil {
			_ = v.bar.Set64(e.Offset)
		}
	case demo.EventCheckpoint:
		c := e.Checkpoint
		v.line("  checkpoint %-3d at record %-9d %9s  %s  %s", c.ID, c.Offset, humanBytes(c.StateBytes), handleMix(c), fmtDuration(c.Duration))
	case demo.EventCrash:
		v.line("  ✗ CRASH at record %d: every subtask and all in-memory state is gone", e.Offset)
	case demo.EventRestore:
		if e.Checkpoint.Pointer == "" {
			v.line("  no completed checkpoint: restarting from record 0")
		} else {
			v.line("  ✓ restored checkpoint %d (%s) in %s; replaying from record %d", e.Checkpoint.ID, e.Checkpoint.Pointer, fmtDuration(e.Duration), e.Offset)
		}
		if v.bar != nil {
			_ = v.bar.Set64(e.Offset)
		}
	case demo.EventSavepoint:
		v.line("  savepoint %s", e.Checkpoint.Pointer)
	}
}

func (v *demoView) finish() {
	if v.bar != nil {
		_ = v.bar.Finish()
		_ = v.bar.Clear()
	}
}

// handleMix describes a checkpoint's handles by kind: "4 inline, 1 file".
func handleMix(c demo.CheckpointStat) string {
	var parts []string
	for _, p := range []struct {
		n    int
		kind string
	}{{c.Inline, "inline"}, {c.Files, "file"}, {c.Relative, "relative"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.kind))
		}
	}
	return strings.Join(parts, ", ")
}

// writeDemoSummary prints the run's summary table and the per-checkpoint table.
func writeDemoSummary(w io.Writer, r *demo.Report) {
	tot := r.Totals()
	n := len(r.Checkpoints)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, format string, v ...any) {
		fmt.Fprintf(tw, "  %s\t%s\n", k, quoteName(vfs.Redact(fmt.Sprintf(format, v...)), quoteMessage))
	}
	fmt.Fprintln(tw, "vfskit demo: streaming word count with checkpoints, a crash and recovery")
	row("job id", "%s", r.JobID)
	row("storage", "%s, checkpoints in %s", storageName(r.Storage), r.JobDir)
	row("records", "%d, %d parallel subtasks, %d distinct words", r.Records, r.Parallelism, len(r.Counts))
	row("checkpoints taken", "%d", n)
	row("bytes written", "%s: %s of state (%s inline in the metadata, %s in state files)",
		humanBytes(tot.BytesWritten()), humanBytes(tot.StateBytes), humanBytes(tot.StateBytes-tot.FileBytes), humanBytes(tot.FileBytes))
	row("state handles", "%d inline, %d file, %d relative", tot.Inline, tot.Files, tot.Relative)
	if n > 0 {
		var maxD time.Duration
		for _, c := range r.Checkpoints {
			maxD = max(maxD, c.Duration)
		}
		row("time per checkpoint", "%s average, %s max", fmtDuration(tot.Duration/time.Duration(n)), fmtDuration(maxD))
	}
	if r.Crashed {
		row("crash", "at record %d: all in-memory state dropped", r.CrashOffset)
		if r.RestoredFrom != "" {
			row("restore", "checkpoint %d (record %d) in %s, from %s", r.RestoredID, r.RestoredOffset, fmtDuration(r.RestoreTime), r.RestoredFrom)
		} else {
			row("restore", "no completed checkpoint before the crash: restarted from record 0")
		}
		row("replayed", "%d records", r.ReplayedRecords())
	}
	row("savepoint", "%s (%s, %s)", r.Savepoint.Pointer, humanBytes(r.Savepoint.StateBytes), handleMix(r.Savepoint))
	switch o := r.Output; {
	case o.Dir.IsZero():
		row("output", "none: %s", o.Skipped)
	case o.Problem == "":
		abandoned := ""
		if o.Abandoned > 0 {
			abandoned = fmt.Sprintf("; %d in-progress part file(s) the crash cut short, never committed", o.Abandoned)
		}
		row("output", "OK: %d part files in %s hold every result exactly once (%d lines%s)", o.Files, o.Dir, o.Lines, abandoned)
	default:
		row("output", "MISMATCH: %s", o.Problem)
	}
	switch {
	case r.Mismatch != "":
		row("result", "MISMATCH: %s", r.Mismatch)
	case r.OK():
		row("result", "OK: every count equals the failure-free run's (exactly-once)")
	default:
		row("result", "MISMATCH: the output files break exactly-once")
	}
	row("top words", "%s", topWords(r.Counts, 5))
	row("elapsed", "%s", r.Elapsed.Round(time.Millisecond))
	_ = tw.Flush()

	if n > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "CHECKPOINT\tRECORDS\tSTATE\tWRITTEN\tINLINE\tFILE\tRELATIVE\tTIME\t")
		for _, c := range append(slices.Clone(r.Checkpoints), r.Savepoint) {
			id := fmt.Sprint(c.ID)
			if c.Savepoint {
				id = "sp-" + id
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t\n", id, c.Offset, humanBytes(c.StateBytes), humanBytes(c.BytesWritten()), c.Inline, c.Files, c.Relative, fmtDuration(c.Duration))
		}
		_ = tw.Flush()
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Savepoint: %s\n", quoteName(vfs.RedactURI(r.Savepoint.Pointer), quoteMessage))
	if r.CheckpointDir.Scheme() == "memory" {
		fmt.Fprint(w, memoryHint)
	} else {
		fmt.Fprintf(w, "Inspect: vfskit checkpoints list %s\n", quoteName(r.JobDir.Redacted(), quoteShellEscape))
	}
}

// memoryHint follows the summary of a run on memory://, which ends with the
// process: it shows how to keep the checkpoints and look at them.
const memoryHint = `memory:// lives only in this process. To inspect the checkpoints afterwards,
write them to disk and list them (in a clone, vfskit is "go run ./cmd/vfskit"):
  vfskit demo --storage fs --checkpoint-dir file:///tmp/vfskit-demo
  vfskit checkpoints list file:///tmp/vfskit-demo
`

func storageName(s demo.Storage) string {
	if s == demo.FsStorage {
		return "fs (FsCheckpointStorage)"
	}
	return "memory (MemoryBackendCheckpointStorage)"
}

// topWords lists the n most frequent words with their counts.
func topWords(c demo.Counts, n int) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		if c[x] != c[y] {
			return int(c[y] - c[x])
		}
		return strings.Compare(x, y)
	})
	var parts []string
	for _, k := range keys[:min(n, len(keys))] {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	return strings.Join(parts, ", ")
}

// fmtDuration rounds d for display: microseconds below a millisecond, 10 µs
// below a second, milliseconds above.
func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}
