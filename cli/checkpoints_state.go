package cli

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
	"github.com/vfskit/vfskit/vfs"
)

func (a *app) checkpointsStateCommand() *cobra.Command {
	var asJSON bool
	var operator string
	cmd := &cobra.Command{
		Use:   "state [--operator ID|UID] [--json] POINTER",
		Short: "Show the operator state of a checkpoint or savepoint, entry by entry",
		Long: `Read the operator state of a checkpoint or savepoint (Flink's format) and
show it: per operator its named states (list, union list or broadcast states,
with Flink's distribution mode SPLIT_DISTRIBUTE, UNION or BROADCAST) and per
subtask each entry, read from the metadata (inline state) or from the state
file it points at (on any scheme), cut at the offsets the metadata records;
and the operator coordinator's state. An entry is the bytes the state's
serializer wrote: a list element, or a broadcast state's whole map.

Entries of a FLIP-27 source's "SourceReaderState" are decoded: Kafka
(KafkaPartitionSplit), number sequence (NumberSequenceSplit) and file
(FileSourceSplit) splits, in every serializer version known. So is the
coordinator state of a source (the KafkaSource enumerator, versions 0 to 3;
the number sequence enumerator). A split or enumerator no decoder knows is
shown as bytes with its serializer's version; it is not an error.

--operator shows one operator, by its id (32 hex characters) or uid.

With --json, one JSON document:
  {"pointer",
   "operators": [{"id", "uid", "name", "parallelism",
     "states": [{"name", "mode", "raw" (true for raw operator state),
       "subtasks": [{"index", "entries": [{"bytes" (base64),
         "decoded" (a source split: "serializerVersion", "kind" (kafka,
         sequence, file or unknown), "split", and "topic", "partition",
         "startingOffset", "stoppingOffset" (null: none) / "from", "to" /
         "path", "offset", "length", "readerPosition"; "error" when
         unknown)}]}]}],
     "coordinator": {"bytes", "decoded"} or null}]}`,
		Example: `  vfskit checkpoints state file:///flink/savepoints/savepoint-3f2a1b-0123456789ab
  vfskit checkpoints state --operator kafka-source-operator-uid --json file:///flink/kafka-savepoint`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			st, pointer, err := a.loadOperatorState(cmd.Context(), "checkpoints state", argv[0], operator)
			if err != nil {
				return err
			}
			if asJSON {
				err = writeJSONLine(a.stdio.Out, newStateJSON(pointer, st))
			} else {
				err = a.writeStateText(a.stdio.Out, st)
			}
			if err != nil {
				return err
			}
			return unreadableErr("checkpoints state", pointer, st)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the state as JSON")
	cmd.Flags().StringVar(&operator, "operator", "", "show only the operator with this id or uid")
	return cmd
}

// loadOperatorState reads the operator state at arg, keeping only the
// operator named idOrUID when it is not empty.
func (a *app) loadOperatorState(ctx context.Context, op, arg, idOrUID string) (*opstate.State, string, error) {
	loc, err := a.resolve(ctx, arg)
	if err != nil {
		return nil, "", err
	}
	st, _, err := opstate.Load(ctx, loc.path.String(), opstate.WithRegistry(a.reg))
	if err != nil {
		return nil, "", notSnapshotDir(ctx, op, loc, err)
	}
	if idOrUID != "" {
		o := st.Operator(idOrUID)
		if o == nil {
			return nil, "", usageErr(fmt.Errorf("%s: no operator with id or uid %q in %s: %w", op, idOrUID, loc.path.Redacted(), fs.ErrNotExist))
		}
		st.Operators = []*opstate.Operator{o}
	}
	return st, loc.path.Redacted(), nil
}

type stateJSON struct {
	Pointer   string              `json:"pointer"`
	Operators []stateOperatorJSON `json:"operators"`
}

type stateOperatorJSON struct {
	ID          string           `json:"id"`
	UID         string           `json:"uid,omitempty"`
	Name        string           `json:"name,omitempty"`
	Parallelism int              `json:"parallelism"`
	States      []namedStateJSON `json:"states"`
	Coordinator *entryJSON       `json:"coordinator"`
}

type namedStateJSON struct {
	Name     string             `json:"name"`
	Mode     string             `json:"mode"`
	Raw      bool               `json:"raw,omitempty"`
	Subtasks []subtaskStateJSON `json:"subtasks"`
}

type subtaskStateJSON struct {
	Index   int         `json:"index"`
	Entries []entryJSON `json:"entries"`
	Error   string      `json:"error,omitempty"`
}

type entryJSON struct {
	Bytes   string         `json:"bytes"`
	Decoded map[string]any `json:"decoded,omitempty"`
}

func newStateJSON(pointer string, st *opstate.State) stateJSON {
	j := stateJSON{Pointer: pointer, Operators: []stateOperatorJSON{}}
	for _, op := range st.Operators {
		oj := stateOperatorJSON{ID: op.ID.String(), UID: op.UID, Name: op.Name, Parallelism: op.Parallelism, States: []namedStateJSON{}}
		for _, l := range []struct {
			states []*opstate.NamedState
			raw    bool
		}{{op.States, false}, {op.RawStates, true}} {
			for _, ns := range l.states {
				nj := namedStateJSON{Name: ns.Name, Mode: ns.Mode.String(), Raw: l.raw, Subtasks: []subtaskStateJSON{}}
				for _, sub := range ns.Subtasks {
					sj := subtaskStateJSON{Index: sub.Index, Entries: []entryJSON{}}
					if sub.Err != nil {
						sj.Error = vfs.Redact(sub.Err.Error())
					}
					for _, e := range sub.Entries {
						ej := entryJSON{Bytes: base64.StdEncoding.EncodeToString(e.Bytes)}
						if ns.Name == opstate.SourceReaderStateName {
							ej.Decoded = readerEntryJSON(e)
						}
						sj.Entries = append(sj.Entries, ej)
					}
					nj.Subtasks = append(nj.Subtasks, sj)
				}
				oj.States = append(oj.States, nj)
			}
		}
		if c := op.Coordinator; c != nil {
			oj.Coordinator = &entryJSON{Bytes: base64.StdEncoding.EncodeToString(c.Bytes), Decoded: coordinatorJSON(c)}
		}
		j.Operators = append(j.Operators, oj)
	}
	return j
}

// readerEntryJSON is the "decoded" member of a SourceReaderState entry.
func readerEntryJSON(e *opstate.Entry) map[string]any {
	if e.Reader == nil {
		return map[string]any{"kind": "unknown", "error": e.ReaderErr.Error()}
	}
	m := map[string]any{"serializerVersion": e.Reader.Version}
	if e.Reader.Split == nil {
		m["kind"] = "unknown"
		m["error"] = e.Reader.DecodeErr.Error()
		return m
	}
	for k, v := range splitJSON(e.Reader.Split) {
		m[k] = v
	}
	return m
}

// splitJSON is a split's members.
func splitJSON(s opstate.Split) map[string]any {
	m := map[string]any{"kind": s.Kind(), "split": s.SplitID()}
	switch s := s.(type) {
	case *opstate.KafkaSplit:
		m["topic"], m["partition"], m["startingOffset"] = s.Topic, s.Partition, s.StartingOffset
		m["stoppingOffset"] = nil
		if s.StoppingOffset != opstate.KafkaNoStoppingOffset {
			m["stoppingOffset"] = s.StoppingOffset
		}
	case *opstate.SequenceSplit:
		m["from"], m["to"] = s.From, s.To
	case *opstate.FileSplit:
		m["path"], m["offset"], m["length"] = s.Path.String(), s.Offset, s.Length
		if !s.Legacy {
			m["modificationTime"], m["fileSize"] = s.ModificationTime, s.FileSize
		}
		m["hostnames"] = append([]string{}, s.Hostnames...)
		m["readerPosition"] = nil
		if p := s.ReaderPosition; p != nil {
			m["readerPosition"] = map[string]any{"offset": p.Offset, "recordsAfterOffset": p.RecordsAfterOffset}
		}
	}
	return m
}

// coordinatorJSON is the "decoded" member of a coordinator state; nil for
// bytes that are not a source coordinator's.
func coordinatorJSON(c *opstate.CoordinatorState) map[string]any {
	if !c.Source {
		return nil
	}
	m := map[string]any{"coordinatorSerdeVersion": c.SerdeVersion, "serializerVersion": c.EnumVersion}
	switch e := c.Enumerator.(type) {
	case *opstate.KafkaEnumerator:
		m["kind"] = "kafka"
		parts := []map[string]any{}
		for _, p := range e.Partitions {
			pm := map[string]any{"topic": p.Topic, "partition": p.Partition, "assigned": p.Assigned}
			if p.Split != nil {
				pm["startingOffset"] = p.Split.StartingOffset
				pm["stoppingOffset"] = nil
				if p.Split.StoppingOffset != opstate.KafkaNoStoppingOffset {
					pm["stoppingOffset"] = p.Split.StoppingOffset
				}
			}
			parts = append(parts, pm)
		}
		m["partitions"] = parts
		if e.Version >= 2 {
			m["initialDiscoveryFinished"] = e.InitialDiscoveryFinished
		}
	case *opstate.SequenceEnumerator:
		m["kind"] = "sequence"
		splits := []map[string]any{}
		for _, s := range e.Splits {
			splits = append(splits, splitJSON(s))
		}
		m["splits"] = splits
	default:
		m["kind"] = "unknown"
		if c.DecodeErr != nil {
			m["error"] = c.DecodeErr.Error()
		}
	}
	return m
}

// writeStateText writes the state for people.
func (a *app) writeStateText(w io.Writer, st *opstate.State) error {
	for i, op := range st.Operators {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "operator %s uid %q name %q (parallelism %d)\n", op.ID, op.UID, op.Name, op.Parallelism)
		if c := op.Coordinator; c != nil {
			fmt.Fprintf(w, "  coordinator state: %s, %s\n", humanBytes(int64(len(c.Bytes))), describeCoordinator(c))
		}
		if len(op.States)+len(op.RawStates) == 0 {
			fmt.Fprintln(w, "  no operator state")
		}
		for _, l := range []struct {
			states []*opstate.NamedState
			kind   string
		}{{op.States, "state"}, {op.RawStates, "raw state"}} {
			for _, ns := range l.states {
				fmt.Fprintf(w, "  %s %s (%s)\n", l.kind, a.name(ns.Name), ns.Mode)
				for _, sub := range ns.Subtasks {
					if sub.Err != nil {
						fmt.Fprintf(w, "    subtask %d: unreadable: %s\n", sub.Index, vfs.Redact(sub.Err.Error()))
						continue
					}
					fmt.Fprintf(w, "    subtask %d: %d %s\n", sub.Index, len(sub.Entries), plural(len(sub.Entries), "entry", "entries"))
					for k, e := range sub.Entries {
						fmt.Fprintf(w, "      [%d] %s  %s\n", k, humanBytes(int64(len(e.Bytes))), describeEntry(ns.Name, e))
					}
				}
			}
		}
	}
	return nil
}

