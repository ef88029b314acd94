package demo

import (
	"time"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// CheckpointStat describes one completed checkpoint or savepoint.
type CheckpointStat struct {
	// ID is the checkpoint id.
	ID int64
	// Savepoint tells a savepoint from a checkpoint.
	Savepoint bool
	// Offset is the source offset the checkpoint covers: records [0, Offset).
	Offset int64
	// Pointer is the checkpoint's external pointer (its directory).
	Pointer string
	// StateBytes is the size of all state handles; MetadataBytes the size of the
	// _metadata file (which holds the inline state); FileBytes the size of the
	// state in files (file and relative handles).
	StateBytes, MetadataBytes, FileBytes int64
	// Inline, Files and Relative count the state handles by kind.
	Inline, Files, Relative int
	// Duration is the time from the barrier to the completed metadata.
	Duration time.Duration
}

// Report is the outcome of a demo run.
type Report struct {
	JobID         checkpointstorage.JobID
	Storage       Storage
	CheckpointDir vfs.Path
	// JobDir is CheckpointDir/<job id>, where the checkpoints are.
	JobDir      vfs.Path
	Records     int64
	Parallelism int
	// Checkpoints are the completed checkpoints of both attempts, in order.
	Checkpoints []CheckpointStat
	// Crashed reports whether a crash was simulated, at CrashOffset.
	Crashed     bool
	CrashOffset int64
	// RestoredFrom is the pointer of the checkpoint recovery used ("" when the
	// job restarted from scratch), RestoredOffset the offset it replayed from.
	RestoredFrom   string
	RestoredID     int64
	RestoredOffset int64
	// RestoreTime is the time from the crash to the restored pipeline: finding,
	// resolving and reading the checkpoint.
	RestoreTime time.Duration
	// Savepoint is the final savepoint.
	Savepoint CheckpointStat
	// Counts is the job's result, Expected the failure-free run's.
	Counts, Expected Counts
	// Mismatch describes how Counts differs from Expected; "" means exactly-once
	// held.
	Mismatch string
	// Output is the job's part files and their exactly-once check.
	Output OutputReport
	// Elapsed is the wall time of the whole demo.
	Elapsed time.Duration
}

// OK reports whether the job's result equals the failure-free run's and its
// output files hold every result exactly once.
func (r *Report) OK() bool { return r.Mismatch == "" && r.Output.Problem == "" }

// Totals sums the checkpoints (not the savepoint): state bytes, metadata bytes,
// handles by kind and the total time spent.
func (r *Report) Totals() (stat CheckpointStat) {
	for _, c := range r.Checkpoints {
		stat.StateBytes += c.StateBytes
		stat.MetadataBytes += c.MetadataBytes
		stat.FileBytes += c.FileBytes
		stat.Inline += c.Inline
		stat.Files += c.Files
		stat.Relative += c.Relative
		stat.Duration += c.Duration
	}
	return stat
}

// BytesWritten is what the checkpoint wrote to storage: its metadata (with the
// inline state) and its state files.
func (c CheckpointStat) BytesWritten() int64 { return c.MetadataBytes + c.FileBytes }

// ReplayedRecords is the number of records processed twice: read before the
// crash but after the restored checkpoint.
func (r *Report) ReplayedRecords() int64 {
	if !r.Crashed {
		return 0
	}
	return r.CrashOffset - r.RestoredOffset
}

// EventKind says what an Event reports.
type EventKind int

const (
	// EventPhase: the run entered the phase named by Event.Phase.
	EventPhase EventKind = iota + 1
	// EventProgress: the source has read Event.Offset of Event.Total records.
	EventProgress
	// EventCheckpoint: a checkpoint completed (Event.Checkpoint).
	EventCheckpoint
	// EventCrash: the job crashed at Event.Offset; all in-memory state is gone.
	EventCrash
	// EventRestore: the job restored Event.Checkpoint (zero when it restarted
	// from scratch) and replays from Event.Offset.
	EventRestore
	// EventSavepoint: the final savepoint completed (Event.Checkpoint).
	EventSavepoint
)

// Event is a progress notification from Run.
type Event struct {
	Kind       EventKind
	Phase      string
	Offset     int64
	Total      int64
	Checkpoint CheckpointStat
	Duration   time.Duration
}

// Observer receives events; it is called from the goroutine that called Run.
type Observer func(Event)
