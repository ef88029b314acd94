package opstate

import (
	"bytes"
	"fmt"
	"io/fs"
)

// CoordinatorState is an operator coordinator's state. For a FLIP-27
// source it is what Flink's SourceCoordinator writes: its serde version (int,
// 0 or 1), the enumerator checkpoint serializer's version (int), the
// checkpoint's length (int) and bytes, and in serde version 0 the context's
// split assignments after them (kept as Tail).
type CoordinatorState struct {
	// Bytes is the coordinator state as stored.
	Bytes []byte
	// Source is false when the bytes are not framed as a source
	// coordinator's; the fields below are then zero.
	Source       bool
	SerdeVersion int32
	// EnumVersion and Payload are the enumerator checkpoint serializer's
	// version and bytes.
	EnumVersion int32
	Payload     []byte
	Tail        []byte
	// Enumerator is the decoded enumerator checkpoint (*KafkaEnumerator,
	// *SequenceEnumerator); nil where no decoder of this package reads
	// Payload exactly (DecodeErr says why).
	Enumerator Enumerator
	DecodeErr  error
}

// Enumerator is a decoded split enumerator checkpoint.
type Enumerator interface {
	// Kind is "kafka" or "sequence".
	Kind() string
}

// KafkaEnumerator is flink-connector-kafka's KafkaSourceEnumState, in any of
// its serializer's versions: 0 (the splits assigned to each reader), 1 (the
// assigned partitions), 2 (partitions with their assignment status, and
// whether the initial discovery finished), 3 (as 2, with each partition's
// whole split: starting and stopping offset).
type KafkaEnumerator struct {
	Version    int32
	Partitions []KafkaEnumPartition
	// InitialDiscoveryFinished is recorded from version 2 on.
	InitialDiscoveryFinished bool
	// SplitVersion is the split serializer's version (versions 0 and 3).
	SplitVersion int32
	// Readers is the number of readers with assignments (version 0).
	Readers []KafkaReaderAssignment
}

// KafkaReaderAssignment is one reader's entry of a version 0 state.
type KafkaReaderAssignment struct {
	Subtask int32
	Splits  []*KafkaSplit
}

// Kind is "kafka".
func (e *KafkaEnumerator) Kind() string { return "kafka" }

// KafkaEnumPartition is one partition the enumerator knows.
type KafkaEnumPartition struct {
	Topic     string
	Partition int32
	// Assigned is false for a partition discovered but not yet assigned
	// (AssignmentStatus UNASSIGNED, versions 2 and 3).
	Assigned bool
	// Split is the partition's split with its offsets (versions 0 and 3;
	// nil before).
	Split *KafkaSplit
}

// SequenceEnumerator is Flink's NumberSequenceSource enumerator checkpoint
// (version 1): the splits not yet assigned to a reader.
type SequenceEnumerator struct {
	Splits []*SequenceSplit
}

// Kind is "sequence".
func (e *SequenceEnumerator) Kind() string { return "sequence" }

// DecodeCoordinator decodes an operator coordinator's state. Bytes that are
// not a source coordinator's, or an enumerator checkpoint no decoder reads
// exactly, are not an error: they stay bytes (Source false, or Enumerator
// nil with DecodeErr).
func DecodeCoordinator(b []byte) *CoordinatorState {
	c := &CoordinatorState{Bytes: b}
	r := reader{b: b}
	serde, ver, n := r.i32(), r.i32(), r.i32()
	if r.err != nil || (serde != 0 && serde != 1) || n < 0 || int64(n) > int64(len(b)-12) {
		c.DecodeErr = fmt.Errorf("not a source coordinator's state: %w", ErrUnknownSerializer)
		return c
	}
	if serde == 1 && int64(n) != int64(len(b)-12) {
		c.DecodeErr = fmt.Errorf("source coordinator state of %d bytes announces an enumerator checkpoint of %d: %w", len(b), n, ErrUnknownSerializer)
		return c
	}
	c.Source, c.SerdeVersion, c.EnumVersion = true, serde, ver
	c.Payload, c.Tail = b[12:12+n], b[12+n:]
	c.Enumerator, c.DecodeErr = DecodeEnumerator(ver, c.Payload)
	return c
}

// EncodeCoordinator returns c's bytes with its Enumerator encoded again
// (EncodeEnumerator) in place of Payload.
func EncodeCoordinator(c *CoordinatorState) ([]byte, error) {
	if !c.Source {
		return c.Bytes, nil
	}
	p := c.Payload
	if c.Enumerator != nil {
		var err error
		if p, err = EncodeEnumerator(c.Enumerator); err != nil {
			return nil, err
		}
	}
	var w writer
	w.i32(c.SerdeVersion)
	w.i32(c.EnumVersion)
	w.i32(int32(len(p)))
	w.raw(p)
	w.raw(c.Tail)
	return w.b, nil
}

// DecodeEnumerator decodes an enumerator checkpoint of serializer version
// version: the KafkaSource's (versions 0 to 3) or the NumberSequenceSource's
// (version 1). It is accepted only where encoding it again gives exactly
// payload; anything else is ErrUnknownSerializer.
func DecodeEnumerator(version int32, payload []byte) (Enumerator, error) {
	var cands []func() (Enumerator, error)
	switch version {
	case 0, 2, 3:
		cands = append(cands, func() (Enumerator, error) { return decodeKafkaEnum(version, payload) })
	case 1:
		cands = append(cands, func() (Enumerator, error) { return decodeKafkaEnum(version, payload) }, func() (Enumerator, error) { return decodeSequenceEnum(payload) })
	}
	for _, dec := range cands {
		e, err := dec()
		if err != nil {
			continue
		}
		if again, err := EncodeEnumerator(e); err == nil && bytes.Equal(again, payload) {
			return e, nil
		}
	}
	return nil, fmt.Errorf("enumerator serializer version %d, %d bytes: %w", version, len(payload), ErrUnknownSerializer)
}

