package checkpointstorage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/vfskit/vfskit/vfs"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// disposeCheckpointDir deletes the checkpoint directory dir as
// DiscardCheckpoint deletes what it listed (deleteListed, without decoding
// the _metadata): it lists dir (links not followed) and deletes each file
// listed only at the version listed (vfs.DeleteVersion), _metadata first,
// then the directories this empties, without recursion. Whatever stops it
// half-way (a crash, a failed request), a checkpoint that still has its
// _metadata still has all its state. A file written or rewritten meanwhile
// stays, and so does a FIFO, device or socket: the error names them (see
// leftError). A _metadata directory (not a metadata file) makes no
// completed checkpoint: it goes with the rest.
func disposeCheckpointDir(ctx context.Context, fsys vfs.FileSystem, dir vfs.Path) error {
	r := DiscardReport{Dir: dir}
	if err := (&options{}).removeCheckpoint(ctx, fsys, &r, nil, vfs.Version{}, nil); err != nil {
		return err
	}
	err := leftError(r)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Op = "dispose checkpoint"
	}
	return err
}

// errLink is the error for a checkpoint directory that is a symbolic link.
func errLink(op string, p vfs.Path) error {
	return &fs.PathError{Op: op, Path: p.Redacted(),
		Err: fmt.Errorf("a symbolic link, not followed: what it leads to is not this job's: %w", fs.ErrInvalid)}
}
