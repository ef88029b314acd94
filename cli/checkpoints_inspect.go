package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsInspectCommand() *cobra.Command {
	var asJSON, verify bool
	cmd := &cobra.Command{
		Use:   "inspect POINTER",
		Short: "Show what a checkpoint or savepoint contains",
		Long: `Read a checkpoint's or savepoint's metadata and show it: its format (vfskit's
own, or Flink's versions 2 to 7), the checkpoint id, for vfskit's format the job
and when it was taken, for Flink's whether it is a checkpoint or a savepoint
(canonical or native, from version 4 on), and per operator (id, uid and name
where recorded, parallelism) and subtask every state handle with its kind
(inline: bytes inside the metadata; file: a file at an absolute path; relative:
a file inside the checkpoint directory; or Flink's handle class) and size.

With --json it prints one JSON object: path, format, version, checkpointId,
type, savepointFormat, operators (id, uid, name, parallelism, maxParallelism,
subtaskStates, coordinatorState, operatorStateNames, keyedSubtasks, and the
subtasks' handles), handleCounts (per Flink handle class), files (every
referenced file: path, reference "relative" or "absolute", size, present: null
unless --verify checks it) and inlineBytes, plus pointer, metadataPath,
metadataSize, jobId, timestamp and stateSize.

With --verify it also checks every referenced file, as "checkpoints verify"
does (one listing per directory; --map OLD=NEW looks for files recorded under
OLD under NEW): in JSON each file's "present" is true or false, and "problem"
says what is wrong; in text a line per problem follows. Any missing or
wrong-sized file makes the exit status 1.

POINTER is a checkpoint or savepoint directory (chk-N, savepoint-...) or its
_metadata file, on any file system. Corrupted or truncated metadata is
reported as an error (exit status 1).`,
		Example: `  vfskit checkpoints inspect file:///tmp/vfskit-demo/<job id>/chk-5
  vfskit checkpoints inspect --json s3://bucket/savepoints/savepoint-3f2a1b-0123456789ab
  vfskit checkpoints inspect --verify --map file:/state/checkpoint=file:///backup/checkpoints file:///backup/checkpoints/<job id>/chk-7`,
		Args: args(cobra.ExactArgs(1)),
	}
	maps := a.mapFlag(cmd)
	cmd.RunE = a.run(func(cmd *cobra.Command, argv []string) error {
		ctx := cmd.Context()
		opts, err := maps()
		if err != nil {
			return err
		}
		loc, err := a.resolve(ctx, argv[0])
		if err != nil {
			return err
		}
		md, completed, err := checkpointstorage.LoadCheckpoint(ctx, loc.path.String(), a.storage())
		if err != nil {
			return err
		}
		view := newCheckpointView(md, completed)
		var checked *checkpointstorage.Verification
		if verify {
			if checked, err = checkpointstorage.VerifyCheckpoint(ctx, loc.path, opts...); err != nil {
				return err
			}
			view.markPresence(checked)
		}
		if asJSON {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false) // "&" stays "&", so Redact sees every parameter
			if err := enc.Encode(view); err != nil {
				return err
			}
			if _, err := io.WriteString(a.stdio.Out, vfs.Redact(b.String())); err != nil {
				return err
			}
			if checked != nil && !checked.OK() {
				return fmt.Errorf("checkpoints inspect: %s: %d of %d referenced files missing, of the wrong size or not checkable", checked.MetadataPath.Redacted(), len(checked.Problems()), len(checked.Files))
			}
			return nil
		}
		if err := view.writeText(a.stdio.Out); err != nil || checked == nil {
			return err
		}
		fmt.Fprintln(a.stdio.Out)
		return writeVerification(a.stdio.Out, checked)
	})
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the metadata as JSON")
	cmd.Flags().BoolVar(&verify, "verify", false, "also check that every referenced file is present with its recorded size (exit status 1 if not)")
	return cmd
}

// markPresence fills the files' presence from a verification of the same
// checkpoint: present is true or false, problem says what is wrong, and a file
// looked for elsewhere (a path mapping) shows where.
func (v *checkpointView) markPresence(checked *checkpointstorage.Verification) {
	type key struct {
		ref      metadata.Reference
		recorded string
	}
	byRecorded := make(map[key]checkpointstorage.FileCheck, len(checked.Files))
	for _, c := range checked.Files {
		byRecorded[key{c.Reference, c.Recorded}] = c
	}
	for i := range v.Files {
		f := &v.Files[i]
		c, ok := byRecorded[key{metadata.Reference(f.Reference), f.recorded}]
		if !ok {
			continue
		}
		present := c.Present
		f.Present = &present
		f.Problem = c.Problem()
		if c.Mapped {
			f.Path = c.Path.String()
		}
	}
}

