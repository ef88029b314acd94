package vfs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
)

// OverwritePolicy says what CopyTree does with a destination file that exists.
type OverwritePolicy int

const (
	// OverwriteNever fails the copy with fs.ErrExist at the first destination
	// file that exists (it is kept; the copy is undone). The zero value.
	OverwriteNever OverwritePolicy = iota
	// OverwriteAlways replaces destination files.
	OverwriteAlways
	// OverwriteSkip keeps destination files that exist and copies the rest
	// (cp --update=none); the kept ones are listed in CopyResult.Skipped.
	OverwriteSkip
	// OverwriteOlder replaces a destination file only when it is older than
	// the source file (its modification time is earlier), and keeps it
	// otherwise (cp --update=older), listing it in CopyResult.Skipped.
	OverwriteOlder
)

// LinkPolicy says what CopyTree does with symbolic links below the source.
type LinkPolicy int

const (
	// LinksSkip copies no link and nothing a link leads to; the links are
	// listed in CopyResult.Links. The zero value.
	LinksSkip LinkPolicy = iota
	// LinksRefuse fails the copy, before anything is copied, when the source
	// holds a link (a move that would leave it behind, for example).
	LinksRefuse
	// LinksFollow copies what links lead to, as the files and directories
	// they are; a link back into the tree fails with ErrLinkLoop before
	// anything is copied.
	LinksFollow
)

// ErrLinkRefused is wrapped (with fs.ErrInvalid) in the error of a CopyTree
// or MoveTree with LinksRefuse that met a symbolic link.
var ErrLinkRefused = errors.New("symbolic link refused")

// DefaultCopyConcurrency is how many files CopyTree copies at a time unless
// CopyOptions.Concurrency says otherwise.
const DefaultCopyConcurrency = 8

// CopyOptions tunes CopyTree and MoveTree. The zero value copies 8 files at
// a time, fails on an existing destination file and skips links.
type CopyOptions struct {
	// Concurrency is how many files are copied at a time; 0 means
	// DefaultCopyConcurrency.
	Concurrency int
	// Ranges is how many ranges of one large file (32 MiB or more) are read
	// at a time, where the source stream can read ranges and the
	// destination stream write them (RangeReader, RangeWriter: an object
	// store to disk); 0 means DefaultCopyRanges, 1 reads every file as one
	// stream.
	Ranges int
	// Overwrite is the policy for destination files that exist.
	Overwrite OverwritePolicy
	// Links is the policy for symbolic links below the source.
	Links LinkPolicy
	// Filter, when set, is asked about every file and directory below the
	// source (rel is its '/'-separated path relative to the source); false
	// leaves it (and, for a directory, everything below it) out.
	Filter func(rel string, st FileStatus) bool
	// Progress, when set, is called once the source was listed (with the
	// totals and nothing done) and then as bytes are copied and files
	// finish. Calls do not overlap; keep them short.
	Progress func(CopyProgress)
	// KeepOnCancel keeps, when ctx is cancelled, the files copied whole so
	// far (and the directories made) instead of undoing the copy: CopyTree
	// then returns its result along with the error, so that a copy that was
	// interrupted can be finished by another one with OverwriteSkip. A file
	// being copied when the cancel came is not published. MoveTree ignores
	// it (a cancelled move is undone).
	KeepOnCancel bool
}

// CopyProgress is how far a CopyTree is.
type CopyProgress struct {
	Files, TotalFiles int
	Bytes, TotalBytes int64
}

// CopiedFile is one file CopyTree copied.
type CopiedFile struct {
	// Src and Dst are the source and destination paths, qualified.
	Src, Dst Path
	// Size is the number of bytes copied.
	Size int64
	// Version is the version of the source whose bytes were copied, as the
	// stream told it (StreamVersion); Changed says the source changed while
	// it was being read (its version before and after the read differ), so
	// the copy proves nothing about what is at Src now. MoveTree fills them;
	// CopyTree leaves them zero.
	Version Version
	Changed bool
	// Written is the version of the file the copy published at Dst, as the
	// writer told it (WrittenVersion: the store's answer to the write, no
	// request) or, where it cannot, as read back just after:
	// CopyResult.Undo deletes the file only while it is still this version.
	// Zero when it could not be told (Undo then leaves the file).
	Written Version
}

