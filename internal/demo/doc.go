// Package demo is the job behind "vfskit demo": a small streaming word count
// with keyed state that checkpoints through checkpointstorage, crashes on
// purpose, recovers from its latest completed checkpoint and proves that its
// result is exactly the result of a run without failure.
//
// The job reads a deterministic generated stream of words (the record at offset
// i depends only on the seed and i, so the source can be replayed from any
// offset), routes each word by key to one of N parallel counting subtasks, and
// every K records sends a checkpoint barrier through the pipeline. At the
// barrier each subtask writes its keyed state (word → count) to a
// CheckpointStateOutputStream; the coordinator adds the source offset and
// writes the checkpoint's metadata, which completes the checkpoint.
//
// Mid-run the job crashes: every subtask and its state, the storage object and
// the coordinator's memory are dropped. Recovery starts from nothing but the
// checkpoint directory: it finds the latest completed checkpoint there,
// resolves it with CheckpointStorage.ResolveCheckpoint, restores every subtask's
// state and the source offset, and replays the stream from that offset. At the
// end the counts are compared word by word with a reference run of the same
// job without failure, and a savepoint is taken.
//
// The job's results go to files exactly once, as Flink's FileSink writes them:
// each subtask writes the line "word count" for every record to rolling part
// files under <checkpoint dir>/output/<job id> through the file system's
// vfs.RecoverableWriter. At a barrier it persists the part in progress and puts
// the resume token, and the commit tokens of the parts it closed since, in its
// checkpoint; when the checkpoint completes, those parts are committed. After
// the crash the restored subtask commits its checkpoint's parts again
// (CommitAfterRecovery: once) and recovers the part in progress at exactly the
// checkpointed bytes, so the replayed records are written once. The demo then
// reads every committed part and checks that each result is there exactly once.
package demo