// checkpointView is the metadata of a checkpoint as "checkpoints inspect" shows
// it (and its JSON form).
type checkpointView struct {
	// Path is the qualified URI of the _metadata file.
	Path            string         `json:"path"`
	Pointer         string         `json:"pointer"`
	MetadataPath    string         `json:"metadataPath"`
	MetadataSize    int64          `json:"metadataSize"`
	Format          string         `json:"format"`
	Version         int            `json:"version"`
	Type            string         `json:"type"`
	SavepointFormat string         `json:"savepointFormat"`
	JobID           string         `json:"jobId,omitempty"`
	CheckpointID    int64          `json:"checkpointId"`
	Savepoint       bool           `json:"savepoint"`
	Timestamp       time.Time      `json:"timestamp,omitzero"`
	StateSize       int64          `json:"stateSize"`
	Operators       []operatorView `json:"operators"`
	// HandleCounts counts the handles per Flink handle class, nested ones
	// included.
	HandleCounts map[string]int `json:"handleCounts"`
	Files        []fileView     `json:"files"`
	InlineBytes  int64          `json:"inlineBytes"`
}

// fileView is a file the checkpoint references.
type fileView struct {
	// Path is the file's resolved URI.
	Path      string `json:"path"`
	Reference string `json:"reference"` // relative or absolute
	Size      int64  `json:"size"`
	// Present is null unless --verify checked the file.
	Present *bool `json:"present"`
	// Problem says what --verify found wrong: "missing", "size 10, expected
	// 12", "cannot check: ...".
	Problem string `json:"problem,omitempty"`
	// recorded is the path as the metadata records it.
	recorded string
}

type operatorView struct {
	ID                 string        `json:"id"`
	UID                string        `json:"uid"`
	Name               string        `json:"name"`
	Parallelism        int           `json:"parallelism"`
	MaxParallelism     int           `json:"maxParallelism"`
	SubtaskStates      int           `json:"subtaskStates"`
	CoordinatorState   bool          `json:"coordinatorState"`
	OperatorStateNames []string      `json:"operatorStateNames"`
	KeyedSubtasks      int           `json:"keyedSubtasks"`
	Subtasks           []subtaskView `json:"subtasks"`
}

type subtaskView struct {
	Index   int          `json:"index"`
	Handles []handleView `json:"handles"`
}

type handleView struct {
	Kind string `json:"kind"` // inline, file, relative or Flink's handle class
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
		Pointer:         loc.ExternalPointer(),
		MetadataSize:    loc.MetadataHandle().StateSize(),
		Format:          md.Format.String(),
		Version:         md.Version,
		Type:            md.Type(),
		SavepointFormat: md.SavepointFormat(),
		HandleCounts:    md.HandleCounts(),
		Files:           []fileView{},
		InlineBytes:     md.InlineBytes(),
		CheckpointID:    md.CheckpointID,
		Savepoint:       md.Type() == "savepoint",
		StateSize:       md.StateSize(),
		Operators:       []operatorView{},
	}
	if md.Format == metadata.FormatVfskit {
		v.JobID = checkpointstorage.JobID(md.JobID).String()
		v.Timestamp = md.Timestamp.UTC()
	}
	if fh, ok := loc.MetadataHandle().(*checkpointstorage.FileStateHandle); ok {
		v.MetadataPath = fh.FilePath.String()
		v.Path = v.MetadataPath
	}
	dir := loc.CheckpointDir()
	for _, f := range md.Files() {
		fv := fileView{Path: f.Path, Reference: string(f.Reference), Size: f.Size, recorded: f.Path}
		if p, err := f.Resolve(dir); err == nil {
			fv.Path = p.String()
		}
		v.Files = append(v.Files, fv)
	}
	for i := range md.Operators {
		op := &md.Operators[i]
		id := op.UID
		if md.Format == metadata.FormatFlink {
			id = op.ID.String()
		}
		ov := operatorView{ID: id, UID: op.UID, Name: op.Name, Parallelism: op.Parallelism, MaxParallelism: op.MaxParallelism,
			SubtaskStates: op.SubtaskStates(), CoordinatorState: op.CoordinatorState != nil,
			OperatorStateNames: op.StateNames(), KeyedSubtasks: op.KeyedSubtasks(), Subtasks: []subtaskView{}}
		if md.Format == metadata.FormatVfskit {
			ov.UID = ""
		}
		for j := range op.Subtasks {
			st := &op.Subtasks[j]
			sv := subtaskView{Index: st.Index, Handles: []handleView{}}
			one := metadata.Metadata{Operators: []metadata.Operator{{Subtasks: []metadata.Subtask{*st}}}}
			one.Walk(func(_ *metadata.Operator, _ *metadata.Subtask, h metadata.Handle) {
				sv.Handles = append(sv.Handles, newHandleView(h, dir))
			})
			ov.Subtasks = append(ov.Subtasks, sv)
		}
		v.Operators = append(v.Operators, ov)
	}
	return v
}

