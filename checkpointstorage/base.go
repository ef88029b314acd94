package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/vfskit/vfskit/vfs"
)

// baseStorage is the machinery both storages share (Flink's
// AbstractFsCheckpointStorageAccess): the job id, the default savepoint location,
// pointer resolution and savepoint directory creation.
type baseStorage struct {
	jobID               JobID
	defaultSavepointDir vfs.Path
	opts                options
}

// JobID returns the job whose checkpoints this storage writes.
func (b *baseStorage) JobID() JobID { return b.jobID }

// DefaultSavepointDirectory returns the default savepoint location, or the zero
// Path when none is configured.
func (b *baseStorage) DefaultSavepointDirectory() vfs.Path { return b.defaultSavepointDir }

// HasDefaultSavepointLocation reports whether a default savepoint directory is
// configured.
func (b *baseStorage) HasDefaultSavepointLocation() bool { return !b.defaultSavepointDir.IsZero() }

// ResolveCheckpoint resolves a checkpoint or savepoint pointer; see
// ResolveCheckpointPointer.
func (b *baseStorage) ResolveCheckpoint(ctx context.Context, pointer string) (CompletedCheckpointStorageLocation, error) {
	l, err := resolveCheckpointPointer(ctx, pointer, b.opts)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// JobCheckpointsDir returns <base>/<job id>, the directory a job's checkpoints
// go to.
func JobCheckpointsDir(base vfs.Path, jobID JobID) vfs.Path {
	return base.Join(jobID.String())
}

// CheckpointDir returns <job checkpoints dir>/chk-<checkpointID>.
func CheckpointDir(jobCheckpointsDir vfs.Path, checkpointID int64) vfs.Path {
	return jobCheckpointsDir.Join(CheckpointDirPrefix + itoa(checkpointID))
}

func checkCheckpointID(checkpointID int64) error {
	if checkpointID < 0 {
		return fmt.Errorf("checkpointstorage: Illegal negative checkpoint id: %d.: %w", checkpointID, fs.ErrInvalid)
	}
	return nil
}

// initializeSavepointDir picks and creates savepoint-<job id[:6]>-<12 hex> under
// the given or the default location, trying up to 10 names.
func (b *baseStorage) initializeSavepointDir(ctx context.Context, externalLocationPointer string) (vfs.FileSystem, vfs.Path, error) {
	var base vfs.Path
	switch {
	case externalLocationPointer != "":
		p, err := vfs.NewPath(externalLocationPointer)
		if err != nil {
			return nil, vfs.Path{}, fmt.Errorf("checkpointstorage: invalid savepoint location %q: %w", vfs.RedactURI(externalLocationPointer), err)
		}
		base = p
	case !b.defaultSavepointDir.IsZero():
		base = b.defaultSavepointDir
	default:
		return nil, vfs.Path{}, fmt.Errorf("checkpointstorage: No savepoint location given and no default location configured.: %w", fs.ErrInvalid)
	}
	fsys, err := b.opts.registry.GetPath(ctx, base)
	if err != nil {
		return nil, vfs.Path{}, err
	}
	prefix := savepointDirPrefix + b.jobID.String()[:6] + "-"
	var latest error
	for range maxNameAttempts {
		p := base.Join(prefix + randomString(12, "0123456789abcdef"))
		exists, err := vfs.Exists(ctx, fsys, p)
		if err == nil && exists {
			err = vfs.NewPathError("mkdir", p, fs.ErrExist)
		}
		if err == nil {
			err = fsys.Mkdirs(ctx, p)
		}
		if err == nil {
			return fsys, p.MakeQualified(fsys), nil
		}
		latest = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, vfs.Path{}, fmt.Errorf("checkpointstorage: Failed to create savepoint directory at %s: %w", base.Redacted(), latest)
}

// ResolveCheckpointPointer resolves a checkpoint or savepoint pointer (Flink's
// AbstractFsCheckpointStorageAccess.resolveCheckpointPointer): a directory that
// holds _metadata, or the metadata file itself, on any registered file system.
//
// Errors, with Flink's messages: an empty pointer or one that is not a valid path
// (fs.ErrInvalid); a file system that cannot be reached; a missing pointer
// ("Cannot find checkpoint or savepoint file/directory ...", fs.ErrNotExist); a
// directory without _metadata ("Cannot find meta data file '_metadata' in
// directory '...'. Please try to load the checkpoint/savepoint directly from the
// metadata file instead of the directory.", fs.ErrNotExist).
func ResolveCheckpointPointer(ctx context.Context, pointer string, opts ...Option) (*FsCompletedCheckpointStorageLocation, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	return resolveCheckpointPointer(ctx, pointer, o)
}

func resolveCheckpointPointer(ctx context.Context, pointer string, o options) (*FsCompletedCheckpointStorageLocation, error) {
	if pointer == "" {
		return nil, fmt.Errorf("checkpointstorage: empty checkpoint pointer: %w", fs.ErrInvalid)
	}
	p, err := vfs.NewPath(pointer)
	if err != nil {
		return nil, fmt.Errorf("checkpointstorage: Checkpoint/savepoint path '%s' is not a valid file URI. Either the pointer path is invalid, or the checkpoint was created by a different state backend.: %w", vfs.RedactURI(pointer), err)
	}
	fsys, err := o.registry.GetPath(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("checkpointstorage: Cannot access file system for checkpoint/savepoint path '%s'.: %w", vfs.RedactURI(pointer), err)
	}
	p = p.MakeQualified(fsys)
	status, err := fsys.Stat(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("checkpointstorage: Cannot find checkpoint or savepoint file/directory '%s' on file system '%s'.: %w", vfs.RedactURI(pointer), fsys.URI().Scheme, err)
		}
		return nil, err
	}
	var dir vfs.Path
	metadata := status
	if status.IsDir {
		dir = p
		metadata, err = fsys.Stat(ctx, p.Join(MetadataFileName))
		if err == nil && metadata.IsDir {
			err = vfs.NewPathError("stat", p.Join(MetadataFileName), vfs.ErrIsDir)
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("checkpointstorage: Cannot find meta data file '%s' in directory '%s'. Please try to load the checkpoint/savepoint directly from the metadata file instead of the directory.: %w", MetadataFileName, p.Redacted(), err)
			}
			return nil, err
		}
		metadata.Path = p.Join(MetadataFileName)
	} else {
		metadata.Path = p
		dir = p.Parent()
	}
	return &FsCompletedCheckpointStorageLocation{
		fsys:     fsys,
		dir:      dir,
		metadata: &FileStateHandle{FilePath: metadata.Path, Size: metadata.Size, registry: o.registry},
		pointer:  dir.String(),
	}, nil
}
