package blobfs

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

// DefaultListPageSize is the number of keys asked for per listing request: S3's
// maximum.
const DefaultListPageSize = 1000

// Options configures a FileSystem. Only Scheme is required.
type Options struct {
	// Scheme and Authority name the file system: URI() is scheme://authority/.
	Scheme    string
	Authority string

	// Distributed is what IsDistributed reports: true for a bucket other machines
	// see (S3, GCS, Azure), false for mem:// or a local file:// bucket.
	Distributed bool

	// PartSize is the writer's buffer size in bytes: the multipart part size on
	// S3 (at least 5 MiB there). Zero means the driver's default (8 MiB on S3).
	PartSize int
	// Concurrency is the number of parts a writer uploads at once. Zero means the
	// driver's default (5 on S3). A writer holds about PartSize × (Concurrency+1)
	// bytes, whatever the file size.
	Concurrency int

	// ListPageSize is the number of keys per listing request. Zero means
	// DefaultListPageSize (1,000).
	ListPageSize int

	// MaxKeyLength, when positive, is the longest object key in bytes the store
	// accepts (1,024 on S3); longer paths fail with fs.ErrInvalid before any
	// request is sent.
	MaxKeyLength int

	// RefuseBackslash refuses every key holding '\' with fs.ErrInvalid, before
	// any request. Set it for stores that store '\' as '/': there "a\b" would
	// name the object "a/b", which is another object than the one named. A
	// Store whose users can say the store keeps '\' refuses such keys in its
	// CheckKey instead, naming that setting.
	RefuseBackslash bool

	// Store, when set, supplies the store-specific behaviour (exact keys, batch
	// deletes, conditional server-side copies): see Store. The s3 backend sets
	// it; URLFactory sets it from RegisterStore. Nil means the driver's
	// behaviour for everything.
	Store Store

	// DirectoryEntries says that the store keeps an entry for each directory
	// that deleting the directory's last key does not remove at once
	// (SeaweedFS's filer removes an emptied directory minutes later, and its
	// listings show it until then), and that deleting the key of the
	// directory's name removes it. A recursive Delete of p then deletes the key
	// p after everything under "p/" even when its listing did not show an
	// object p: one more request when the keys under "p/" fill their last
	// batch. Without it a listing that shows no object p is trusted, as on
	// AWS S3, GCS or Azure, where a directory is nothing but its keys.
	DirectoryEntries bool

	// BeforeWrite, when set, is given to every blob writer as
	// blob.WriterOptions.BeforeWrite: the driver escape hatch to tune uploads.
	BeforeWrite func(asFunc func(any) bool) error

	// BeforeCopy, when set, is given to every server-side copy as
	// blob.CopyOptions.BeforeCopy: the driver escape hatch to tune copies.
	BeforeCopy func(asFunc func(any) bool) error

	// Strict makes Open HEAD the object, so that a missing file or a directory
	// fails at Open rather than at the first Read, and makes Create's Close list
	// one key under "p/" to refuse a directory at p (vfs.ErrIsDir) before it
	// publishes. Each check costs one request. By default (false) Open + Seek send
	// no request and creating a small file is exactly one PUT, as the vfs contract
	// allows object stores: a missing file or a directory is reported by the first
	// Read, ReadAt or end-relative Seek, and an object store can hold the key "d"
	// next to keys under "d/".
	Strict bool

	// DescribeError, when set, may replace an error from the bucket with a clearer
	// one (the s3 backend names the bucket and endpoint). The result is still
	// classified by the gocloud error code it wraps, if any: an error that wraps
	// none (such as the s3 backend's missing-bucket error) matches no io/fs
	// sentinel.
	DescribeError func(err error) error
}

// FileSystem is a vfs.FileSystem over a *blob.Bucket with object-store semantics:
// Kind is vfs.KindObjectStore, directories are implicit key prefixes, and
// Rename is a copy followed by a delete. It is safe for concurrent use; its
// streams are not. See the package documentation for the request each
// operation sends.
type FileSystem struct {
	b    *blob.Bucket
	opts Options
	root vfs.Path
	uri  *url.URL
	// exact is Options.Store when it sends keys exactly (see keys.go), else nil.
	exact ExactKeys
	// cond is Options.Store when its GETs can be conditional (see version.go),
	// else nil.
	cond ConditionalReader
	// coder is Options.Store when it classifies its errors (see errors.go),
	// else nil.
	coder ErrorCoder
}

var (
	_ vfs.FileSystem = (*FileSystem)(nil)
	_ vfs.CopyFS     = (*FileSystem)(nil)
	_ vfs.ReadFileFS = (*FileSystem)(nil)
)

