package vfs

// Op names a file system operation in the one spelling that every layer
// naming operations uses: layer/fault's rules match it, layer/record records
// it and layer/otel names its spans ("vfskit." + Op) and its
// vfskit.operation attribute with it. The spelling is the method's name in
// lower snake_case: Stat is "stat", ReadFile "read_file", CleanTemp
// "clean_temp". DeleteVersion is a Delete (OpDelete); Read, Write and Close
// are the calls on streams (Read covers ReadAt).
type Op string

// The operations of FileSystem and of its optional interfaces.
const (
	OpStat           Op = "stat"
	OpList           Op = "list"
	OpOpen           Op = "open"
	OpCreate         Op = "create"
	OpMkdirs         Op = "mkdirs"
	OpDelete         Op = "delete"
	OpRename         Op = "rename"
	OpReadFile       Op = "read_file"
	OpWriteFile      Op = "write_file"
	OpCopyFile       Op = "copy_file"
	OpCleanTemp      Op = "clean_temp"
	OpRealPath       Op = "real_path"
	OpCreateUnsynced Op = "create_unsynced"
	OpSyncDir        Op = "sync_dir"
)

// The calls on streams.
const (
	OpRead  Op = "read"
	OpWrite Op = "write"
	OpClose Op = "close"
)

// The calls of a RecoverableWriter and of its streams and committers.
const (
	OpRecoverableOpen    Op = "recoverable_open"
	OpRecover            Op = "recover"
	OpRecoverForCommit   Op = "recover_for_commit"
	OpCleanupRecoverable Op = "cleanup_recoverable"
	OpPersist            Op = "persist"
	OpCloseForCommit     Op = "close_for_commit"
	OpCommit             Op = "commit"
	OpCommitAfterRecover Op = "commit_after_recovery"
)
