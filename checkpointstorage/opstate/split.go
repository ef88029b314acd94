package opstate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strconv"
)

// Split is a FLIP-27 source split decoded from the bytes its serializer
// wrote: *KafkaSplit, *SequenceSplit or *FileSplit.
type Split interface {
	// Kind is "kafka", "sequence" or "file".
	Kind() string
	// SplitID is the split's id as the source names it (a Kafka split's is
	// "<topic>-<partition>").
	SplitID() string
}

// Kafka's markers for a starting offset that is not an offset
// (KafkaPartitionSplit's constants) and for no stopping offset.
const (
	KafkaLatestOffset     int64 = -1
	KafkaEarliestOffset   int64 = -2
	KafkaCommittedOffset  int64 = -3
	KafkaNoStoppingOffset int64 = -1 << 63
)

// KafkaSplit is flink-connector-kafka's KafkaPartitionSplit (serializer
// version 0: writeUTF topic, int partition, long starting offset, long
// stopping offset).
type KafkaSplit struct {
	Topic     string
	Partition int32
	// StartingOffset is the offset the reader resumes at (or one of the
	// Kafka…Offset markers).
	StartingOffset int64
	// StoppingOffset is where a bounded read stops; KafkaNoStoppingOffset
	// when it does not.
	StoppingOffset int64
}

// Kind is "kafka".
func (s *KafkaSplit) Kind() string { return "kafka" }

// SplitID is "<topic>-<partition>", as KafkaPartitionSplit's.
func (s *KafkaSplit) SplitID() string { return s.Topic + "-" + strconv.Itoa(int(s.Partition)) }

// SequenceSplit is Flink's NumberSequenceSource.NumberSequenceSplit
// (serializer version 1: writeUTF id, long from, long to): the numbers From to
// To still to emit.
type SequenceSplit struct {
	ID       string
	From, To int64
}

// Kind is "sequence".
func (s *SequenceSplit) Kind() string { return "sequence" }

// SplitID is the split's id.
func (s *SequenceSplit) SplitID() string { return s.ID }

// FlinkPath is Flink's core.fs.Path as Path.write serializes it: the
// components of its URI, each present or not.
type FlinkPath struct {
	// Present is false for a null URI.
	Present                bool
	Scheme, UserInfo, Host *string
	Port                   int32
	Path, Query, Fragment  *string
}

// String is the path as a URI.
func (p FlinkPath) String() string {
	if !p.Present {
		return ""
	}
	s := func(v *string) string {
		if v == nil {
			return ""
		}
		return *v
	}
	u := url.URL{Scheme: s(p.Scheme), Path: s(p.Path), RawQuery: s(p.Query), Fragment: s(p.Fragment)}
	if p.Host != nil {
		u.Host = *p.Host
		if p.Port >= 0 {
			u.Host += ":" + strconv.Itoa(int(p.Port))
		}
		if p.UserInfo != nil {
			u.User = url.User(*p.UserInfo)
		}
	}
	return u.String()
}

// FilePosition is Flink's CheckpointedPosition: the offset a reader resumes
// at and how many records after it to skip.
type FilePosition struct {
	Offset             int64
	RecordsAfterOffset int64
}

// FileSplit is Flink's FileSourceSplit (serializer version 1). Flink wrote
// two layouts under that version: the one of Flink 1.11 to 1.13 without the
// modification time and file size (Legacy), and the later one with them.
type FileSplit struct {
	ID     string
	Path   FlinkPath
	Offset int64
	Length int64
	// ModificationTime and FileSize are absent in the Legacy layout.
	ModificationTime int64
	FileSize         int64
	Legacy           bool
	Hostnames        []string
	// ReaderPosition is where the reader resumes; nil before it read
	// anything of the split.
	ReaderPosition *FilePosition
}

// Kind is "file".
func (s *FileSplit) Kind() string { return "file" }

// SplitID is the split's id.
func (s *FileSplit) SplitID() string { return s.ID }