// EncodeEnumerator returns e as its serializer (of e's version) writes it.
func EncodeEnumerator(e Enumerator) ([]byte, error) {
	var w writer
	switch e := e.(type) {
	case *SequenceEnumerator:
		w.i32(int32(len(e.Splits)))
		for _, s := range e.Splits {
			b, _, err := EncodeSplit(s)
			if err != nil {
				return nil, err
			}
			w.raw(b)
		}
		return w.b, nil
	case *KafkaEnumerator:
		switch e.Version {
		case 0:
			w.i32(int32(len(e.Readers)))
			w.i32(e.SplitVersion)
			for _, a := range e.Readers {
				w.i32(a.Subtask)
				w.i32(int32(len(a.Splits)))
				for _, s := range a.Splits {
					b, _, err := EncodeSplit(s)
					if err != nil {
						return nil, err
					}
					w.i32(int32(len(b)))
					w.raw(b)
				}
			}
			return w.b, nil
		case 1, 2, 3:
			w.i32(int32(len(e.Partitions)))
			if e.Version == 3 {
				w.i32(e.SplitVersion)
			}
			for _, p := range e.Partitions {
				if e.Version == 3 {
					if p.Split == nil {
						return nil, fmt.Errorf("kafka enumerator version 3: partition %s-%d has no split: %w", p.Topic, p.Partition, fs.ErrInvalid)
					}
					b, _, err := EncodeSplit(p.Split)
					if err != nil {
						return nil, err
					}
					w.i32(int32(len(b)))
					w.raw(b)
				} else {
					if err := w.utf(p.Topic); err != nil {
						return nil, err
					}
					w.i32(p.Partition)
				}
				if e.Version >= 2 {
					w.i32(status(p.Assigned))
				}
			}
			if e.Version >= 2 {
				w.boolean(e.InitialDiscoveryFinished)
			}
			return w.b, nil
		}
		return nil, fmt.Errorf("kafka enumerator version %d: %w", e.Version, ErrUnknownSerializer)
	}
	return nil, fmt.Errorf("cannot encode an enumerator of type %T: %w", e, fs.ErrInvalid)
}

// status is AssignmentStatus's code: 0 ASSIGNED, 1 UNASSIGNED.
func status(assigned bool) int32 {
	if assigned {
		return 0
	}
	return 1
}

func decodeKafkaEnum(version int32, b []byte) (Enumerator, error) {
	r := reader{b: b}
	e := &KafkaEnumerator{Version: version}
	switch version {
	case 0:
		n := r.count("reader", 8)
		e.SplitVersion = r.i32()
		for i := 0; i < n && r.err == nil; i++ {
			a := KafkaReaderAssignment{Subtask: r.i32()}
			m := r.count("split", 4)
			for j := 0; j < m && r.err == nil; j++ {
				s, err := decodeKafkaSplit(r.take(r.count("split byte", 1)))
				if r.err != nil {
					break
				}
				if err != nil {
					return nil, err
				}
				ks := s.(*KafkaSplit)
				a.Splits = append(a.Splits, ks)
				e.Partitions = append(e.Partitions, KafkaEnumPartition{Topic: ks.Topic, Partition: ks.Partition, Assigned: true, Split: ks})
			}
			e.Readers = append(e.Readers, a)
		}
		if e.SplitVersion != KafkaSplitVersion && r.err == nil {
			return nil, fmt.Errorf("kafka split serializer version %d", e.SplitVersion)
		}
	case 1, 2, 3:
		n := r.count("partition", 6)
		if version == 3 {
			e.SplitVersion = r.i32()
			if e.SplitVersion != KafkaSplitVersion && r.err == nil {
				return nil, fmt.Errorf("kafka split serializer version %d", e.SplitVersion)
			}
		}
		for i := 0; i < n && r.err == nil; i++ {
			p := KafkaEnumPartition{Assigned: true}
			if version == 3 {
				s, err := decodeKafkaSplit(r.take(r.count("split byte", 1)))
				if r.err != nil {
					break
				}
				if err != nil {
					return nil, err
				}
				p.Split = s.(*KafkaSplit)
				p.Topic, p.Partition = p.Split.Topic, p.Split.Partition
			} else {
				p.Topic, p.Partition = r.utf(), r.i32()
			}
			if version >= 2 {
				switch st := r.i32(); st {
				case 0:
				case 1:
					p.Assigned = false
				default:
					r.fail(fmt.Errorf("assignment status %d, expected 0 or 1", st))
				}
			}
			e.Partitions = append(e.Partitions, p)
		}
		if version >= 2 {
			e.InitialDiscoveryFinished = r.boolean()
		}
	default:
		return nil, ErrUnknownSerializer
	}
	return e, r.end()
}

func decodeSequenceEnum(b []byte) (Enumerator, error) {
	r := reader{b: b}
	n := r.count("split", 18)
	e := &SequenceEnumerator{}
	for i := 0; i < n && r.err == nil; i++ {
		s := &SequenceSplit{ID: r.utf(), From: r.i64(), To: r.i64()}
		if r.err == nil && s.From > s.To {
			r.fail(fmt.Errorf("split %q: from %d is after to %d", s.ID, s.From, s.To))
		}
		e.Splits = append(e.Splits, s)
	}
	return e, r.end()
}
