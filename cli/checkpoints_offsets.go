package cli

import (
	"encoding/base64"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
)

func (a *app) checkpointsOffsetsCommand() *cobra.Command {
	var asJSON bool
	var operator string
	cmd := &cobra.Command{
		Use:   "offsets [--operator ID|UID] [--json] POINTER",
		Short: "Show where the job's sources resume: Kafka offsets and split positions",
		Long: `Read the source splits of a checkpoint or savepoint (Flink's format; see
"checkpoints state") and print where each one resumes, as a table: the source
operator (uid, or id), the reader subtask holding the split ("enum" for a
split the enumerator holds, not yet assigned), the kind (kafka, sequence,
file or unknown), and for Kafka the topic, partition and starting offset (the
next record read; -2 earliest, -1 latest, -3 committed offsets), for a number
sequence the next number emitted, for a file split the offset its reader
resumes at. A split no decoder knows is listed as unknown with its serializer
version. State files that cannot be read are named and make the exit status
1 (the splits in them are not listed).

With --json, one JSON document:
  {"pointer",
   "positions": [{"operator" (id), "uid", "subtask" (-1: the enumerator),
     "kind", "split", and "topic", "partition", "offset" (Kafka),
     "position" (sequence, file), "to" (sequence), "version" and "bytes"
     (base64; unknown)}]}`,
		Example: `  vfskit checkpoints offsets file:///flink/kafka-savepoint
  vfskit checkpoints offsets --json file:///flink/kafka-savepoint`,
		Args: args(cobra.ExactArgs(1)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			st, pointer, err := a.loadOperatorState(cmd.Context(), "checkpoints offsets", argv[0], operator)
			if err != nil {
				return err
			}
			ps := st.Positions()
			if asJSON {
				if err := writeJSONLine(a.stdio.Out, newPositionsJSON(pointer, ps)); err != nil {
					return err
				}
				return unreadableErr("checkpoints offsets", pointer, st)
			}
			if len(ps) == 0 {
				fmt.Fprintln(a.stdio.Out, "no source splits")
				return unreadableErr("checkpoints offsets", pointer, st)
			}
			tw := tabwriter.NewWriter(a.stdio.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "OPERATOR\tSUBTASK\tKIND\tTOPIC\tPARTITION\tOFFSET\tSPLIT\tPOSITION")
			for _, p := range ps {
				op := p.OperatorUID
				if op == "" {
					op = p.Operator.String()
				}
				sub := fmt.Sprint(p.Subtask)
				if p.Subtask == opstate.EnumeratorSubtask {
					sub = "enum"
				}
				topic, part, off, split, pos := "-", "-", "-", "-", "-"
				switch p.Kind {
				case "kafka":
					topic, part, off, split = a.name(p.Topic), fmt.Sprint(p.Partition), kafkaOffset(p.Offset), a.name(p.Split)
				case "sequence", "file":
					split, pos = a.name(p.Split), fmt.Sprint(p.Position)
				default:
					pos = fmt.Sprintf("serializer version %d, %d bytes", p.Version, len(p.Bytes))
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.name(op), sub, p.Kind, topic, part, off, split, pos)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return unreadableErr("checkpoints offsets", pointer, st)
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the positions as JSON")
	cmd.Flags().StringVar(&operator, "operator", "", "show only the operator with this id or uid")
	return cmd
}

type positionsJSON struct {
	Pointer   string         `json:"pointer"`
	Positions []positionJSON `json:"positions"`
}

type positionJSON struct {
	Operator  string  `json:"operator"`
	UID       string  `json:"uid,omitempty"`
	Subtask   int     `json:"subtask"`
	Kind      string  `json:"kind"`
	Split     string  `json:"split,omitempty"`
	Topic     *string `json:"topic,omitempty"`
	Partition *int32  `json:"partition,omitempty"`
	Offset    *int64  `json:"offset,omitempty"`
	Position  *int64  `json:"position,omitempty"`
	To        *int64  `json:"to,omitempty"`
	Version   *int32  `json:"version,omitempty"`
	Bytes     *string `json:"bytes,omitempty"`
}

func newPositionsJSON(pointer string, ps []opstate.Position) positionsJSON {
	j := positionsJSON{Pointer: pointer, Positions: []positionJSON{}}
	for _, p := range ps {
		pj := positionJSON{Operator: p.Operator.String(), UID: p.OperatorUID, Subtask: p.Subtask, Kind: p.Kind, Split: p.Split}
		switch p.Kind {
		case "kafka":
			pj.Topic, pj.Partition, pj.Offset = &p.Topic, &p.Partition, &p.Offset
		case "sequence":
			pj.Position, pj.To = &p.Position, &p.To
		case "file":
			pj.Position = &p.Position
		default:
			b := base64.StdEncoding.EncodeToString(p.Bytes)
			pj.Version, pj.Bytes = &p.Version, &b
		}
		j.Positions = append(j.Positions, pj)
	}
	return j
}
