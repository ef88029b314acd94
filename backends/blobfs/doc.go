// Package blobfs serves any gocloud.dev/blob bucket (S3, GCS, Azure Blob, memory,
// local directory) as a vfs.FileSystem with object-store semantics: Kind is
// vfs.KindObjectStore, directories are implicit key prefixes, and Rename is a
// server-side copy followed by a delete (not atomic). It is the engine under the
// s3:// (backends/s3), gs:// (backends/gcs) and azblob:// (backends/azblob)
// backends.
//
//	bucket, _ := blob.OpenBucket(ctx, "mem://")
//	fsys, _ := blobfs.New(bucket, blobfs.Options{Scheme: "scratch", Authority: "demo"})
//
// # URLs
//
// A FileSystem serves scheme://authority/ as given in Options. The object key of
// a path is exactly the path without its leading "/": scratch://demo/a/b.txt is
// the key "a/b.txt", so tools that list the bucket (aws s3 ls, gsutil ls) show
// what a user expects. Paths with the scheme and authority left out, and paths
// relative to the root, are accepted; paths of another scheme or authority fail
// with fs.ErrInvalid.
//
// On S3, GCS and Azure (buckets whose Options.Store is the s3, gcs or azblob
// backend's, as those backends make) keys are exact in both directions,
// whoever wrote them: gocloud's drivers escape some keys ("__0x41__"-looking
// text, "../", control characters; on Azure also `\ " # % ?`), so blobfs sends
// every key as the path spells it (ExactKeys) and lists the keys the store
// returns.
// A name any listing shows reaches the same object for Stat, Open, Delete,
// Rename and CopyFile. Names S3 cannot hold fail at write time with
// fs.ErrInvalid: invalid UTF-8, control characters (S3 cannot list them), and
// keys over Options.MaxKeyLength bytes.
//
// Any gocloud bucket URL becomes a vfskit scheme with one call: RegisterURL
// ("gcs", "gs://{authority}", blobfs.Options{}) serves gcs://my-bucket/a/b from
// the GCS bucket my-bucket, and RegisterURL("scratch", "mem://", ...) serves
// scratch:// from memory. Import the gocloud driver (gocloud.dev/blob/gcsblob,
// azureblob, s3blob, memblob, fileblob) so blob.OpenBucket knows its scheme.
// Query parameters given on a URI's first use (gcs://b/?param=v) go to the
// gocloud URL.
//
// # Stores
//
// blobfs links no cloud SDK (a test checks `go list -deps`): everything
// store-specific comes from the scheme's package through Options.Store, an
// interface with optional parts: ExactKeys (request hooks that send keys as
// is), BatchDeleter, ConditionalCopier, ConditionalReader (GETs conditional
// on an object's version), Uploader and Lister (its own upload and listing
// instead of the driver's). s3.Store supplies the first four; the file
// systems of s3.New and the s3:// schemes also upload and list with the S3
// client directly, and so do buckets URLFactory opens from s3:// bucket URLs,
// for which the s3 backend registers its Store with RegisterStore (with the
// URL's encryption; see the s3 package documentation). The gcs and azblob backends supply a Store that is a
// ConditionalReader only; the other drivers need none.
//
// # Requests
//
// Every operation sends as few requests as the object store allows:
//
//   - Mkdirs sends nothing; a directory exists while a key is under it.
//   - Stat is one HEAD for a file and, when there is no object, one listing of
//     one key under "p/" for a directory and, when that is empty, one HEAD of
//     Hadoop's marker "p_$folder$" (the root: one listing, to check the
//     bucket).
//   - List pages through the listing with the delimiter "/" (1,000 keys a page).
//   - Create streams through the bucket's writer (or the Store's Uploader): one PUT for a file smaller than
//     the part size, a multipart upload above it with Options.Concurrency parts in
//     flight (memory is bounded by part size × concurrency, whatever the file
//     size). It sends no HEAD. NoOverwrite is a conditional write
//     (If-None-Match: * on S3), not a check then a write. The object appears
//     only when Close returns nil; a cancelled context, Abort or a failed write
//     publishes nothing and aborts the multipart upload.
//   - Open sends nothing: a missing file or a directory is reported by the
//     first Read or ReadAt. Read GETs from the current offset and streams, Seek
//     only moves the offset (an end-relative Seek HEADs once for the size),
//     ReadAt GETs just the range asked. A reader that seeks around never
//     downloads the whole object.
//   - So Open and Seek (from the start or the current offset) cost no request
//     and a small file is exactly one PUT.
//     Options.Strict adds one request to each: Open HEADs the object (a missing
//     file or a directory fails at Open) and Create's Close lists one key under
//     "p/" to refuse a directory at p.
//   - Delete streams a recursive listing into batched deletes (S3 DeleteObjects,
//     1,000 keys a request, when Options.Store is a BatchDeleter; single deletes
//     on other stores), the first once 100,000 keys are listed or the listing
//     ended (see Names). A non-recursive delete of a non-empty prefix fails with
//     vfs.ErrDirNotEmpty and deletes nothing.
//   - Rename and CopyFile copy server-side. Rename's copies, and a NoOverwrite
//     CopyFile, are conditional (S3 CopyObject with If-None-Match: *; on other
//     drivers a read streamed into a conditional write). Rename costs, per
//     object, a HEAD (its version), the copy of that version and a delete
//     conditional on it (see DeleteVersion).
//
// # Faults
//
// What blobfs guarantees when requests fail, answers are lost or the store
// throttles (each is tested against SeaweedFS through a fault proxy):
//
//   - A write is published whole or not at all. A lost answer does not turn a
//     published write into a failure: every object Create or a conditional copy
//     publishes carries a random write id (metadata WriteIDMetadata), and when
//     the upload fails (a retry that met a failed precondition after its first
//     attempt's answer was lost, NoSuchUpload for a multipart upload already
//     completed, a timeout) one HEAD tells whether the object there is this
//     write's: then Close returns nil; if someone else's object is there,
//     NoOverwrite fails with fs.ErrExist, even when its bytes are identical.
//   - Of several renames racing onto one destination file exactly one wins; the
//     others fail with fs.ErrExist and keep their sources. A rename never
//     replaces an object, and a failed one loses nothing (see Rename).
//   - A rename deletes at the source only the version it copied: a version
//     written to the source while the rename runs stays there with its bytes,
//     and Rename fails with vfs.ErrChanged naming it.
//   - Streams hold nothing after Close: no goroutine, no connection, no
//     multipart upload. Close (or Abort) is required: there is no finalizer.
//     A stream whose context ends is released at once without Close: an
//     output stream's upload stops and its multipart upload is aborted (Close
//     then returns the context's error), and a reader's connection is dropped.
//     A stream neither closed nor cancelled keeps its goroutine, its connection
//     and, for a large write, its multipart upload on the server (until a
//     bucket lifecycle rule removes it).
//   - A failed, cancelled or aborted upload publishes nothing and aborts its
//     multipart upload.
//   - A stream reads one version of an object. Its first response (the first
//     GET, or the HEAD of Options.Strict's Open or of an end-relative Seek)
//     pins the version; when another writer replaces or deletes the object,
//     the stream's next GET (after a Seek, or a ReadAt) fails with a
//     *fs.PathError wrapping vfs.ErrChanged (and fs.ErrNotExist when the object
//     is gone) and returns no byte, instead of a mix of old and new bytes. A
//     GET already streaming keeps streaming its version (one response is one
//     version). With a ConditionalReader Store (s3, gcs, azblob) every later
//     GET is conditional on the pinned version (If-Match: ETag, or GCS's
//     ifGenerationMatch), which the store refuses (a failed precondition), and each
//     response's version is compared with it too; without one (memblob,
//     fileblob, a bucket given to New without a Store) each response's size
//     and modification time are compared with the pinned ones before a byte is
//     returned: there, a replacement of the same size within the same second
//     of a store that keeps whole-second times goes unseen.
//     Pinning adds no request. Reopen the file to read its new version.
//
// # Recoverable writer
//
// FileSystem implements vfs.RecoverableWriterFS: vfs.NewRecoverableWriter
// returns Flink's RecoverableWriter for every bucket. A Store that is a
// RecoverableStore writes the streams its own way (s3: a multipart upload;
// azblob: staged blocks); any other bucket writes each persisted piece as a
// temporary object next to the target (RecoverableTempKey:
// dir/.vfskit-rw-<write id>-<epoch>-<n>-<check>, with the metadata
// RecoverableMetadata; listings leave them out, IsRecoverableTemp) and concatenates the pieces at commit, server-side
// when the Store is a Composer (gcs), else by one streamed upload through the
// process (memblob, fileblob). blobfs seals the tokens for the file system's
// URI, and a commit first HEADs the target: an object with the stream's
// commit id (fresh for each incarnation: Open, or one Recover) at the
// stream's size means the commit already happened, so a repeated or retried
// commit never writes the file again. Otherwise the commit publishes from the
// stream's state, which publishing consumes (an empty stream has state too):
// when that is gone, nothing is written and the commit fails with
// fs.ErrNotExist. Pieces are composed behind a commit marker, so that a
// commit that died after publishing never publishes again over a target
// replaced or deleted since. After the commit the stream's temporary objects
// are deleted (one listing, one batch delete). See docs/exactly-once.md.
//
// # Object-store differences
//
// As the vfs contract allows: an empty directory does not exist; Mkdirs on or
// under a file succeeds; Open of a missing file or a directory succeeds and the
// first read fails; Create does not refuse a path that is also a prefix of other
// keys (unless Options.Strict); Rename is not atomic for readers (they may see
// the source and the destination at once), though racing renames have one
// winner.
//
// # Names
//
// Names are exact and never patterns. A key with an empty, "." or ".."
// segment ("src//empty.txt", "src/./dot.txt", "src/sub/.."), which another
// client may write (GCS and Azure keep them; SeaweedFS refuses or collapses
// them), is a key no vfs.Path can name: "." and ".." resolve and "//"
// collapses in a Path. Such keys are left out of listings (every key a path
// can name is listed, and each listed name reaches its own object), and a
// recursive Delete never deletes one: meeting one, it fails with fs.ErrInvalid
// naming the key, having listed and checked up to 100,000 keys before its
// first delete, so such a tree is refused whole. A directory marker "d/"
// names the directory d, which it makes exist.
package blobfs
