package opstate

import (
	"github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// Position is where one split of a FLIP-27 source resumes.
type Position struct {
	// Operator is the source operator; OperatorUID its uid where recorded.
	Operator    metadata.OperatorID
	OperatorUID string
	// Subtask is the reader subtask holding the split, or EnumeratorSubtask for a
	// split the enumerator holds, not yet assigned to a reader.
	Subtask int
	// Kind is "kafka", "sequence", "file" or "unknown" (a split no decoder
	// of this package reads; Version and Bytes hold it).
	Kind string
	// Topic, Partition and Offset are a Kafka split's (Offset is the
	// starting offset: the next record read, or one of the Kafka…Offset
	// markers); StoppingOffset is KafkaNoStoppingOffset unless bounded.
	Topic          string
	Partition      int32
	Offset         int64
	StoppingOffset int64
	// Split is the split's id; Position the next number a sequence split
	// emits (To its last), or the offset a file split's reader resumes at
	// (the split's own offset when it has no reader position).
	Split    string
	Position int64
	To       int64
	// Version and Bytes are the serializer's version and bytes of an
	// unknown split.
	Version int32
	Bytes   []byte
}

// EnumeratorSubtask is Position.Subtask for a split that the source's enumerator
// holds and has not assigned to a reader.
const EnumeratorSubtask = -1

// Positions returns where every source split of the state resumes: each
// entry of each reader's "SourceReaderState" (by operator, subtask and entry
// order), then the splits the enumerators hold unassigned (a Kafka
// enumerator's of version 3 with their offsets, a number sequence
// enumerator's).
func (s *State) Positions() []Position {
	var ps []Position
	for _, op := range s.Operators {
		base := Position{Operator: op.ID, OperatorUID: op.UID}
		for _, ns := range op.States {
			if ns.Name != SourceReaderStateName {
				continue
			}
			for _, sub := range ns.Subtasks {
				for _, e := range sub.Entries {
					p := base
					p.Subtask = sub.Index
					switch {
					case e.Reader == nil:
						p.Kind, p.Bytes = "unknown", e.Bytes
					case e.Reader.Split == nil:
						p.Kind, p.Version, p.Bytes = "unknown", e.Reader.Version, e.Reader.Payload
					default:
						p = splitPosition(p, e.Reader.Split)
					}
					ps = append(ps, p)
				}
			}
		}
		if op.Coordinator == nil {
			continue
		}
		base.Subtask = EnumeratorSubtask
		switch e := op.Coordinator.Enumerator.(type) {
		case *KafkaEnumerator:
			for _, part := range e.Partitions {
				if !part.Assigned && part.Split != nil {
					ps = append(ps, splitPosition(base, part.Split))
				}
			}
		case *SequenceEnumerator:
			for _, sp := range e.Splits {
				ps = append(ps, splitPosition(base, sp))
			}
		}
	}
	return ps
}

func splitPosition(p Position, s Split) Position {
	p.Kind, p.Split = s.Kind(), s.SplitID()
	switch s := s.(type) {
	case *KafkaSplit:
		p.Topic, p.Partition, p.Offset, p.StoppingOffset = s.Topic, s.Partition, s.StartingOffset, s.StoppingOffset
	case *SequenceSplit:
		p.Position, p.To = s.From, s.To
	case *FileSplit:
		p.Position = s.Offset
		if s.ReaderPosition != nil {
			p.Position = s.ReaderPosition.Offset
		}
	}
	return p
}