func newHandleView(h metadata.Handle, dir vfs.Path) handleView {
	hv := handleView{Kind: metadata.KindName(h), Size: h.StateSize()}
	switch h := h.(type) {
	case *checkpointstorage.ByteStreamStateHandle:
		hv.Kind, hv.Name = "inline", h.Name
	case *checkpointstorage.FileStateHandle:
		hv.Kind, hv.Path, hv.Scope = "file", h.FilePath.String(), h.Scope.String()
	case *checkpointstorage.RelativeFileStateHandle:
		hv.Kind, hv.Path, hv.RelativePath = "relative", h.FilePath.String(), h.RelativePath
	case *metadata.ByteStreamStateHandle:
		hv.Kind, hv.Name = "inline", h.Name
	case *metadata.FileStateHandle:
		hv.Kind, hv.Path = "file", h.Path
	case *metadata.RelativeFileStateHandle:
		hv.Kind, hv.RelativePath = "relative", h.RelativePath
		if p, err := dir.Resolve(h.RelativePath); err == nil {
			hv.Path = p.String()
		}
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
	switch v.Type {
	case "savepoint":
		kind = "Savepoint"
	case "unknown":
		kind = "Checkpoint or savepoint"
	}
	n, byKind := v.counts()
	if v.JobID != "" {
		fmt.Fprintf(w, "%s %d of job %s\n", kind, v.CheckpointID, v.JobID)
	} else {
		fmt.Fprintf(w, "%s %d\n", kind, v.CheckpointID)
	}
	fmt.Fprintf(w, "  format:    %s, version %d\n", v.Format, v.Version)
	fmt.Fprintf(w, "  pointer:   %s\n", vfs.Redact(v.Pointer))
	if v.MetadataPath != "" {
		fmt.Fprintf(w, "  metadata:  %s (%s)\n", vfs.Redact(v.MetadataPath), humanBytes(v.MetadataSize))
	}
	if !v.Timestamp.IsZero() {
		fmt.Fprintf(w, "  taken:     %s\n", v.Timestamp.Format(time.RFC3339Nano))
	}
	fmt.Fprintf(w, "  state:     %s in %d handles (%d inline, %d file, %d relative)\n",
		humanBytes(v.StateSize), n, byKind["inline"], byKind["file"], byKind["relative"])
	for _, op := range v.Operators {
		named := ""
		if op.UID != "" || op.Name != "" {
			named = fmt.Sprintf(" uid %q name %q", op.UID, op.Name)
		}
		fmt.Fprintf(w, "\noperator %s%s (parallelism %d, max parallelism %d)\n", op.ID, named, op.Parallelism, op.MaxParallelism)
		for _, st := range op.Subtasks {
			fmt.Fprintf(w, "  subtask %d\n", st.Index)
			for _, h := range st.Handles {
				where := ""
				switch h.Kind {
				case "file":
					where = h.Path
					if h.Scope != "" {
						where += " (" + h.Scope + ")"
					}
				case "relative":
					where = h.RelativePath + " → " + h.Path
				case "inline":
					// The name of inline state looks like a path but names no file.
					where = "in the metadata, named " + h.Name
				}
				fmt.Fprintf(w, "    %-8s %10s  %s\n", h.Kind, humanBytes(h.Size), vfs.Redact(strings.TrimSpace(where)))
			}
		}
	}
	return nil
}
