package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vfskit/vfskit/checkpointstorage"
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
	"github.com/vfskit/vfskit/vfs"
)

// checkpointView is the JSON document "checkpoints inspect --json" prints (its
// members are documented in the command's help). inspectDoc writes it piece by
// piece, in this order, rather than building it: the types say what each
// piece looks like, and tests read the output back into a checkpointView.
type checkpointView struct {
	checkpointHead
	Operators []operatorView `json:"operators"`
	// HandleCounts counts the handles per Flink handle class, nested ones
	// included.
	HandleCounts map[string]int `json:"handleCounts"`
	Files        []fileView     `json:"files"`
	InlineBytes  int64          `json:"inlineBytes"`
}

// checkpointHead is the document's members before "operators".
type checkpointHead struct {
	// Path is the qualified URI of the _metadata file.
	Path               string    `json:"path"`
	PathBase64         string    `json:"pathBase64,omitempty"`
	Pointer            string    `json:"pointer"`
	PointerBase64      string    `json:"pointerBase64,omitempty"`
	MetadataPath       string    `json:"metadataPath"`
	MetadataPathBase64 string    `json:"metadataPathBase64,omitempty"`
	MetadataSize       int64     `json:"metadataSize"`
	Format             string    `json:"format"`
	Version            int       `json:"version"`
	Type               string    `json:"type"`
	SavepointFormat    string    `json:"savepointFormat"`
	JobID              string    `json:"jobId,omitempty"`
	CheckpointID       int64     `json:"checkpointId"`
	Savepoint          bool      `json:"savepoint"`
	Timestamp          time.Time `json:"timestamp,omitzero"`
	StateSize          int64     `json:"stateSize"`
}

// fileView is a file the checkpoint references.
type fileView struct {
	// Path is the file's resolved URI.
	Path       string `json:"path"`
	PathBase64 string `json:"pathBase64,omitempty"`
	Reference  string `json:"reference"` // relative or absolute
	Size       int64  `json:"size"`
	// Present is null unless --verify checked the file.
	Present *bool `json:"present"`
	// Problem says what --verify found wrong: "missing", "size 10, expected
	// 12", "cannot check: ...".
	Problem string `json:"problem,omitempty"`
}

// operatorView is one operator: its members (operatorHead), then its subtasks.
type operatorView struct {
	operatorHead
	Subtasks []subtaskView `json:"subtasks"`
}

type operatorHead struct {
	ID                 string   `json:"id"`
	UID                string   `json:"uid"`
	Name               string   `json:"name"`
	Parallelism        int      `json:"parallelism"`
	MaxParallelism     int      `json:"maxParallelism"`
	SubtaskStates      int      `json:"subtaskStates"`
	CoordinatorState   bool     `json:"coordinatorState"`
	OperatorStateNames []string `json:"operatorStateNames"`
	KeyedSubtasks      int      `json:"keyedSubtasks"`
}

type subtaskView struct {
	Index   int          `json:"index"`
	Handles []handleView `json:"handles"`
}

type handleView struct {
	Kind string `json:"kind"` // inline, file, relative or Flink's handle class
	Size int64  `json:"size"`
	// Path is the file of a file or relative handle.
	Path       string `json:"path,omitempty"`
	PathBase64 string `json:"pathBase64,omitempty"`
	// RelativePath is a relative handle's name inside the checkpoint directory.
	RelativePath       string `json:"relativePath,omitempty"`
	RelativePathBase64 string `json:"relativePathBase64,omitempty"`
	// Scope is a file handle's scope (EXCLUSIVE or SHARED).
	Scope string `json:"scope,omitempty"`
	// Name identifies inline state.
	Name       string `json:"name,omitempty"`
	NameBase64 string `json:"nameBase64,omitempty"`
}

// The ...Base64 members carry the exact bytes of a name or path that is not
// valid UTF-8 (see nameBytes), of the value as printed: redacted, as the
// whole document is.

// withBytes returns h with its ...Base64 members set.
func (h checkpointHead) withBytes() checkpointHead {
	h.PathBase64 = redactedBytes(h.Path)
	h.PointerBase64 = redactedBytes(h.Pointer)
	h.MetadataPathBase64 = redactedBytes(h.MetadataPath)
	return h
}