// Serializer versions of the splits this package knows.
const (
	KafkaSplitVersion    = 0
	SequenceSplitVersion = 1
	FileSplitVersion     = 1
)

// ErrUnknownSerializer is returned for bytes no decoder of this package
// reads exactly; errors.Is(err, fs.ErrInvalid) holds too.
var ErrUnknownSerializer = fmt.Errorf("no known serializer writes these bytes: %w", fs.ErrInvalid)

// DecodeSplit decodes the bytes a split serializer of version version
// wrote: version 0 as a KafkaPartitionSplit, version 1 as a
// NumberSequenceSplit or a FileSourceSplit (either layout). A split is
// accepted only where encoding it again gives exactly payload; anything else
// is ErrUnknownSerializer.
func DecodeSplit(version int32, payload []byte) (Split, error) {
	var cands []func([]byte) (Split, error)
	switch version {
	case KafkaSplitVersion:
		cands = append(cands, decodeKafkaSplit)
	case SequenceSplitVersion:
		cands = append(cands, decodeSequenceSplit, func(b []byte) (Split, error) { return decodeFileSplit(b, false) },
			func(b []byte) (Split, error) { return decodeFileSplit(b, true) })
	}
	for _, dec := range cands {
		s, err := dec(payload)
		if err != nil {
			continue
		}
		if again, v, err := EncodeSplit(s); err == nil && v == version && bytes.Equal(again, payload) {
			return s, nil
		}
	}
	return nil, fmt.Errorf("split serializer version %d, %d bytes: %w", version, len(payload), ErrUnknownSerializer)
}