// New returns a FileSystem over bucket. The FileSystem does not own the bucket:
// Close closes it, but New's caller may also close it when done.
func New(bucket *blob.Bucket, opts Options) (*FileSystem, error) {
	if bucket == nil {
		return nil, fmt.Errorf("blobfs: %w: nil bucket", fs.ErrInvalid)
	}
	if opts.Scheme == "" {
		return nil, fmt.Errorf("blobfs: %w: Options.Scheme is empty (want a URI scheme such as \"mem\")", fs.ErrInvalid)
	}
	if opts.PartSize < 0 || opts.Concurrency < 0 || opts.ListPageSize < 0 || opts.MaxKeyLength < 0 {
		return nil, fmt.Errorf("blobfs: %w: negative size in Options (PartSize %d, Concurrency %d, ListPageSize %d, MaxKeyLength %d)",
			fs.ErrInvalid, opts.PartSize, opts.Concurrency, opts.ListPageSize, opts.MaxKeyLength)
	}
	if opts.ListPageSize == 0 {
		opts.ListPageSize = DefaultListPageSize
	}
	root, err := vfs.NewPath(opts.Scheme + "://" + opts.Authority + "/")
	if err != nil {
		return nil, fmt.Errorf("blobfs: scheme %q and authority %q do not form a URI: %w", opts.Scheme, opts.Authority, err)
	}
	if root.Authority() != opts.Authority {
		return nil, fmt.Errorf("blobfs: %w: authority %q is not a plain host or bucket name", fs.ErrInvalid, opts.Authority)
	}
	f := &FileSystem{b: bucket, opts: opts, root: root, uri: root.URI()}
	f.exact, _ = opts.Store.(ExactKeys)
	f.cond, _ = opts.Store.(ConditionalReader)
	f.coder, _ = opts.Store.(ErrorCoder)
	return f, nil
}

// Bucket returns the underlying bucket.
func (f *FileSystem) Bucket() *blob.Bucket { return f.b }

// Close closes the underlying bucket.
func (f *FileSystem) Close() error { return f.b.Close() }

// URI returns scheme://authority/.
func (f *FileSystem) URI() *url.URL { u := *f.uri; return &u }

// WorkingDirectory is the bucket's root.
func (f *FileSystem) WorkingDirectory() vfs.Path { return f.root }

// HomeDirectory is the bucket's root.
func (f *FileSystem) HomeDirectory() vfs.Path { return f.root }

// Kind is vfs.KindObjectStore.
func (f *FileSystem) Kind() vfs.Kind { return vfs.KindObjectStore }

// IsDistributed reports Options.Distributed.
func (f *FileSystem) IsDistributed() bool { return f.opts.Distributed }

// String describes the file system by its URI.
func (f *FileSystem) String() string { return "blobfs(" + vfs.RedactURL(f.uri) + ")" }

// Stat returns the status of the object at p (one HEAD request) or, when there
// is none, of the directory p (one listing of at most one key under "p/"). The
// root is always a directory; its Stat lists one key to check that the bucket is
// reachable (a missing bucket or refused credentials fail).
func (f *FileSystem) Stat(ctx context.Context, p vfs.Path) (vfs.FileStatus, error) {
	q, k, err := f.qualifiedKey("stat", p)
	if err != nil {
		return vfs.FileStatus{}, err
	}
	if k == "" {
		// The root always exists; one listing checks the bucket is reachable.
		if _, err := f.hasKeysUnder(ctx, ""); err != nil {
			return vfs.FileStatus{}, f.pathError("stat", q, err)
		}
		return vfs.FileStatus{Path: q, IsDir: true}, nil
	}
	st, found, err := f.statObject(ctx, q, k)
	if err != nil || found {
		return st, f.pathError("stat", q, err)
	}
	isDir, err := f.hasKeysUnder(ctx, dirPrefix(k))
	if err == nil && !isDir {
		isDir, err = f.hasHadoopMarker(ctx, k)
	}
	if err != nil {
		return vfs.FileStatus{}, f.pathError("stat", q, err)
	}
	if !isDir {
		return vfs.FileStatus{}, vfs.NewPathError("stat", q, fs.ErrNotExist)
	}
	return vfs.FileStatus{Path: q, IsDir: true}, nil
}

// statObject HEADs the object k; found is false when there is none. A
// folder object (see isFolder) is a directory.
func (f *FileSystem) statObject(ctx context.Context, q vfs.Path, k string) (vfs.FileStatus, bool, error) {
	attrs, err := f.attributes(ctx, k)
	switch {
	case err == nil && isFolder(attrs):
		return vfs.FileStatus{Path: q, ModTime: modTime(attrs.ModTime), IsDir: true}, true, nil
	case err == nil:
		return vfs.FileStatus{Path: q, Size: attrs.Size, ModTime: modTime(attrs.ModTime)}, true, nil
	case f.isNotFound(err):
		return vfs.FileStatus{}, false, nil
	}
	return vfs.FileStatus{}, false, err
}

