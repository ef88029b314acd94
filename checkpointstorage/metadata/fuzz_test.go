package metadata_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
	"time"

	m "github.com/vfskit/vfskit/checkpointstorage/metadata"
)

// v2Model is a version 2 model (no coordinator state, no channel state).
func v2Model() *m.Metadata {
	return &m.Metadata{Format: m.FormatFlink, Version: 2, CheckpointID: 7, Operators: []m.Operator{{
		ID: m.OperatorID{0xAB}, Parallelism: 2, MaxParallelism: 128,
		Subtasks: []m.Subtask{{Index: 0, State: &m.SubtaskState{
			ManagedOperatorState: &m.OperatorStreamStateHandle{States: []m.NamedState{{Name: "topic-partition-offset-states", Mode: m.Union, Offsets: []int64{0}}}, Delegate: file("hdfs:/x", 9)},
			ManagedKeyedState:    &m.IncrementalRemoteKeyedStateHandle{Legacy: true, BackendID: "b", Range: m.KeyGroupRange{Count: 64}, MetaStateHandle: file("hdfs:/m", 1)},
		}}, {Index: 1}},
	}}}
}

func vfskitModel() *m.Metadata {
	return &m.Metadata{CheckpointID: 3, JobID: [16]byte{1}, Timestamp: time.Unix(1700000000, 5).UTC(), IsSavepoint: true,
		Operators: []m.Operator{{UID: "source", Parallelism: 1, MaxParallelism: 1, Subtasks: []m.Subtask{{Index: 0, Handles: []m.Handle{
			&m.ByteStreamStateHandle{Name: "n", Data: []byte("offset")},
			&m.FileStateHandle{Path: "s3://b/k", Size: 5, Shared: true},
			&m.RelativeFileStateHandle{RelativePath: "f", Size: 6},
		}}}}}}
}

// fuzzDecode is the property every input must have: decoding never panics,
// allocates at most 4 × the input + 1 MiB, fails only with ErrCorrupt or
// ErrUnsupportedVersion, gives back exactly the input when what it accepted
// is encoded again, and Read agrees with Decode.
func fuzzDecode(t *testing.T, data []byte) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	md, err := m.Decode(data)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > bound(len(data)) {
		t.Fatalf("decoding %d bytes allocated %d bytes", len(data), n)
	}
	_, readErr := m.Read(bytes.NewReader(data)) // a Seeker: read in one buffer
	_, streamErr := m.Read(io.MultiReader(bytes.NewReader(data)))
	if (err == nil) != (readErr == nil) || (err == nil) != (streamErr == nil) {
		t.Fatalf("Decode: %v, Read: %v, Read of a stream: %v", err, readErr, streamErr)
	}
	if err != nil {
		if !errors.Is(err, m.ErrCorrupt) && !errors.Is(err, m.ErrUnsupportedVersion) {
			t.Fatalf("error wraps neither ErrCorrupt nor ErrUnsupportedVersion: %v", err)
		}
		return
	}
	again, err := m.Encode(md)
	if err != nil {
		t.Fatalf("accepted metadata does not encode: %v", err)
	}
	if !bytes.Equal(again, data) {
		t.Fatalf("round trip changed the bytes:\n%x\n%x", data, again)
	}
}

// FuzzDecode fuzzes both formats behind the magic number detection. The
// seeds are built by the encoder and by hand (testdata/fuzz/FuzzDecode), never
// taken from real files.
func FuzzDecode(f *testing.F) {
	for v := 3; v <= 7; v++ {
		f.Add(must(m.Encode(everyKind(f, v))))
	}
	f.Add(must(m.Encode(v2Model())))
	f.Add(must(m.Encode(vfskitModel())))
	f.Add(minimalV3(0, 0, 0, 0, 0, 0, 0, 0, 0))
	f.Add(fileMergingFile(fileMerging, emptyFileMerging, nil))
	f.Fuzz(fuzzDecode)
}

// FuzzVfskitBody fuzzes the body of vfskit's format behind a valid frame
// (header and CRC), which random bytes would almost never pass.
func FuzzVfskitBody(f *testing.F) {
	for _, md := range []*m.Metadata{vfskitModel(), {}} {
		b := must(m.Encode(md))
		f.Add(b[10 : len(b)-4])
	}
	f.Fuzz(func(t *testing.T, body []byte) { fuzzDecode(t, vfskitFile(body)) })
}