// unreadableErr is the error that makes the exit status 1 when some
// subtask's state could not be read (each is shown in the output).
func unreadableErr(op, pointer string, st *opstate.State) error {
	us := st.Unreadable()
	if len(us) == 0 {
		return nil
	}
	// The cause is shown, not wrapped: a scheme the command line cannot
	// reach in a state file is not a usage error.
	return fmt.Errorf("%s: %s: the state of %d %s could not be read, the first: operator %s state %q subtask %d: %s",
		op, pointer, len(us), plural(len(us), "subtask", "subtasks"), us[0].Operator.ID, us[0].State, us[0].Subtask, vfs.Redact(us[0].Err.Error()))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// describeEntry is one line about an entry.
func describeEntry(state string, e *opstate.Entry) string {
	if state != opstate.SourceReaderStateName {
		return hexPrefix(e.Bytes)
	}
	switch {
	case e.Reader == nil:
		return "not a split: " + e.ReaderErr.Error()
	case e.Reader.Split == nil:
		return fmt.Sprintf("unknown split, serializer version %d: %s", e.Reader.Version, hexPrefix(e.Reader.Payload))
	}
	return describeSplit(e.Reader.Split) + fmt.Sprintf(" (serializer version %d)", e.Reader.Version)
}

// describeSplit says what a split is and where it resumes.
func describeSplit(s opstate.Split) string {
	switch s := s.(type) {
	case *opstate.KafkaSplit:
		d := fmt.Sprintf("kafka %s partition %d: offset %s", s.Topic, s.Partition, kafkaOffset(s.StartingOffset))
		if s.StoppingOffset != opstate.KafkaNoStoppingOffset {
			d += ", stops at " + kafkaOffset(s.StoppingOffset)
		}
		return d
	case *opstate.SequenceSplit:
		return fmt.Sprintf("sequence split %s: next %d, last %d", s.ID, s.From, s.To)
	case *opstate.FileSplit:
		d := fmt.Sprintf("file split %s: %s bytes %d+%d", s.ID, s.Path, s.Offset, s.Length)
		if p := s.ReaderPosition; p != nil {
			d += fmt.Sprintf(", reader at offset %d (+%d records)", p.Offset, p.RecordsAfterOffset)
		}
		return d
	}
	return s.Kind()
}

// kafkaOffset is an offset, or the marker's name with its value.
func kafkaOffset(o int64) string {
	switch o {
	case opstate.KafkaEarliestOffset:
		return "-2 (earliest)"
	case opstate.KafkaLatestOffset:
		return "-1 (latest)"
	case opstate.KafkaCommittedOffset:
		return "-3 (committed)"
	case opstate.KafkaNoStoppingOffset:
		return "none"
	}
	return fmt.Sprint(o)
}

func describeCoordinator(c *opstate.CoordinatorState) string {
	if !c.Source {
		return "not a source coordinator's: " + hexPrefix(c.Bytes)
	}
	switch e := c.Enumerator.(type) {
	case *opstate.KafkaEnumerator:
		assigned := 0
		topics := map[string]bool{}
		for _, p := range e.Partitions {
			topics[p.Topic] = true
			if p.Assigned {
				assigned++
			}
		}
		d := fmt.Sprintf("kafka enumerator (serializer version %d): %d partitions of %d %s, %d assigned", e.Version, len(e.Partitions), len(topics), plural(len(topics), "topic", "topics"), assigned)
		if e.Version >= 2 {
			d += fmt.Sprintf(", initial discovery finished: %v", e.InitialDiscoveryFinished)
		}
		return d
	case *opstate.SequenceEnumerator:
		return fmt.Sprintf("number sequence enumerator: %d splits not assigned", len(e.Splits))
	}
	return fmt.Sprintf("unknown enumerator, serializer version %d: %s", c.EnumVersion, hexPrefix(c.Payload))
}

// hexPrefix shows the first bytes of b in hex.
func hexPrefix(b []byte) string {
	const max = 32
	if len(b) <= max {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:max]) + strings.Repeat(".", 3)
}
