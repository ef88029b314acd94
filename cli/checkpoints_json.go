package cli

import (
	"time"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/vfs"
)

// inventoryJSON is checkpoints list --json: one document (the schema is in
// the command's help and docs/cli.md).
type inventoryJSON struct {
	Dir       string         `json:"dir"`
	Snapshots []snapshotJSON `json:"snapshots"`
	Skipped   []skippedJSON  `json:"skipped"`
}

// snapshotJSON is one checkpoint or savepoint of checkpoints list --json.
type snapshotJSON struct {
	Path        string `json:"path"`
	PathBase64  string `json:"pathBase64,omitempty"`
	Job         string `json:"job,omitempty"`
	Type        string `json:"type"`
	ID          *int64 `json:"id"`
	Completed   bool   `json:"completed"`
	HasMetadata bool   `json:"hasMetadata"`
	Error       string `json:"error,omitempty"`
	Format      string `json:"format,omitempty"`
	Version     int    `json:"version,omitempty"`
	Size        int64  `json:"size"`
	Files       int    `json:"files"`
	ModTime     string `json:"modTime,omitempty"`
	Link        bool   `json:"link,omitempty"`
}

// skippedJSON is a directory that holds no checkpoint, and why.
type skippedJSON struct {
	Path       string `json:"path"`
	PathBase64 string `json:"pathBase64,omitempty"`
	Reason     string `json:"reason"`
}

// newSkippedJSON returns the skipped directories in their JSON form (never
// nil: an empty list is [] in the document).
func newSkippedJSON(skipped []checkpointstorage.SkippedDir) []skippedJSON {
	out := make([]skippedJSON, 0, len(skipped))
	for _, s := range skipped {
		p := s.Dir.Redacted()
		out = append(out, skippedJSON{Path: p, PathBase64: nameBytes(p), Reason: s.Reason})
	}
	return out
}

// newInventoryJSON returns the list's rows and inventory in JSON form.
func newInventoryJSON(inv *checkpointstorage.Inventory, rows []checkpointRow) inventoryJSON {
	j := inventoryJSON{Dir: inv.Dir.Redacted(), Snapshots: make([]snapshotJSON, 0, len(rows)), Skipped: newSkippedJSON(inv.Skipped)}
	for _, r := range rows {
		s := r.snap
		p := s.Dir.Redacted()
		sj := snapshotJSON{Path: p, PathBase64: nameBytes(p), Job: s.Job, Type: r.kind, Completed: s.Completed, HasMetadata: s.HasMetadata,
			Size: s.Bytes, Files: s.Files, Link: s.Link}
		if s.CheckpointID >= 0 {
			id := s.CheckpointID
			sj.ID = &id
		}
		if s.Err != nil {
			sj.Error = vfs.Redact(s.Err.Error())
		}
		if s.Completed {
			sj.Format, sj.Version = s.Format.String(), s.Version
		}
		if !s.ModTime.IsZero() {
			sj.ModTime = s.ModTime.UTC().Format(time.RFC3339Nano)
		}
		j.Snapshots = append(j.Snapshots, sj)
	}
	return j
}