// withBytes returns f with its ...Base64 member set.
func (f fileView) withBytes() fileView {
	f.PathBase64 = redactedBytes(f.Path)
	return f
}

// withBytes returns h with its ...Base64 members set.
func (h handleView) withBytes() handleView {
	h.PathBase64 = redactedBytes(h.Path)
	h.RelativePathBase64 = redactedBytes(h.RelativePath)
	h.NameBase64 = redactedBytes(h.Name)
	return h
}

// redactedBytes is nameBytes of s as the document prints it (redacted).
func redactedBytes(s string) string { return nameBytes(vfs.Redact(s)) }

// inspectDoc is what "checkpoints inspect" shows of one checkpoint: the
// decoded metadata, rendered one operator and one subtask at a time as text
// or JSON, so that the output costs memory for one subtask at a time, not for
// the whole document (the metadata itself is the only thing held whole).
type inspectDoc struct {
	md   *checkpointstorage.CheckpointMetadata
	dir  vfs.Path // the checkpoint's directory, relative handles resolve against it
	head checkpointHead
	// checked holds --verify's result per recorded file (nil without it).
	checked map[fileKey]checkpointstorage.FileCheck
	// rendered counts the subtasks rendered so far (a write error stops it).
	rendered int
}

// fileKey identifies a referenced file as the metadata records it.
type fileKey struct {
	ref      metadata.Reference
	recorded string
}

func newInspectDoc(md *checkpointstorage.CheckpointMetadata, loc *checkpointstorage.FsCompletedCheckpointStorageLocation) *inspectDoc {
	d := &inspectDoc{md: md, dir: loc.CheckpointDir()}
	d.head = checkpointHead{
		Pointer:         loc.ExternalPointer(),
		MetadataSize:    loc.MetadataHandle().StateSize(),
		Format:          md.Format.String(),
		Version:         md.Version,
		Type:            md.Type(),
		SavepointFormat: md.SavepointFormat(),
		CheckpointID:    md.CheckpointID,
		Savepoint:       md.Type() == "savepoint",
		StateSize:       md.StateSize(),
	}
	if md.Format == metadata.FormatVfskit {
		d.head.JobID = checkpointstorage.JobID(md.JobID).String()
		d.head.Timestamp = md.Timestamp.UTC()
	}
	if fh, ok := loc.MetadataHandle().(*checkpointstorage.FileStateHandle); ok {
		d.head.MetadataPath = fh.FilePath.String()
		d.head.Path = d.head.MetadataPath
	}
	d.head = d.head.withBytes()
	return d
}

// markPresence takes the files' presence from a verification of the same
// checkpoint: present is true or false, problem says what is wrong, and a file
// looked for elsewhere (a path mapping) shows where.
func (d *inspectDoc) markPresence(checked *checkpointstorage.Verification) {
	d.checked = make(map[fileKey]checkpointstorage.FileCheck, len(checked.Files))
	for _, c := range checked.Files {
		d.checked[fileKey{c.Reference, c.Recorded}] = c
	}
}

// file returns the view of one referenced file.
func (d *inspectDoc) file(f metadata.FileRef) fileView {
	fv := fileView{Path: f.Path, Reference: string(f.Reference), Size: f.Size}
	if p, err := f.Resolve(d.dir); err == nil {
		fv.Path = p.String()
	}
	c, ok := d.checked[fileKey{f.Reference, f.Path}]
	if !ok {
		return fv.withBytes()
	}
	present := c.Present
	fv.Present = &present
	fv.Problem = c.Problem()
	if c.Mapped {
		fv.Path = c.Path.String()
	}
	return fv.withBytes()
}

// operator returns an operator's members.
func (d *inspectDoc) operator(op *metadata.Operator) operatorHead {
	id := op.UID
	if d.md.Format == metadata.FormatFlink {
		id = op.ID.String()
	}
	h := operatorHead{ID: id, UID: op.UID, Name: op.Name, Parallelism: op.Parallelism, MaxParallelism: op.MaxParallelism,
		SubtaskStates: op.SubtaskStates(), CoordinatorState: op.CoordinatorState != nil,
		OperatorStateNames: op.StateNames(), KeyedSubtasks: op.KeyedSubtasks()}
	if d.md.Format == metadata.FormatVfskit {
		h.UID = ""
	}
	return h
}

