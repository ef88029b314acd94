// Package record is a layer that records every call made to the file system
// below it, for tests: which operation, on which path, and with which error.
// It changes nothing: every call, the optional fast paths included
// (vfs.OpenBeneathFS, vfs.ReadFileFS, vfs.WriteFileFS, vfs.CopyFS,
// vfs.TempCleaner, vfs.RealPathFS, vfs.DirSyncer, vfs.RecoverableWriterFS,
// vfs.DeleteVersionFS, vfs.UnnameableFS), reaches the layer below as it came,
// and each is recorded under its own name (OpenBeneath as an open,
// DeleteVersion as a delete), so a test can
// assert how many requests of each kind its code made ("one Create, no
// Stat") and see the paths they named. Names are vfs.Op's ("stat",
// "read_file", "clean_temp"), the ones layer/fault's rules and layer/otel's
// spans use.
//
// Stream calls (Read, Write, Close) are not recorded: the operations that open
// them are. An FS is safe for concurrent use.
package record

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/vfskit/vfskit/layer"
	"github.com/vfskit/vfskit/vfs"
)

// The operation names a Call can have: vfs.Op's spelling ("stat",
// "read_file", "clean_temp"), the one layer/fault's rules and layer/otel's
// spans use too. DeleteVersion is recorded as OpDelete; the calls of a
// recoverable writer under their vfs.Op (vfs.OpPersist…).
const (
	OpStat      = string(vfs.OpStat)
	OpList      = string(vfs.OpList)
	OpOpen      = string(vfs.OpOpen)
	OpCreate    = string(vfs.OpCreate)
	OpMkdirs    = string(vfs.OpMkdirs)
	OpDelete    = string(vfs.OpDelete)
	OpRename    = string(vfs.OpRename)
	OpReadFile  = string(vfs.OpReadFile)
	OpWriteFile = string(vfs.OpWriteFile)
	OpCopyFile  = string(vfs.OpCopyFile)
	OpCleanTemp = string(vfs.OpCleanTemp)
	OpRealPath  = string(vfs.OpRealPath)
	// OpCreateUnsynced and OpSyncDir are vfs.DirSyncer's methods.
	OpCreateUnsynced = string(vfs.OpCreateUnsynced)
	OpSyncDir        = string(vfs.OpSyncDir)
)

// Call is one recorded call.
type Call struct {
	// Op is the operation, one of the Op constants.
	Op string
	// Path is the path the call named (the source for Rename and CopyFile);
	// Target is the destination of Rename and CopyFile, else the zero Path.
	Path, Target vfs.Path
	// Err is what the layer below returned.
	Err error
}

// FS records the calls made to the file system below it.
type FS struct {
	layer.Base
	mu    sync.Mutex
	calls []Call
}

// New returns a recording layer over inner.
func New(inner vfs.FileSystem) *FS { return &FS{Base: layer.Base{Inner: inner}} }

func (f *FS) add(op string, p, target vfs.Path, err error) {
	f.mu.Lock()
	f.calls = append(f.calls, Call{Op: op, Path: p, Target: target, Err: err})
	f.mu.Unlock()
}

// Calls returns the calls recorded so far, in the order they returned.
func (f *FS) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Call(nil), f.calls...)
}

// Counts returns how many calls of each operation were recorded.
func (f *FS) Counts() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := make(map[string]int)
	for _, c := range f.calls {
		n[c.Op]++
	}
	return n
}

// Count returns how many calls of op were recorded.
func (f *FS) Count(op string) int { return f.Counts()[op] }

// Reset forgets every recorded call and returns the counts it had.
func (f *FS) Reset() map[string]int {
	n := f.Counts()
	f.mu.Lock()
	f.calls = nil
	f.mu.Unlock()
	return maps.Clone(n)
}

// Stat records and forwards the call.
func (f *FS) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	st, err := f.Base.Stat(ctx, p)
	f.add(OpStat, p, vfs.Path{}, err)
	return st, err
}

// List records and forwards the call.
func (f *FS) List(ctx context.Context, dir vfs.Path) ([]vfs.FileStatus, error) {
	l, err := f.Base.List(ctx, dir)
	f.add(OpList, dir, vfs.Path{}, err)
	return l, err
}

