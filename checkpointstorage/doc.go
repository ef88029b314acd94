// Package checkpointstorage is a Go port of Apache Flink's checkpoint storage
// (org.apache.flink.runtime.state.filesystem and .memory): the code that decides
// where the state of a streaming job's checkpoints and savepoints goes, writes it,
// publishes the checkpoint's _metadata, and finds it again on restore.
//
// It only talks to storage through vfs.FileSystem, obtained from the checkpoint
// directory's Path through the vfs registry, so the same code runs unchanged over
// memory://, file://, s3:// or any registered scheme: the URI of the checkpoint
// directory alone chooses the backend.
//
// # Storages
//
// Two CheckpointStorage implementations exist, as in Flink:
//
//   - MemoryBackendCheckpointStorage keeps state inline in the state handles
//     (at most maxStateSize bytes per stream). Without a checkpoints directory
//     nothing touches storage and the metadata stays in memory; with one, the
//     metadata of each checkpoint is written durably to chk-N/_metadata.
//   - FsCheckpointStorage writes state up to fileStateThreshold bytes inline and
//     streams larger state to files: <chk-N>/<uuid> for exclusive state (recorded
//     relative to the checkpoint directory, so a savepoint can be moved), the
//     job's shared/ directory for shared state.
//
// # Layout
//
//	<checkpoints base>/<job id>/chk-<N>/_metadata   one directory per checkpoint
//	<checkpoints base>/<job id>/chk-<N>/<uuid>      exclusive state files
//	<checkpoints base>/<job id>/shared/             shared state
//	<checkpoints base>/<job id>/taskowned/          task-owned state
//	<savepoint dir>/savepoint-<job id[:6]>-<12 hex>/  one directory per savepoint
//
// # Checkpoint and restore
//
// A checkpoint is taken in four steps: InitializeLocationForCheckpoint gives a
// CheckpointStorageLocation; each task writes its state through
// CreateCheckpointStateOutputStream and keeps the StreamStateHandle that
// CloseAndGetHandle returns; the coordinator collects the handles into a
// CheckpointMetadata and publishes it with FinalizeCheckpoint (or writes it into
// CreateMetadataOutputStream itself); the CompletedCheckpointStorageLocation's
// ExternalPointer names the checkpoint from then on. To restore, LoadCheckpoint
// (or ResolveCheckpoint followed by ReadMetadata) turns a pointer — the
// checkpoint directory or its _metadata file, on any backend — into the
// CheckpointMetadata, whose handles open the state again.
//
// # The _metadata file
//
// _metadata is published once: it is created NoOverwrite, becomes visible only
// when CloseAndFinalizeCheckpoint succeeds, and a second attempt to finalize the
// same checkpoint fails with fs.ErrExist instead of replacing it. This package
// writes vfskit's own format, which is versioned and carries its length and a
// CRC-32C, so a truncated or corrupted file fails to load with an error that
// errors.Is ErrCorruptMetadata, and is never half-loaded. LoadCheckpoint and
// ReadMetadata also read the _metadata files Flink writes (versions 2 to 7),
// told apart by the magic number: package metadata holds the one model of
// both formats, their codecs and the bounds on what decoding may cost.
//
// # Retention
//
// ListCompletedCheckpoints, LatestCompletedCheckpoint and RetainCheckpoints find
// the completed checkpoints of a job and discard all but the newest N, with their
// exclusive state. A checkpoint is completed when its chk-N directory holds a
// _metadata that decodes, in vfskit's format or Flink's: retention, discard,
// listing, TakeInventory and AuditJob decide it with the same code, so they
// always agree. Retention costs one LIST of the job's directory and one read of
// each chk-N's _metadata, then the deletes; listing the same (each _metadata's
// size and time come from its GET, vfs.StatStream), and finding the latest
// reads the _metadata newest first and stops at the first that decodes (one
// GET for a job whose newest checkpoint is completed).
//
// DiscardCheckpoint, RetainCheckpoints, CollectGarbage and
// DisposeStorageLocation delete only what they identified: they list the checkpoint directory (links not followed)
// and delete exactly the files listed, each only if it is still the version
// seen (vfs.DeleteVersion; _metadata at the version whose bytes were
// decoded), then the directories this empties, without recursion. A file
// written or changed meanwhile stays and is named in DiscardReport.Left, a
// FIFO, device or socket stays unopened and is named in DiscardReport.Special
// (the checkpoint is partly removed, DiscardReport.Partial), and a _metadata
// changed after it was read keeps the checkpoint (DiscardReport.Kept);
// DisposeStorageLocation names what stays in its error (Flink's own
// non-recursive delete orphans files, FLINK-38909). DisposeOnFailure deletes
// only the files its own location published, each only at the version its
// write published (vfs.WrittenVersion), so a file another writer wrote again
// at the same name stays.
// Whatever removes a checkpoint (DisposeStorageLocation, DisposeOnFailure,
// DiscardCheckpoint, RetainCheckpoints) follows three rules:
//
//   - _metadata is deleted first and the rest only then, so a crash or a failed
//     request half-way leaves an incomplete checkpoint, never a completed one
//     whose state is gone;
//   - deletes stay inside the job: the checkpoint's own directory and, with
//     WithEntropyInjection, its entropy-injected files (each only if its size
//     is the one the metadata records, at the version a Stat just before
//     saw; one of another size stays, in DiscardReport.Left). A file the metadata names
//     anywhere else (another bucket or store, a local file, another job; locations
//     compared by their canonical paths, scheme, authority and path prefix on a
//     segment boundary: see Locations) is left in place and listed in
//     DiscardReport.Outside. Shared state is never deleted;
//   - a checkpoint whose _metadata cannot be decoded is never deleted:
//     DiscardCheckpoint refuses, RetainCheckpoints keeps it (reported with
//     DiscardReport.Undecodable) and does not count it towards the N it retains,
//     and ListCompletedCheckpoints does not list it (TakeInventory reports it
//     with Snapshot.Err).
//
// WithDryRun reports what a discard or a retention would delete without
// deleting. State handles open their files through the file system of their
// exact path (vfs.Registry.GetPath): a '?' in a file name never configures one.
//
// # Object stores
//
// Writing a state stream sends no HEAD, LIST or mkdir request of its own: a
// stream that stays below the threshold costs nothing, a larger one exactly one
// upload (Create, writes, Close), as with Flink's FsCheckpointStreamFactory.
// Directories are created once per checkpoint, by the coordinator. The tests
// count the requests on real S3 servers with the s3:// backend's default
// options.
//
// # Inventory, verification, audit and relocation
//
// These work on vfskit's checkpoints and on Flink's alike (any _metadata
// package metadata decodes). TakeInventory lists a base, job, savepoint or
// checkpoint directory: jobs, checkpoints and savepoints, each completed only
// when its _metadata decodes, with format, version and sizes.
// VerifyCheckpoint checks that every file a _metadata references is present
// with its recorded size (VerifyMetadata: of metadata LoadCheckpoint already
// read, without reading it again). AuditJob sorts the files under a job's directory
// into those the completed checkpoints reference and orphans, and
// DeleteOrphans deletes the orphans that are safe to delete, never outside
// the job's directory. Relocate copies a savepoint, a checkpoint or a whole
// job directory to another place on any scheme, rewriting the absolute
// references into what it moves and writing each _metadata in its original
// format and version, then verifies the copy. A PathMapping (OLD=NEW, passed
// with WithPathMapping) tells all three where files recorded under absolute
// paths of another machine are now. On object stores they list each
// directory once instead of sending a request per file.
//
// # What may be deleted
//
// CollectGarbage (the command line's checkpoints gc) keeps the newest
// completed checkpoints of each job and removes older ones and the leftovers
// of failed checkpoints; AuditJob with DeleteOrphans removes unreferenced
// files. Both judge "may be in progress" by one rule (see CollectGarbage),
// never follow symbolic links, and take every job under the same base
// directory into account (ScanReferences), as RetainCheckpoints does: Flink
// jobs restored from one another in CLAIM or LEGACY mode share shared/ files
// (and in CLAIM mode chk-N files) across job ids. A job
// under another base directory is not seen. Files that are neither regular
// files nor directories are never opened (vfs.OpenRegular).
//
// # Locations
//
// A _metadata names files as the job that wrote it reached them: s3a:// for
// what vfskit lists as s3://, a file:// path through a linked ancestor, an
// abfss:// URI for an azblob:// blob. Every decision that compares locations
// (references, orphans, retention, gc's guards, verification, relocation's
// "inside the source", entropy, path mappings) compares canonical paths
// (vfs.Registry.Canonical of the registry in use, each scheme's rule supplied
// by its backend), never strings. A reference that cannot be resolved (a
// scheme that is not registered, such as hdfs://, or vfs.ErrForeign) proves
// nothing: while a completed snapshot under the base holds one, no file with
// the same last name is deleted by DeleteOrphans, CollectGarbage or
// RetainCheckpoints (Orphan.Reason and DiscardReport.Kept name the reference
// and suggest a PathMapping; References.Unresolved lists them).
//
// # Entropy injection
//
// WithEntropyInjection ports Flink's s3.entropy.key and s3.entropy.length: when
// the checkpoint path holds the key, state files get random characters in its
// place (spreading them over an object store's key space) and the metadata path
// has the key removed.
package checkpointstorage
