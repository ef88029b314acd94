package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
)

func (a *app) checkpointsSetOffsetsCommand() *cobra.Command {
	var topics, partitions, offsets, mapTopics, splits []string
	var fromFile string
	cmd := &cobra.Command{
		Use:   "set-offsets SRC DST [--topic T --partition P --offset O]... [--from-file FILE] [--map-topic OLD=NEW]... [--split ID=POSITION]...",
		Short: "Write a copy of a savepoint whose sources resume at the positions given",
		Long: `Copy the savepoint (or self-contained checkpoint) SRC to DST, on any schemes,
with the positions of its FLIP-27 source splits changed, every other byte as
it was: the split entries of the sources' "SourceReaderState" are re-encoded
in their serializer's format and version, the operator state streams holding
them rewritten (inline in the _metadata, or the state files in DST), the
_metadata encoded again in its format and version, and DST verified at the
end (every referenced file, and the positions read back). SRC is left as it
is; DST must not exist or be empty.

  --topic T --partition P --offset O   a Kafka partition's starting offset (the
        next record read; -2 earliest, -1 latest, -3 committed offsets).
        Repeatable: the n-th --topic, --partition and --offset go together; one
        --topic serves every --partition.
  --split ID=POSITION   a number sequence split's next number, or the offset a
        file split's reader resumes at.
  --from-file FILE      positions from a file (- for standard input): what
        "checkpoints offsets --json" prints, or CSV rows topic,partition,offset
        or split,position (an optional header row names the columns).
  --map-topic OLD=NEW   renames a Kafka topic in the splits and in the
        enumerator's state; --topic names topics as they are after it.

The enumerator's state follows: a Kafka enumerator's topics are renamed, and
its own copy of each split (serializer version 3) takes the new offset; a
number sequence enumerator's unassigned splits take their new positions.

It refuses, writing nothing, a position that matches no split, a split or
enumerator that it would change but cannot decode, and state it cannot
rewrite exactly: a state file outside SRC or shared with other handles, or a
segment of a merged file (Flink's file merging).`,
		Example: `  vfskit checkpoints set-offsets file:///flink/kafka-savepoint s3://bucket/sp/moved --map-topic topic=topic-v2 --topic topic-v2 --partition 0 --offset 1500 --partition 1 --offset 1730
  vfskit checkpoints offsets --json file:///flink/kafka-savepoint > positions.json   # edit it, then:
  vfskit checkpoints set-offsets file:///flink/kafka-savepoint file:///sp/edited --from-file positions.json`,
		Args: args(cobra.ExactArgs(2)),
		RunE: a.run(func(cmd *cobra.Command, argv []string) error {
			ch, err := a.parseChanges(cmd.Context(), topics, partitions, offsets, mapTopics, splits, fromFile)
			if err != nil {
				return err
			}
			locs, err := a.resolveAll(cmd.Context(), argv)
			if err != nil {
				return err
			}
			r, err := opstate.SetOffsets(cmd.Context(), locs[0].path, locs[1].path, ch, opstate.WithRegistry(a.reg))
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdio.Out, "wrote %s from %s: %d %s rewritten (source splits and enumerator states), %d state %s; verified\n",
				a.pathName(r.Dst), a.pathName(r.Src), r.Entries, plural(r.Entries, "entry", "entries"), r.Files, plural(r.Files, "file", "files"))
			return nil
		}),
	}
	f := cmd.Flags()
	f.StringArrayVar(&topics, "topic", nil, "a Kafka topic (repeatable; with --partition and --offset)")
	f.StringArrayVar(&partitions, "partition", nil, "a Kafka partition (repeatable)")
	f.StringArrayVar(&offsets, "offset", nil, "the partition's starting offset (repeatable)")
	f.StringVar(&fromFile, "from-file", "", "read positions from this local file (JSON or CSV; - for standard input)")
	f.StringArrayVar(&mapTopics, "map-topic", nil, "rename a Kafka topic, OLD=NEW (repeatable)")
	f.StringArrayVar(&splits, "split", nil, "a sequence or file split's position, ID=POSITION (repeatable)")
	return cmd
}

// parseChanges turns set-offsets' flags into the changes to make.
func (a *app) parseChanges(ctx context.Context, topics, partitions, offsets, mapTopics, splits []string, fromFile string) (opstate.Changes, error) {
	var ch opstate.Changes
	if fromFile != "" {
		in := a.stdin(ctx)
		if fromFile != "-" {
			f, err := os.Open(fromFile)
			if err != nil {
				return ch, err
			}
			defer f.Close()
			in = f
		}
		var err error
		if ch, err = opstate.ReadPositions(in); err != nil {
			return ch, usageErr(fmt.Errorf("--from-file %s: %w", fromFile, err))
		}
	}
	if len(partitions) != len(offsets) || (len(topics) != len(partitions) && len(topics) != 1) || (len(topics) > 0 && len(partitions) == 0) {
		return ch, usageErr(fmt.Errorf("--topic, --partition and --offset go together: got %d, %d and %d (give as many of each, or one --topic for every --partition)",
			len(topics), len(partitions), len(offsets)))
	}
	for i := range partitions {
		t := topics[0]
		if len(topics) > 1 {
			t = topics[i]
		}
		p, err := strconv.ParseInt(partitions[i], 10, 32)
		if err != nil || p < 0 {
			return ch, usageErr(fmt.Errorf("--partition %q: expected a partition number", partitions[i]))
		}
		o, err := strconv.ParseInt(offsets[i], 10, 64)
		if err != nil {
			return ch, usageErr(fmt.Errorf("--offset %q: expected an offset (a number; -2 earliest, -1 latest, -3 committed)", offsets[i]))
		}
		ch.Offsets = append(ch.Offsets, opstate.KafkaOffset{Topic: t, Partition: int32(p), Offset: o})
	}
	for _, s := range splits {
		id, pos, ok := strings.Cut(s, "=")
		p, err := strconv.ParseInt(pos, 10, 64)
		if !ok || id == "" || err != nil {
			return ch, usageErr(fmt.Errorf("--split %q: expected ID=POSITION", s))
		}
		ch.Splits = append(ch.Splits, opstate.SplitPosition{ID: id, Position: p})
	}
	for _, m := range mapTopics {
		old, to, ok := strings.Cut(m, "=")
		if !ok || old == "" || to == "" {
			return ch, usageErr(fmt.Errorf("--map-topic %q: expected OLD=NEW", m))
		}
		if ch.MapTopics == nil {
			ch.MapTopics = map[string]string{}
		}
		if prev, dup := ch.MapTopics[old]; dup && prev != to {
			return ch, usageErr(fmt.Errorf("--map-topic: topic %q is mapped to both %q and %q", old, prev, to))
		}
		ch.MapTopics[old] = to
	}
	if len(ch.Offsets)+len(ch.Splits)+len(ch.MapTopics) == 0 {
		return ch, usageErr(fmt.Errorf("nothing to change: give --topic/--partition/--offset, --split, --from-file or --map-topic"))
	}
	return ch, nil
}