// modTime truncates an object's modification time to whole seconds: listings
// report milliseconds but HEAD's Last-Modified header only seconds, and Stat and
// List must agree.
func modTime(t time.Time) time.Time { return t.Truncate(time.Second) }

// hasKeysUnder reports whether any key starts with prefix: one listing request
// for one key.
func (f *FileSystem) hasKeysUnder(ctx context.Context, prefix string) (bool, error) {
	objs, _, err := f.listPage(ctx, blob.FirstPageToken, 1, prefix, "")
	if err != nil {
		return false, err
	}
	return len(objs) > 0, nil
}

// List returns the entries of directory dir sorted by name, paging through every
// listing result with the delimiter "/" (one request per ListPageSize entries).
// When nothing is under "dir/", List HEADs dir: a file lists itself, and a
// missing path fails with fs.ErrNotExist. Keys that no vfs.Path can name (a
// directory marker "dir/" itself, empty segments, "." and "..") are left out,
// and so are the temporary objects of recoverable streams (IsRecoverableTemp)
// and the Store's own (TempNamer).
func (f *FileSystem) List(ctx context.Context, dir vfs.Path) ([]vfs.FileStatus, error) {
	q, k, err := f.qualifiedKey("list", dir)
	if err != nil {
		return nil, err
	}
	prefix := dirPrefix(k)
	// Each page's entries go to a slice of the page's size and are joined
	// once at the end: appending to one slice would copy every entry several
	// times over as it grows.
	var pages [][]vfs.FileStatus
	seen := false
	dirs := map[string]bool{}
	temp, _ := f.opts.Store.(TempNamer)
	err = f.listPages(ctx, prefix, "/", func(objs []*blob.ListObject) error {
		entries := make([]vfs.FileStatus, 0, len(objs))
		for _, obj := range objs {
			seen = true
			name, child, isDir, ok := childName(q, prefix, obj.Key, obj.IsDir)
			if ok && !isDir {
				if d, marker := hadoopFolder(name); marker && obj.Size == 0 {
					name, child, isDir, ok = childName(q, prefix, prefix+d+"/", true)
				} else if f.listedFolder(obj) {
					isDir = true
				}
			}
			if !ok || isDir && dirs[name] || !isDir && (IsRecoverableTemp(name) || temp != nil && temp.IsTempName(name)) {
				continue
			}
			st := vfs.FileStatus{Path: child, IsDir: isDir}
			if isDir {
				dirs[name] = true
			} else {
				st.Size, st.ModTime = obj.Size, modTime(obj.ModTime)
			}
			entries = append(entries, st)
		}
		pages = append(pages, entries)
		return nil
	})
	if err != nil {
		return nil, f.pathError("list", q, err)
	}
	if !seen && k != "" {
		st, found, err := f.statObject(ctx, q, k)
		if err != nil {
			return nil, f.pathError("list", q, err)
		}
		if !found {
			if marker, err := f.hasHadoopMarker(ctx, k); err != nil || marker {
				return nil, f.pathError("list", q, err)
			}
			return nil, vfs.NewPathError("list", q, fs.ErrNotExist)
		}
		if st.IsDir {
			return nil, nil // an empty folder
		}
		return []vfs.FileStatus{st}, nil
	}
	var entries []vfs.FileStatus // nil when nothing is listed
	if len(pages) == 1 && len(pages[0]) > 0 {
		entries = pages[0]
	} else {
		entries = slices.Concat(pages...)
	}
	// The store lists in key order, which is name order but where a
	// directory's "/" sorts after a sibling such as "a-b": sort only then.
	byName := func(a, b vfs.FileStatus) int { return strings.Compare(a.Name(), b.Name()) }
	if !slices.IsSortedFunc(entries, byName) {
		slices.SortStableFunc(entries, byName)
	}
	return entries, nil
}

// listPages lists every key under prefix, one request per ListPageSize keys,
// calling fn with each page.
func (f *FileSystem) listPages(ctx context.Context, prefix, delimiter string, fn func([]*blob.ListObject) error) error {
	token := blob.FirstPageToken
	for range maxPages {
		objs, next, err := f.listPage(ctx, token, f.opts.ListPageSize, prefix, delimiter)
		if err != nil {
			return err
		}
		if err := fn(objs); err != nil {
			return err
		}
		if len(next) == 0 {
			return nil
		}
		token = next
	}
	return fmt.Errorf("listing %q did not end after %d pages", prefix, maxPages)
}

// maxPages bounds a listing loop against a store that never stops paging.
const maxPages = 1 << 30

// Mkdirs sends no request: directories are implicit prefixes on an object store,
// so p exists as soon as a file is created under it. It only validates p.
func (f *FileSystem) Mkdirs(ctx context.Context, p vfs.Path) error {
	_, _, err := f.qualifiedKey("mkdirs", p)
	return err
}