// subtask returns one subtask with its handles, nested ones included.
func (d *inspectDoc) subtask(st *metadata.Subtask) subtaskView {
	d.rendered++
	sv := subtaskView{Index: st.Index, Handles: []handleView{}}
	one := metadata.Metadata{Operators: []metadata.Operator{{Subtasks: []metadata.Subtask{*st}}}}
	one.Walk(func(_ *metadata.Operator, _ *metadata.Subtask, h metadata.Handle) {
		sv.Handles = append(sv.Handles, d.handle(h))
	})
	return sv
}

// handleKind is how inspect names the kind of h: inline, file, relative, or
// Flink's handle class.
func handleKind(h metadata.Handle) string {
	switch h.(type) {
	case *checkpointstorage.ByteStreamStateHandle, *metadata.ByteStreamStateHandle:
		return "inline"
	case *checkpointstorage.FileStateHandle, *metadata.FileStateHandle:
		return "file"
	case *checkpointstorage.RelativeFileStateHandle, *metadata.RelativeFileStateHandle:
		return "relative"
	}
	return metadata.KindName(h)
}

func (d *inspectDoc) handle(h metadata.Handle) handleView {
	hv := handleView{Kind: handleKind(h), Size: h.StateSize()}
	switch h := h.(type) {
	case *checkpointstorage.ByteStreamStateHandle:
		hv.Name = h.Name
	case *checkpointstorage.FileStateHandle:
		hv.Path, hv.Scope = h.FilePath.String(), h.Scope.String()
	case *checkpointstorage.RelativeFileStateHandle:
		hv.Path, hv.RelativePath = h.FilePath.String(), h.RelativePath
	case *metadata.ByteStreamStateHandle:
		hv.Name = h.Name
	case *metadata.FileStateHandle:
		hv.Path = h.Path
	case *metadata.RelativeFileStateHandle:
		hv.RelativePath = h.RelativePath
		if p, err := d.dir.Resolve(h.RelativePath); err == nil {
			hv.Path = p.String()
		}
	}
	return hv.withBytes()
}

// writeJSON writes the document (see checkpointView) to w, one subtask and
// one file at a time.
func (d *inspectDoc) writeJSON(w io.Writer) error {
	return newJSONStream(w).document(func(o *jsonObject) {
		o.fields(d.head)
		o.array("operators", func(a *jsonArray) {
			for i := 0; i < len(d.md.Operators) && a.more(); i++ {
				op := &d.md.Operators[i]
				a.object(func(o *jsonObject) {
					o.fields(d.operator(op))
					o.array("subtasks", func(a *jsonArray) {
						for j := 0; j < len(op.Subtasks) && a.more(); j++ {
							a.value(d.subtask(&op.Subtasks[j]))
						}
					})
				})
			}
		})
		o.fields(struct {
			HandleCounts map[string]int `json:"handleCounts"`
		}{d.md.HandleCounts()})
		o.array("files", func(a *jsonArray) {
			for _, f := range d.md.Files() {
				if !a.more() {
					break
				}
				a.value(d.file(f))
			}
		})
		o.fields(struct {
			InlineBytes int64 `json:"inlineBytes"`
		}{d.md.InlineBytes()})
	})
}

