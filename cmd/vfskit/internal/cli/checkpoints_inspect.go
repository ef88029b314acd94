package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
)

func (a *app) checkpointsInspectCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect POINTER",
		Short: "Show what a checkpoint or savepoint contains",
		Long: `Read a checkpoint's or savepoint's metadata and show it: the job and checkpoint
id, when it was taken, and per operator and subtask every state handle with
its kind (inline: bytes inside the metadata; file: a file at an absolute path;
relative: a file inside the checkpoint directory) and size.

POINTER is a checkpoint or savepoint directory (chk-N, savepoint-...) or its
_metadata file, on any file system. Corrupted or truncated metadata is
reported as an error (exit status 1).`,
		Example: `  vfskit checkpoints inspect file:///tmp/vfskit-demo/<job id>/chk-5
  vfskit checkpoints inspect --json s3://bucket/savepoints/savepoint-3f2a1b-0123456789ab`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			ctx := cmd.Context()
			loc, err := resolve(ctx, argv[0])
			if err != nil {
				return err
			}
			md, completed, err := checkpointstorage.LoadCheckpoint(ctx, loc.path.String())
			if err != nil {
				return err
			}
			view := newCheckpointView(md, completed)
			if asJSON {
				enc := json.NewEncoder(a.stdio.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(view)
			}
			return view.writeText(a.stdio.Out)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the metadata as JSON")
	return cmd
}

// checkpointView is the metadata of a checkpoint as "checkpoints inspect" shows
// it (and its JSON form).
type checkpointView struct {
	Pointer      string         `json:"pointer"`
	MetadataPath string         `json:"metadataPath"`
	MetadataSize int64          `json:"metadataSize"`
	JobID        string         `json:"jobId"`
	CheckpointID int64          `json:"checkpointId"`
	Savepoint    bool           `json:"savepoint"`
	Timestamp    time.Time      `json:"timestamp"`
	StateSize    int64          `json:"stateSize"`
	Operators    []operatorView `json:"operators"`
}

type operatorView struct {
	ID             string        `json:"id"`
	Parallelism    int           `json:"parallelism"`
	MaxParallelism int           `json:"maxParallelism"`
	Subtasks       []subtaskView `json:"subtasks"`
}

type subtaskView struct {
	Index   int          `json:"index"`
	Handles []handleView `json:"handles"`
}

type handleView struct {
	Kind string `json:"kind"` // inline, file or relative
	Size int64  `json:"size"`
	// Path is the file of a file or relative handle.
	Path string `json:"path,omitempty"`
	// RelativePath is a relative handle's name inside the checkpoint directory.
	RelativePath string `json:"relativePath,omitempty"`
	// Scope is a file handle's scope (EXCLUSIVE or SHARED).
	Scope string `json:"scope,omitempty"`
	// Name identifies inline state.
	Name string `json:"name,omitempty"`
}

func newCheckpointView(md *checkpointstorage.CheckpointMetadata, loc *checkpointstorage.FsCompletedCheckpointStorageLocation) checkpointView {
	v := checkpointView{
		Pointer:      loc.ExternalPointer(),
		MetadataSize: loc.MetadataHandle().StateSize(),
		JobID:        md.JobID.String(),
		CheckpointID: md.CheckpointID,
		Savepoint:    md.IsSavepoint,
		Timestamp:    md.Timestamp.UTC(),
		StateSize:    md.StateSize(),
		Operators:    []operatorView{},
	}
	if fh, ok := loc.MetadataHandle().(*checkpointstorage.FileStateHandle); ok {
		v.MetadataPath = fh.FilePath.String()
	}
	for _, op := range md.Operators {
		ov := operatorView{ID: op.OperatorID, Parallelism: op.Parallelism, MaxParallelism: op.MaxParallelism, Subtasks: []subtaskView{}}
		for _, st := range op.Subtasks {
			sv := subtaskView{Index: st.Index, Handles: []handleView{}}
			for _, h := range st.Handles {
				sv.Handles = append(sv.Handles, newHandleView(h))
			}
			ov.Subtasks = append(ov.Subtasks, sv)
		}
		v.Operators = append(v.Operators, ov)
	}
	return v
}

func newHandleView(h checkpointstorage.StreamStateHandle) handleView {
	hv := handleView{Kind: checkpointstorage.KindOf(h).String(), Size: h.StateSize()}
	switch h := h.(type) {
	case *checkpointstorage.ByteStreamStateHandle:
		hv.Name = h.Name
	case *checkpointstorage.FileStateHandle:
		hv.Path, hv.Scope = h.FilePath.String(), h.Scope.String()
	case *checkpointstorage.RelativeFileStateHandle:
		hv.Path, hv.RelativePath = h.FilePath.String(), h.RelativePath
	}
	return hv
}

// counts returns the number of handles of each kind.
func (v checkpointView) counts() (handles int, byKind map[string]int) {
	byKind = map[string]int{}
	for _, op := range v.Operators {
		for _, st := range op.Subtasks {
			for _, h := range st.Handles {
				handles++
				byKind[h.Kind]++
			}
		}
	}
	return handles, byKind
}

func (v checkpointView) writeText(w io.Writer) error {
	kind := "Checkpoint"
	if v.Savepoint {
		kind = "Savepoint"
	}
	n, byKind := v.counts()
	fmt.Fprintf(w, "%s %d of job %s\n", kind, v.CheckpointID, v.JobID)
	fmt.Fprintf(w, "  pointer:   %s\n", v.Pointer)
	if v.MetadataPath != "" {
		fmt.Fprintf(w, "  metadata:  %s (%s)\n", v.MetadataPath, humanBytes(v.MetadataSize))
	}
	fmt.Fprintf(w, "  taken:     %s\n", v.Timestamp.Format(time.RFC3339Nano))
	fmt.Fprintf(w, "  state:     %s in %d handles (%d inline, %d file, %d relative)\n",
		humanBytes(v.StateSize), n, byKind["inline"], byKind["file"], byKind["relative"])
	for _, op := range v.Operators {
		fmt.Fprintf(w, "\noperator %s (parallelism %d, max parallelism %d)\n", op.ID, op.Parallelism, op.MaxParallelism)
		for _, st := range op.Subtasks {
			fmt.Fprintf(w, "  subtask %d\n", st.Index)
			for _, h := range st.Handles {
				where := ""
				switch h.Kind {
				case "file":
					where = h.Path + " (" + h.Scope + ")"
				case "relative":
					where = h.RelativePath + " → " + h.Path
				case "inline":
					// The name of inline state looks like a path but names no file.
					where = "in the metadata, named " + h.Name
				}
				fmt.Fprintf(w, "    %-8s %10s  %s\n", h.Kind, humanBytes(h.Size), where)
			}
		}
	}
	return nil
}
