package opstate_test

import (
	"github.com/vfskit/vfskit/checkpointstorage/opstate"
)

func str(s string) *string { return &s }

// seedSplits are splits of every kind and layout.
func seedSplits() []opstate.Split {
	return []opstate.Split{
		&opstate.KafkaSplit{Topic: "orders", Partition: 3, StartingOffset: 42, StoppingOffset: opstate.KafkaNoStoppingOffset},
		&opstate.KafkaSplit{Topic: "ünïcode\x00topic", Partition: 0, StartingOffset: opstate.KafkaEarliestOffset, StoppingOffset: 1000},
		&opstate.SequenceSplit{ID: "0", From: 17, To: 999},
		&opstate.SequenceSplit{ID: "12", From: -5, To: -5},
		&opstate.FileSplit{ID: "0000000001", Path: opstate.FlinkPath{Present: true, Scheme: str("file"), Port: -1, Path: str("/data/in/part-0.csv")},
			Offset: 0, Length: 1 << 20, ModificationTime: 1700000000000, FileSize: 1 << 21, Hostnames: []string{"localhost"},
			ReaderPosition: &opstate.FilePosition{Offset: 4096, RecordsAfterOffset: 3}},
		&opstate.FileSplit{ID: "7", Path: opstate.FlinkPath{Present: true, Scheme: str("s3"), Host: str("bucket"), Port: -1, Path: str("/a b/€.txt")},
			Offset: 10, Length: 20, Legacy: true},
	}
}

type seedEnumerator struct {
	version int32
	enum    opstate.Enumerator
}

// seedEnumerators are enumerator checkpoints of every version.
func seedEnumerators() []seedEnumerator {
	k := func(p int32, off int64) *opstate.KafkaSplit {
		return &opstate.KafkaSplit{Topic: "t", Partition: p, StartingOffset: off, StoppingOffset: opstate.KafkaNoStoppingOffset}
	}
	return []seedEnumerator{
		{0, &opstate.KafkaEnumerator{Version: 0, Readers: []opstate.KafkaReaderAssignment{{Subtask: 0, Splits: []*opstate.KafkaSplit{k(0, 5), k(1, 6)}}, {Subtask: 1, Splits: []*opstate.KafkaSplit{k(2, 7)}}},
			Partitions: []opstate.KafkaEnumPartition{{Topic: "t", Partition: 0, Assigned: true, Split: k(0, 5)}, {Topic: "t", Partition: 1, Assigned: true, Split: k(1, 6)}, {Topic: "t", Partition: 2, Assigned: true, Split: k(2, 7)}}}},
		{1, &opstate.KafkaEnumerator{Version: 1, Partitions: []opstate.KafkaEnumPartition{{Topic: "t", Partition: 0, Assigned: true}, {Topic: "u", Partition: 1, Assigned: true}}}},
		{2, &opstate.KafkaEnumerator{Version: 2, InitialDiscoveryFinished: true, Partitions: []opstate.KafkaEnumPartition{{Topic: "t", Partition: 0, Assigned: true}, {Topic: "t", Partition: 1}}}},
		{3, &opstate.KafkaEnumerator{Version: 3, Partitions: []opstate.KafkaEnumPartition{{Topic: "t", Partition: 0, Assigned: true, Split: k(0, 10)}, {Topic: "t", Partition: 1, Split: k(1, opstate.KafkaEarliestOffset)}}}},
		{1, &opstate.SequenceEnumerator{Splits: []*opstate.SequenceSplit{{ID: "3", From: 0, To: 9}, {ID: "4", From: 10, To: 19}}}},
	}
}