// writeText writes the human-readable form to w, one subtask at a time, with
// names and paths quoted by quote.
func (d *inspectDoc) writeText(out io.Writer, quote func(string) string) error {
	sticky := &output{w: out} // stops the loops below at the first write error
	w := bufio.NewWriterSize(sticky, 64<<10)
	v := d.head
	kind := "Checkpoint"
	switch v.Type {
	case "savepoint":
		kind = "Savepoint"
	case "unknown":
		kind = "Checkpoint or savepoint"
	}
	n, byKind := 0, map[string]int{}
	for i := range d.md.Operators {
		for j := range d.md.Operators[i].Subtasks {
			one := metadata.Metadata{Operators: []metadata.Operator{{Subtasks: d.md.Operators[i].Subtasks[j : j+1]}}}
			one.Walk(func(_ *metadata.Operator, _ *metadata.Subtask, h metadata.Handle) {
				n++
				byKind[handleKind(h)]++
			})
		}
	}
	if v.JobID != "" {
		fmt.Fprintf(w, "%s %d of job %s\n", kind, v.CheckpointID, v.JobID)
	} else {
		fmt.Fprintf(w, "%s %d\n", kind, v.CheckpointID)
	}
	fmt.Fprintf(w, "  format:    %s, version %d\n", v.Format, v.Version)
	typ := v.Type
	if v.Savepoint && v.SavepointFormat != "" {
		typ += ", " + strings.ToLower(v.SavepointFormat) + " savepoint format"
	}
	fmt.Fprintf(w, "  type:      %s\n", typ)
	fmt.Fprintf(w, "  pointer:   %s\n", quote(vfs.RedactURI(v.Pointer)))
	if v.MetadataPath != "" {
		fmt.Fprintf(w, "  metadata:  %s (%s)\n", quote(vfs.RedactURI(v.MetadataPath)), humanBytes(v.MetadataSize))
	}
	if !v.Timestamp.IsZero() {
		fmt.Fprintf(w, "  taken:     %s\n", v.Timestamp.Format(time.RFC3339Nano))
	}
	fmt.Fprintf(w, "  state:     %s in %d handles (%d inline, %d file, %d relative)\n",
		humanBytes(v.StateSize), n, byKind["inline"], byKind["file"], byKind["relative"])
	for i := 0; i < len(d.md.Operators) && sticky.failed() == nil; i++ {
		op := &d.md.Operators[i]
		oh := d.operator(op)
		named := ""
		if oh.UID != "" || oh.Name != "" {
			named = fmt.Sprintf(" uid %q name %q", oh.UID, oh.Name)
		}
		fmt.Fprintf(w, "\noperator %s%s (parallelism %d, max parallelism %d)\n", oh.ID, named, oh.Parallelism, oh.MaxParallelism)
		if len(oh.OperatorStateNames) > 0 {
			names := make([]string, len(oh.OperatorStateNames))
			for i, s := range oh.OperatorStateNames {
				names[i] = quote(s)
			}
			fmt.Fprintf(w, "  operator state: %s\n", strings.Join(names, ", "))
		}
		if oh.KeyedSubtasks > 0 {
			fmt.Fprintf(w, "  keyed state:    in %s\n", count(oh.KeyedSubtasks, "subtask"))
		}
		if oh.CoordinatorState {
			fmt.Fprintf(w, "  coordinator state: yes\n")
		}
		for j := 0; j < len(op.Subtasks) && sticky.failed() == nil; j++ {
			st := d.subtask(&op.Subtasks[j])
			fmt.Fprintf(w, "  subtask %d\n", st.Index)
			for _, h := range st.Handles {
				name := func(s string) string { return quote(vfs.Redact(strings.TrimSpace(s))) }
				where := ""
				switch h.Kind {
				case "file":
					where = name(h.Path)
					if h.Scope != "" {
						where += " (" + h.Scope + ")"
					}
				case "relative":
					where = name(h.RelativePath) + " → " + name(h.Path)
				case "inline":
					// The name of inline state looks like a path but names no file.
					where = "in the metadata (no file)"
				}
				fmt.Fprintf(w, "    %-8s %10s  %s\n", h.Kind, humanBytes(h.Size), where)
			}
		}
	}
	files := d.md.Files()
	fmt.Fprintf(w, "\nfiles: %s referenced, each listed once; %s inline in the metadata\n", count(len(files), "file"), humanBytes(d.md.InlineBytes()))
	for i := 0; i < len(files) && sticky.failed() == nil; i++ {
		f := d.file(files[i])
		state := ""
		if f.Present != nil && !*f.Present || f.Problem != "" {
			state = "  (" + f.Problem + ")"
		}
		fmt.Fprintf(w, "  %-8s %10s  %s%s\n", f.Reference, humanBytes(f.Size), quote(vfs.Redact(f.Path)), state)
	}
	return w.Flush()
}