// Open records and forwards the call.
func (f *FS) Open(ctx context.Context, p vfs.Path) (vfs.InputStream, error) {
	in, err := f.Base.Open(ctx, p)
	f.add(OpOpen, p, vfs.Path{}, err)
	return in, err
}

// OpenBeneath records (as OpOpen of dir/rel) and forwards the call. Over a
// file system without the way (layer.CanOpenBeneath) it fails with
// errors.ErrUnsupported, unrecorded.
func (f *FS) OpenBeneath(ctx context.Context, dir vfs.Path, rel string) (vfs.InputStream, error) {
	if !layer.CanOpenBeneath(f.Inner) {
		return f.Base.OpenBeneath(ctx, dir, rel) // unsupported: not recorded
	}
	in, err := f.Base.OpenBeneath(ctx, dir, rel)
	f.add(OpOpen, dir.Join(rel), vfs.Path{}, err)
	return in, err
}

// Create records and forwards the call.
func (f *FS) Create(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Base.Create(ctx, p, mode)
	f.add(OpCreate, p, vfs.Path{}, err)
	return out, err
}

// CreateUnsynced records and forwards the call.
func (f *FS) CreateUnsynced(ctx context.Context, p vfs.Path, mode vfs.WriteMode) (vfs.OutputStream, error) {
	out, err := f.Base.CreateUnsynced(ctx, p, mode)
	f.add(OpCreateUnsynced, p, vfs.Path{}, err)
	return out, err
}

// SyncDir records and forwards the call.
func (f *FS) SyncDir(ctx context.Context, dir vfs.Path) error {
	err := f.Base.SyncDir(ctx, dir)
	f.add(OpSyncDir, dir, vfs.Path{}, err)
	return err
}

// Mkdirs records and forwards the call.
func (f *FS) Mkdirs(ctx context.Context, p vfs.Path) error {
	err := f.Base.Mkdirs(ctx, p)
	f.add(OpMkdirs, p, vfs.Path{}, err)
	return err
}

// Delete records and forwards the call.
func (f *FS) Delete(ctx context.Context, p vfs.Path, recursive bool) error {
	err := f.Base.Delete(ctx, p, recursive)
	f.add(OpDelete, p, vfs.Path{}, err)
	return err
}

// DeleteVersion records (as OpDelete) and forwards the call.
func (f *FS) DeleteVersion(ctx context.Context, p vfs.Path, v vfs.Version) error {
	err := f.Base.DeleteVersion(ctx, p, v)
	f.add(OpDelete, p, vfs.Path{}, err)
	return err
}

// Rename records and forwards the call.
func (f *FS) Rename(ctx context.Context, src, dst vfs.Path) error {
	err := f.Base.Rename(ctx, src, dst)
	f.add(OpRename, src, dst, err)
	return err
}

// ReadFile records and forwards the call.
func (f *FS) ReadFile(ctx context.Context, p vfs.Path) ([]byte, error) {
	b, err := f.Base.ReadFile(ctx, p)
	f.add(OpReadFile, p, vfs.Path{}, err)
	return b, err
}

// WriteFile records and forwards the call.
func (f *FS) WriteFile(ctx context.Context, p vfs.Path, data []byte, mode vfs.WriteMode) error {
	err := f.Base.WriteFile(ctx, p, data, mode)
	f.add(OpWriteFile, p, vfs.Path{}, err)
	return err
}

// CopyFile records and forwards the call (Path is the source, Target the
// destination).
func (f *FS) CopyFile(ctx context.Context, dst, src vfs.Path, mode vfs.WriteMode) (int64, error) {
	n, err := f.Base.CopyFile(ctx, dst, src, mode)
	f.add(OpCopyFile, src, dst, err)
	return n, err
}

// CleanTemp records and forwards the call.
func (f *FS) CleanTemp(ctx context.Context, dir vfs.Path, cutoff time.Time, dryRun bool) ([]vfs.Path, error) {
	ps, err := f.Base.CleanTemp(ctx, dir, cutoff, dryRun)
	f.add(OpCleanTemp, dir, vfs.Path{}, err)
	return ps, err
}

// RealPath records and forwards the call.
func (f *FS) RealPath(ctx context.Context, p vfs.Path) (vfs.Path, error) {
	r, err := f.Base.RealPath(ctx, p)
	f.add(OpRealPath, p, vfs.Path{}, err)
	return r, err
}