// EncodeSplit returns s as its serializer writes it, and the serializer's
// version.
func EncodeSplit(s Split) ([]byte, int32, error) {
	var w writer
	switch s := s.(type) {
	case *KafkaSplit:
		if err := w.utf(s.Topic); err != nil {
			return nil, 0, err
		}
		w.i32(s.Partition)
		w.i64(s.StartingOffset)
		w.i64(s.StoppingOffset)
		return w.b, KafkaSplitVersion, nil
	case *SequenceSplit:
		if s.From > s.To {
			return nil, 0, fmt.Errorf("sequence split %q: from %d is after to %d: %w", s.ID, s.From, s.To, fs.ErrInvalid)
		}
		if err := w.utf(s.ID); err != nil {
			return nil, 0, err
		}
		w.i64(s.From)
		w.i64(s.To)
		return w.b, SequenceSplitVersion, nil
	case *FileSplit:
		if err := w.utf(s.ID); err != nil {
			return nil, 0, err
		}
		w.boolean(s.Path.Present)
		if s.Path.Present {
			for _, c := range []*string{s.Path.Scheme, s.Path.UserInfo, s.Path.Host} {
				w.flinkString(deref(c), c != nil)
			}
			w.i32(s.Path.Port)
			for _, c := range []*string{s.Path.Path, s.Path.Query, s.Path.Fragment} {
				w.flinkString(deref(c), c != nil)
			}
		}
		w.i64(s.Offset)
		w.i64(s.Length)
		if !s.Legacy {
			w.i64(s.ModificationTime)
			w.i64(s.FileSize)
		}
		w.i32(int32(len(s.Hostnames)))
		for _, h := range s.Hostnames {
			if err := w.utf(h); err != nil {
				return nil, 0, err
			}
		}
		w.boolean(s.ReaderPosition != nil)
		if p := s.ReaderPosition; p != nil {
			w.i64(p.Offset)
			w.i64(p.RecordsAfterOffset)
		}
		return w.b, FileSplitVersion, nil
	}
	return nil, 0, fmt.Errorf("cannot encode a split of type %T: %w", s, fs.ErrInvalid)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func decodeKafkaSplit(b []byte) (Split, error) {
	r := reader{b: b}
	s := &KafkaSplit{Topic: r.utf(), Partition: r.i32(), StartingOffset: r.i64(), StoppingOffset: r.i64()}
	return s, r.end()
}

func decodeSequenceSplit(b []byte) (Split, error) {
	r := reader{b: b}
	s := &SequenceSplit{ID: r.utf(), From: r.i64(), To: r.i64()}
	if err := r.end(); err != nil {
		return nil, err
	}
	if s.From > s.To {
		return nil, fmt.Errorf("from %d is after to %d", s.From, s.To)
	}
	return s, nil
}

func decodeFileSplit(b []byte, legacy bool) (Split, error) {
	r := reader{b: b}
	s := &FileSplit{ID: r.utf(), Legacy: legacy}
	s.Path.Present = r.boolean()
	if s.Path.Present {
		opt := func() *string {
			v, ok := r.flinkString()
			if !ok {
				return nil
			}
			return &v
		}
		s.Path.Scheme, s.Path.UserInfo, s.Path.Host = opt(), opt(), opt()
		s.Path.Port = r.i32()
		s.Path.Path, s.Path.Query, s.Path.Fragment = opt(), opt(), opt()
	}
	s.Offset, s.Length = r.i64(), r.i64()
	if !legacy {
		s.ModificationTime, s.FileSize = r.i64(), r.i64()
	}
	n := r.count("hostname", 2)
	for i := 0; i < n && r.err == nil; i++ {
		s.Hostnames = append(s.Hostnames, r.utf())
	}
	if r.boolean() {
		s.ReaderPosition = &FilePosition{Offset: r.i64(), RecordsAfterOffset: r.i64()}
	}
	return s, r.end()
}

// ReaderEntry is one entry of a FLIP-27 source reader's operator state
// ("SourceReaderState"): a split as SimpleVersionedSerialization wrote it
// (int version, int length, the serializer's bytes), held in the list state
// as a byte array (BytePrimitiveArraySerializer: int length, bytes).
type ReaderEntry struct {
	// Version is the split serializer's version.
	Version int32
	// Payload is the serializer's bytes.
	Payload []byte
	// Split is the decoded split; nil where no decoder of this package
	// reads Payload exactly (DecodeErr says why).
	Split     Split
	DecodeErr error
}

// SourceReaderStateName is the name of a FLIP-27 source operator's split
// state (SourceOperator's SPLITS_STATE_DESC).
const SourceReaderStateName = "SourceReaderState"

// DecodeReaderEntry decodes one entry of the "SourceReaderState" list state
// as stored in the operator state stream. Framing that does not add up is an
// error wrapping fs.ErrInvalid; a split no decoder knows is not (Split nil,
// DecodeErr set).
func DecodeReaderEntry(elem []byte) (*ReaderEntry, error) {
	r := reader{b: elem}
	outer := r.i32()
	version := r.i32()
	inner := r.i32()
	if r.err != nil {
		return nil, fmt.Errorf("source reader entry of %d bytes: %w (%w)", len(elem), r.err, fs.ErrInvalid)
	}
	if int64(outer) != int64(len(elem))-4 || int64(inner) != int64(outer)-8 {
		return nil, fmt.Errorf("source reader entry of %d bytes: its lengths %d and %d do not frame it: %w", len(elem), outer, inner, fs.ErrInvalid)
	}
	e := &ReaderEntry{Version: version, Payload: elem[12:]}
	e.Split, e.DecodeErr = DecodeSplit(version, e.Payload)
	return e, nil
}

// EncodeReaderEntry returns a "SourceReaderState" entry holding payload
// written by a split serializer of version version.
func EncodeReaderEntry(version int32, payload []byte) ([]byte, error) {
	if len(payload) > 1<<31-13 {
		return nil, errors.New("split too large")
	}
	var w writer
	w.i32(int32(len(payload) + 8))
	w.i32(version)
	w.i32(int32(len(payload)))
	w.raw(payload)
	return w.b, nil
}