// CopyResult is what CopyTree did.
type CopyResult struct {
	// Src and Dst are the source and the destination, qualified.
	Src, Dst Path
	// Files are the files copied, in the source's lexical order.
	Files []CopiedFile
	// Bytes is the total of Files' sizes.
	Bytes int64
	// Dirs are the directories CopyTree created at the destination (those
	// that existed are not listed), parents first.
	Dirs []Path
	// Skipped are destination files that existed and were kept
	// (OverwriteSkip, OverwriteOlder).
	Skipped []Path
	// Links are the symbolic links below the source that were not followed
	// (LinksSkip).
	Links []Path
	// SrcDirs are the directories below the source (and the source itself,
	// when a directory) that were copied, parents first.
	SrcDirs []Path
	// Unnameable are keys below the source that no Path names
	// (CheckNameable), exactly as the store spells them (up to 20), which
	// were not copied: for CopyTree, those found before the copy; for
	// MoveTree, those found at the source once it deleted what it moved
	// (written there while the move ran; they stay there).
	Unnameable []string

	dstFS FileSystem
}

// Undo deletes what the copy wrote: every file in Files that is still the
// version the copy wrote (CopiedFile.Written, through DeleteVersion), and then
// every directory in Dirs that this leaves empty (deepest first, non-recursive
// deletes, so a directory that holds anything else is kept). A file written
// again since the copy wrote it is left, and the error names it (wrapping
// ErrChanged); a file already gone is no error. A destination file that the
// copy replaced (OverwriteAlways, OverwriteOlder) is deleted, not restored.
func (r *CopyResult) Undo(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	var errs []error
	for _, f := range r.Files {
		err := NewPathError("delete", f.Dst, fmt.Errorf("%w: the version the copy wrote is unknown; left in place", ErrChanged))
		if f.Written != (Version{}) {
			err = DeleteVersion(ctx, r.dstFS, f.Dst, f.Written)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, d := range slices.Backward(r.Dirs) {
		if err := r.dstFS.Delete(ctx, d, false); err != nil && !errors.Is(err, ErrDirNotEmpty) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CopyTree copies the file or directory tree srcPath on src to dstPath on dst,
// on any two file systems, and returns what it did. A directory becomes
// dstPath itself (not dstPath/<name>); its files keep their places relative
// to it. It lists the whole source first, so link refusals and loops fail
// before anything is copied, then creates the directories and copies
// opts.Concurrency files at a time: server-side (CopyFS) when src and dst are
// one file system that can, streamed otherwise (always, for MoveTree).
//
// A destination that makes names durable by a directory sync (DirSyncer,
// file://) gets each file as Create would write it but without that sync
// (CreateUnsynced: its contents synced, then published atomically), and
// every directory that received a file is synced once, before CopyTree
// returns (also when it keeps a cancelled copy). A large file whose source
// stream reads ranges (RangeReader, an object store's) and whose destination
// stream writes them (RangeWriter, a file on disk) is read in 16 MiB ranges,
// opts.Ranges at a time.
//
// Where src can open files beneath a directory without following links
// (OpenBeneathFS, file:// on Linux) and links are not followed, every file is
// opened relative to the source root that way: a directory swapped for a
// symbolic link after the listing fails the copy with ErrChanged instead of
// being read through.
//
// A source that holds objects no Path names (CheckNameable: an object
// store's keys with an empty, "." or ".." segment, written by another
// client) is copied without them, as cp -r goes on past a file it cannot
// read: the rest is copied and kept, and CopyTree returns its result with an
// *fs.PathError wrapping fs.ErrInvalid that names those keys (up to 20; it
// says when there are more), also listed in CopyResult.Unnameable. Keys of
// that kind written during the copy are not looked for.
//
// A destination inside the source (or equal to it) on the same file system
// fails with fs.ErrInvalid before anything is done. On any failure the copy
// is undone (CopyResult.Undo) and the error says why (and whether the undo
// failed); the result is then nil, unless ctx was cancelled and
// opts.KeepOnCancel is set: then the copy is kept and returned with the error.
func CopyTree(ctx context.Context, dst FileSystem, dstPath Path, src FileSystem, srcPath Path, opts CopyOptions) (*CopyResult, error) {
	c, err := newTreeCopier(dst, dstPath, src, srcPath, opts, false)
	if err != nil {
		return nil, err
	}
	odd, oddErr := checkNameable(ctx, src, c.srcRoot, "copy", "which a copy cannot read", "they were not copied; the rest was (copy them with the store's own tools)")
	if len(odd) == 0 && oddErr != nil {
		return nil, oddErr
	}
	r, err := c.run(ctx)
	if err != nil || oddErr == nil {
		return r, err
	}
	r.Unnameable = odd
	return r, oddErr
}

// treeCopier is one CopyTree or the copy of a MoveTree.
type treeCopier struct {
	src, dst       FileSystem
	srcRoot        Path
	dstRoot        Path
	opts           CopyOptions
	move           bool // record source versions
	beneath        OpenBeneathFS
	files          []FileStatus
	rels           []string
	dirs           []string // relative paths of directories to create ("" is the root)
	srcDirs        []Path
	links          []Path
	totalBytes     int64
	mu             sync.Mutex
	progress       CopyProgress
	res            *CopyResult
	copied         []CopiedFile // by index of files; Size < 0: not copied
	done           []bool
	skipped        []bool
	sameFileSystem bool
	unsynced       map[Path]bool // directories a file was published in, to sync
}

func newTreeCopier(dst FileSystem, dstPath Path, src FileSystem, srcPath Path, opts CopyOptions, move bool) (*treeCopier, error) {
	op := "copy"
	if move {
		op = "move"
	}
	s, err := Qualify(op, src, srcPath)
	if err != nil {
		return nil, err
	}
	d, err := Qualify(op, dst, dstPath)
	if err != nil {
		return nil, err
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultCopyConcurrency
	}
	c := &treeCopier{src: src, dst: dst, srcRoot: s, dstRoot: d, opts: opts, move: move, sameFileSystem: sameFileSystem(src, dst)}
	if c.sameFileSystem {
		if _, in := d.Rel(s); in {
			return nil, NewPathError(op, d, fmt.Errorf("%w: the destination is the source %s or lies inside it", fs.ErrInvalid, s.Redacted()))
		}
	}
	if b, ok := src.(OpenBeneathFS); ok && opts.Links != LinksFollow {
		c.beneath = b
	}
	return c, nil
}

// plan lists the source.
func (c *treeCopier) plan(ctx context.Context) error {
	wopts := WalkOptions{FollowLinks: c.opts.Links == LinksFollow}
	return WalkWith(ctx, c.src, c.srcRoot, wopts, func(st FileStatus, err error) error {
		if err != nil {
			return err
		}
		rel, _ := st.Path.Rel(c.srcRoot)
		if rel != "" && c.opts.Filter != nil && !c.opts.Filter(rel, st) {
			if st.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		if st.Symlink && c.opts.Links != LinksFollow {
			if c.opts.Links == LinksRefuse {
				return NewPathError("copy", st.Path, fmt.Errorf("%w: %w (nothing was copied)", fs.ErrInvalid, ErrLinkRefused))
			}
			c.links = append(c.links, st.Path)
			if st.IsDir {
				return fs.SkipDir
			}
			return nil
		}
		if st.IsDir {
			c.dirs = append(c.dirs, rel)
			c.srcDirs = append(c.srcDirs, st.Path)
			return nil
		}
		c.files = append(c.files, st)
		c.rels = append(c.rels, rel)
		c.totalBytes += st.Size
		return nil
	})
}

// run plans, makes the directories and copies the files; on failure it
// undoes what it wrote.
func (c *treeCopier) run(ctx context.Context) (*CopyResult, error) {
	if err := c.plan(ctx); err != nil {
		return nil, err
	}
	c.res = &CopyResult{Src: c.srcRoot, Dst: c.dstRoot, Links: c.links, SrcDirs: c.srcDirs, dstFS: c.dst}
	c.copied = make([]CopiedFile, len(c.files))
	c.done = make([]bool, len(c.files))
	c.skipped = make([]bool, len(c.files))
	c.progress = CopyProgress{TotalFiles: len(c.files), TotalBytes: c.totalBytes}
	c.report(0, false)
	err := c.makeDirs(ctx)
	if err == nil {
		err = c.copyFiles(ctx)
	}
	if serr := c.syncDirs(ctx); err == nil {
		err = serr
	}
	for i := range c.files {
		switch {
		case c.done[i]:
			c.res.Files = append(c.res.Files, c.copied[i])
			c.res.Bytes += c.copied[i].Size
		case c.skipped[i]:
			c.res.Skipped = append(c.res.Skipped, c.copied[i].Dst)
		}
	}
	if err != nil {
		if c.opts.KeepOnCancel && !c.move && ctx.Err() != nil {
			return c.res, err
		}
		if uerr := c.res.Undo(ctx); uerr != nil {
			return nil, fmt.Errorf("%w (and undoing the copy to %s failed: %w)", err, c.dstRoot.Redacted(), uerr)
		}
		return nil, err
	}
	return c.res, nil
}

// makeDirs creates the destination directories that do not exist, parents
// first, and records them.
func (c *treeCopier) makeDirs(ctx context.Context) error {
	for _, rel := range c.dirs {
		d := c.dstRoot.Join(rel)
		switch st, err := c.dst.Stat(ctx, d); {
		case err == nil && st.IsDir:
			continue
		case err == nil && c.opts.Overwrite != OverwriteAlways:
			return NewPathError("copy", d, fmt.Errorf("%w: a file is where the directory %s goes", fs.ErrExist, c.srcRoot.Join(rel).Redacted()))
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return err
		}
		if err := c.dst.Mkdirs(ctx, d); err != nil {
			return err
		}
		c.res.Dirs = append(c.res.Dirs, d)
	}
	return nil
}

// copyFiles copies the planned files, opts.Concurrency at a time. The first
// error stops the dispatch of the rest, and the files being copied then are
// let finish rather than cancelled (unless ctx itself ends): a write the
// client gave up on may still be completed by the store, and an object the
// copy does not know it wrote would outlive the undo. Each one that finishes
// is recorded, so the undo removes it at the version it wrote.
func (c *treeCopier) copyFiles(ctx context.Context) error {
	var (
		first error
		once  sync.Once
	)
	stop := make(chan struct{})
	fail := func(err error) {
		once.Do(func() {
			first = err
			close(stop)
		})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(c.opts.Concurrency, max(len(c.files), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := c.copyFile(ctx, i); err != nil {
					fail(err)
				}
			}
		}()
	}
dispatch:
	for i := range c.files {
		select {
		case <-stop:
			break dispatch
		case <-ctx.Done():
			break dispatch
		default:
		}
		select {
		case next <- i:
		case <-stop:
			break dispatch
		case <-ctx.Done():
			break dispatch
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// copyFile copies file i of the plan.
func (c *treeCopier) copyFile(ctx context.Context, i int) error {
	st, rel := c.files[i], c.rels[i]
	d := c.dstRoot.Join(rel)
	if rel == "" {
		d = c.dstRoot
	}
	cf := CopiedFile{Src: st.Path, Dst: d}
	c.copied[i] = cf
	mode := NoOverwrite
	switch c.opts.Overwrite {
	case OverwriteAlways:
		mode = Overwrite
	case OverwriteSkip:
		switch _, err := c.dst.Stat(ctx, d); {
		case err == nil:
			c.skip(i)
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	case OverwriteOlder:
		dst, err := c.dst.Stat(ctx, d)
		switch {
		case err == nil && !dst.IsDir && dst.ModTime.Before(st.ModTime):
			mode = Overwrite
		case err == nil:
			c.skip(i)
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
	}
	published, err := c.transfer(ctx, st, rel, mode, &cf)
	if !published {
		if errors.Is(err, fs.ErrExist) && c.opts.Overwrite != OverwriteNever && mode == NoOverwrite {
			c.skip(i) // created meanwhile: kept, as it would have been
			return nil
		}
		return err
	}
	c.mu.Lock()
	c.copied[i], c.done[i] = cf, true
	c.mu.Unlock()
	if err != nil {
		return err
	}
	c.report(0, true)
	return nil
}

// skip records file i as kept at the destination.
func (c *treeCopier) skip(i int) {
	c.mu.Lock()
	c.skipped[i] = true
	c.mu.Unlock()
	c.report(0, true)
}

// transfer copies one file to cf.Dst and fills cf: Size; for a move, Version
// and Changed; and, once the copy is published, Written: the version the
// writer says it published (WrittenVersion), else the one read back. It
// returns whether the copy was published (then an error is the failure to
// tell its version); an unpublished copy always comes with an error.
func (c *treeCopier) transfer(ctx context.Context, st FileStatus, rel string, mode WriteMode, cf *CopiedFile) (published bool, err error) {
	// A move streams even where the store could copy server-side: the
	// stream tells the exact version whose bytes were copied (an ETag, a
	// generation), which a status before and after a server-side copy
	// cannot prove.
	var out OutputStream
	if fast, ok := c.dst.(CopyFS); ok && c.sameFileSystem && c.beneath == nil && !c.move {
		cf.Size, err = fast.CopyFile(ctx, cf.Dst, st.Path, mode)
		c.report(cf.Size, false)
	} else {
		out, err = c.stream(ctx, st, rel, mode, cf)
	}
	if err != nil {
		return false, err
	}
	if cf.Written, err = WrittenVersion(context.WithoutCancel(ctx), c.dst, cf.Dst, out); err != nil {
		return true, fmt.Errorf("reading the version of %s after writing it: %w", cf.Dst.Redacted(), err)
	}
	return true, nil
}

// stream copies one file through this process (see transfer) and returns
// the output stream, closed.
func (c *treeCopier) stream(ctx context.Context, st FileStatus, rel string, mode WriteMode, cf *CopiedFile) (OutputStream, error) {
	in, err := c.open(ctx, st, rel)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	// The version before the read, unless the stream reads one version
	// only (an object store's: asking before the read costs a HEAD).
	var first Version
	pinned := PinsVersion(in)
	if c.move && !pinned {
		if first, err = StreamVersion(ctx, c.src, st.Path, in); err != nil {
			return nil, err
		}
	}
	n, out, err := c.copyStream(ctx, in, st, cf.Dst, mode)
	cf.Size = n
	if err != nil || !c.move {
		return out, err
	}
	v, err := StreamVersion(ctx, c.src, st.Path, in)
	cf.Version, cf.Changed = v, err != nil || !pinned && !first.Matches(v) || n != v.Size
	return out, nil
}

// open opens the source file st, beneath the source root when it can.
func (c *treeCopier) open(ctx context.Context, st FileStatus, rel string) (InputStream, error) {
	if c.beneath == nil || rel == "" {
		return c.src.Open(ctx, st.Path)
	}
	in, err := c.beneath.OpenBeneath(ctx, c.srcRoot, rel)
	if errors.Is(err, errors.ErrUnsupported) {
		return c.src.Open(ctx, st.Path)
	}
	return in, err
}

// report adds n copied bytes (and a finished file) and calls Progress.
func (c *treeCopier) report(n int64, file bool) {
	if c.opts.Progress == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.progress.Bytes += n
	if file {
		c.progress.Files++
	}
	c.opts.Progress(c.progress)
}

// progressReader reports what is read through it.
type progressReader struct {
	r io.Reader
	c *treeCopier
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.c.report(int64(n), false)
	}
	return n, err
}

// sortDeepestFirst sorts paths so that every path comes before its parents.
func sortDeepestFirst(ps []Path) {
	slices.SortStableFunc(ps, func(a, b Path) int { return cmp.Compare(b.Depth(), a.Depth()) })
}
