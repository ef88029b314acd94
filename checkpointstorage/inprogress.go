package checkpointstorage

import (
	"fmt"
	"time"
)

// progressRule is the one rule by which gc (CollectGarbage), the audit
// (AuditJob) and retention decide that something in a job's directory may
// belong to a checkpoint still in progress, so they never disagree:
//
// Something may be in progress unless the job has a completed checkpoint
// (one whose _metadata decodes; the newest is the one with the highest id)
// and it is older than that checkpoint's _metadata — for a chk-N directory
// and the files in it: N is lower than the newest completed checkpoint's id
// and the newest file in chk-N is older than its _metadata; for anything
// else in the job's directory (shared/, taskowned/, savepoints): the file is
// older than that _metadata.
//
// The id alone would not do: a checkpoint triggered before the newest one
// completed has a higher id but older files, and a job restarted under the
// same job id from an older checkpoint writes lower ids again. The time
// alone would not do either: with concurrent checkpoints, one with a higher
// id may have written all its files before the newest completed.
type progressRule struct {
	// ok is set when the job has a completed checkpoint; id is the newest
	// one's id, dir its directory, at the modification time of its _metadata.
	ok  bool
	id  int64
	dir string
	at  time.Time
}

// newProgressRule finds the newest completed checkpoint (not a savepoint) of
// a job among its scanned snapshots.
func newProgressRule(snaps []Snapshot) progressRule {
	var r progressRule
	for _, s := range snaps {
		if s.Completed && !s.Savepoint && !s.Link && (!r.ok || s.CheckpointID > r.id) {
			r = progressRule{ok: true, id: s.CheckpointID, dir: s.Dir.Name(), at: s.MetadataModTime}
		}
	}
	return r
}

// inProgress says why something may belong to a checkpoint in progress, ""
// when it cannot: chk is N of the chk-N directory it lies in (-1 outside
// one), mod its modification time (for a chk-N directory and the files in
// it: that of the newest file in chk-N).
func (r progressRule) inProgress(chk int64, mod time.Time) string {
	switch {
	case !r.ok:
		return "the job has no completed checkpoint: it may belong to one in progress"
	case chk >= r.id:
		return fmt.Sprintf("its checkpoint (%s%d) is not older than the newest completed checkpoint (%s): it may be in progress", CheckpointDirPrefix, chk, r.dir)
	case !mod.Before(r.at):
		return fmt.Sprintf("not older than the newest completed checkpoint (%s): it may belong to one in progress", r.dir)
	}
	return ""
}
