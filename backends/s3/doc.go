// Package s3 serves Amazon S3 and S3-compatible stores (SeaweedFS, MinIO, Ceph,
// R2, ...) as vfskit file systems. It registers the schemes s3, s3a and s3p in
// vfs's default registry, as Flink does, so a blank import enables it:
//
//	import _ "github.com/vfskit/vfskit/backends/s3"
//
//	fsys, err := vfs.Get(ctx, "s3://my-bucket/")
//
// The engine is blobfs (object-store semantics, request-frugal streaming, see its
// package documentation) over gocloud.dev/blob/s3blob with an aws-sdk-go-v2 S3
// client.
//
// # URLs
//
// s3://BUCKET/path/to/key, s3a://BUCKET/... and s3p://BUCKET/... name the object
// whose key is the path without its leading "/": s3://logs/2026/app.log is the key
// "2026/app.log" in the bucket logs. The authority is the bucket; a URI without
// one, or with an invalid bucket name, fails with fs.ErrInvalid naming it.
// Keys longer than 1,024 bytes fail with fs.ErrInvalid before any request.
//
// The first use of a bucket may carry query parameters that configure its file
// system (the registry caches one per bucket):
//
//	s3://my-bucket/?region=eu-west-1
//	s3://my-bucket/?profile=analytics
//	s3://my-bucket/?endpoint=http://127.0.0.1:8333&use_path_style=true
//
// # Configuration
//
// Credentials, region and endpoint come from the AWS SDK's default chain: the
// environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL), the shared
// config and credentials files with their profiles, SSO, web identity and
// instance roles. Options, set per process with SetOptions, override them; query
// parameters override both. Without any region, us-east-1 is used.
//
// Path-style addressing (http://endpoint/bucket/key) is used when
// VFSKIT_S3_PATH_STYLE=true, when Options.PathStyle or use_path_style=true say
// so, and automatically for an endpoint whose host is an IP address or
// localhost. For an endpoint outside amazonaws.com, request checksums are sent
// only where S3 requires them (many S3-compatible stores reject the SDK's
// default trailing checksums) unless AWS_REQUEST_CHECKSUM_CALCULATION says
// otherwise.
//
// # Reliability
//
// Throttling (503 SlowDown, 429), 5xx answers, cut connections and S3's
// ConditionalRequestConflict are retried by the SDK's standard retryer with
// jittered exponential backoff (at most Options.RetryMaxBackoff, 20 s, between
// attempts), up to Options.MaxAttempts (10) attempts, without a client-side
// retry quota: with a fifth of all requests throttled a request fails about
// once in ten million, and a server restart of a few seconds is ridden out.
// Two configuration mistakes are not waited out: a refused connection (nobody
// listens on the endpoint's port) is tried 5 times with backoffs of at most
// 1 s, so it fails within about 4 s while a restarting server is still
// ridden out, and an https:// endpoint on a plain-HTTP port fails at once.
//
// Every request whose context has no deadline gets a default timeout,
// Options.RequestTimeout (30 s): a request that makes no progress for that long
// (no response headers, no request body bytes taken, no response body bytes
// while a Read waits) fails with a *TimeoutError naming the request and the
// setting. It matches context.DeadlineExceeded and is not retried, so a stalled
// server costs a caller that passed context.Background() 30 s, not forever. A
// slow but steady transfer never times out, and a context with a deadline is
// left alone. Raise RequestTimeout for a store that answers a large
// server-side copy only when it is done (SeaweedFS does; S3 answers at once),
// or set it negative to turn it off.
//
// A lost answer does not lie: a conditional PUT, CompleteMultipartUpload or
// CopyObject whose answer was lost and whose retry met its own object succeeds,
// and someone else's object still fails with fs.ErrExist (blobfs's write ids,
// one HEAD on that path only). What a lost answer costs depends on how it is
// lost: on a connection that is cut (a reset, as from a dead server or a
// middlebox) the request is retried after the backoff (under 50 ms before a
// first retry), so the write returns within milliseconds; on a connection
// that stays open and silent the request fails after RequestTimeout and is
// not retried, and that HEAD then finds the write's own object, so the write
// still succeeds, RequestTimeout (30 s) later.
//
// Rename copies with If-None-Match: *, so of several renames racing onto one
// destination exactly one wins and the others keep their sources. (A store that
// answers that header with 501 Not Implemented gets an unconditional copy:
// racing renames then leave the last writer's bytes; one that ignores it, as
// gofakes3 does, behaves the same.) Rename's copy also carries
// x-amz-copy-source-if-match with the source's ETag, and its delete If-Match
// with the same ETag: a version written to the source while the rename runs
// stays there (vfs.ErrChanged).
//
// A stream reads one version of an object: the GETs after its first carry
// If-Match with the ETag of its first response (GET or HEAD), so when another
// client replaces or deletes the object meanwhile, the stream's next Read
// after a Seek, or ReadAt, fails with vfs.ErrChanged (S3 answers 412
// Precondition Failed) and never returns a mix of old and new bytes. The
// response's ETag is also compared, for servers that ignore If-Match (gofakes3
// does; SeaweedFS honours it). No request is added.
//
// A CreateMultipartUpload whose answer was lost would leave an upload nobody
// knows of: when one needed a retry, the part-less uploads of the same key
// started during the call are aborted. A multipart upload keeps a marker
// object next to its target while it runs (UploadMarkerPrefix), so the
// upload of a process that died is recognised as vfskit's and removed by
// vfs.CleanTemp (the CLI's clean-temp) once older than its age; another
// tool's uploads and a recoverable stream's are never touched. The writer
// deletes the marker once its upload is completed, aborted or gone (a
// completion whose answer was lost, NoSuchUpload to the abort), on a context
// of its own, so a caller's context that ended meanwhile does not keep it;
// the marker's PUT is not given up half-way either, so it cannot reach the
// server after that DELETE (unless the server holds it past 30 s). When the
// DELETE still fails after the client's retries (the server unreachable),
// the marker stays: the write's result is unchanged, Options.Logger gets a
// warning naming it (MarkerLeftMessage), and vfs.CleanTemp removes it. (On AWS, a
// bucket lifecycle rule AbortIncompleteMultipartUpload is a good backstop
// too.) Streams hold no goroutine or connection after Close,
// and a stream whose context ends is released without Close, its multipart
// upload aborted; Close is otherwise required (there is no finalizer). See
// blobfs's "Faults" section and docs/reliability.md.
//
// # Uploads
//
// Files are streamed by the backend's own uploader (not gocloud's writer and
// the SDK's transfer manager, which copy each body into a growing buffer and
// hold Concurrency+2 part buffers): up to Options.PartSize (8 MiB) the bytes
// go into one buffer (a power of two from 64 KiB, less than twice the file,
// at most the part size) that Close sends as one PUT straight from it; a
// larger file is a multipart upload whose parts are sent from their buffers
// as they fill, Options.Concurrency (5) at once, while Write fills one more
// buffer, so memory stays at PartSize × (Concurrency+1) whatever the file size
// (when that buffer is full too, Write waits for a part to finish). The one
// copy is from Write's argument into a buffer. Buffers are reused across
// uploads (files written one after another, such as a checkpoint's states,
// fill the same few) and released by the garbage collector when idle (a
// sync.Pool per capacity); a buffer is reused only once no request can read
// it: each request's body is a reader that is fenced when the SDK call
// returns, so a late read by the HTTP transport (which may read a body after
// the response arrived) gets an error, never the next file's bytes. A failed,
// cancelled or aborted upload publishes
// nothing and its multipart upload is aborted (on a fresh context, so
// cancelling the Create context still aborts it); under NoOverwrite the PUT, or
// the CompleteMultipartUpload, carries If-None-Match: *.
//
// Buckets that blobfs.URLFactory or blobfs.RegisterURL open from gocloud
// s3:// bucket URLs (this package registers its Store for them) upload and
// list the same way, with the client gocloud's s3blob driver built from the
// URL, in parts of the blobfs.Options' PartSize and Concurrency (zero: 8 MiB
// and 5): the URL's client parameters (region, endpoint, profile,
// use_path_style, request_checksum_calculation, ...) apply as they do to the
// driver, and ssetype and kmskeyid are sent with every PutObject and
// CreateMultipartUpload, as the driver sends them (its server-side copies
// keep them too). A parameter this package does not know (one a later gocloud
// may add) leaves uploads and listings to the driver, which honours it.
//
// # Requests
//
// Mkdirs sends nothing; Stat is one HEAD (plus a one-key listing for a
// directory); List is one ListObjectsV2 per 1,000 entries; a recursive Delete
// is its listing pages plus one DeleteObjects per 1,000 keys; Copy and Rename
// copy server-side (Rename: a HEAD, a CopyObject and a conditional
// DeleteObject per object). Open and Seek send nothing (a missing file or a directory
// is reported by the first Read, as the vfs contract allows object stores) and
// a small file is exactly one PUT, with no HEAD or LIST. Options.Strict adds
// one request to each: Open HEADs the object and Create's Close lists one key
// to refuse a directory at the path. The package tests count these requests
// against SeaweedFS and gofakes3.
//
// # Errors and secrets
//
// A missing bucket is a *BucketNotFoundError naming the bucket and the endpoint
// (not fs.ErrNotExist: it is a configuration error). Refused credentials and
// access denied name the bucket and the endpoint too. No secret ever appears in
// an error, a log line or a String (Options.String hides credentials).
//
// # Recoverable writer
//
// vfs.NewRecoverableWriter on an s3:// file system returns Flink's
// RecoverableWriter as a multipart upload to the target key: parts are
// uploaded as they fill (memory bounded as for Create); Persist uploads the
// buffered bytes as a part when they reach 5 MiB and otherwise stores them
// (the tail) as a temporary object next to the target, waits for every part,
// and the token records the upload id, the parts (numbers, ETags, checksums)
// and the tail. After a Persist whose interval held fewer than Concurrency
// parts, the next interval's parts are cut smaller (at least 5 MiB, within the
// first 1,000 parts) so that it uploads on every connection; Recover
// reads the tail back; CloseForCommit uploads the rest as the last part;
// Commit completes the upload (an empty stream's too: one part of no bytes),
// and a completion whose answer was lost is recognised by the commit id of
// the object at the stream's size (one HEAD); an upload that is gone writes
// nothing (fs.ErrNotExist); CleanupRecoverableState
// deletes the token's tail. Temporary objects are named
// dir/.vfskit-rw-<write id>-<epoch>-<n>-<check> (blobfs.IsRecoverableTemp; listings
// leave them out) and carry
// the metadata vfskit-recoverable (the target's key) and, on a tail,
// UploadIDMetadata (the upload's id). The upload has no marker object, so
// vfs.CleanTemp (`vfskit clean-temp`) never aborts it, and never deletes a
// temporary object either: a token may still need them. A stream that is given
// up leaves its upload until a bucket lifecycle rule for incomplete multipart
// uploads (or another S3 client) aborts it, and each tail until
// CleanupRecoverableState with its token deletes it. That rule must outlast the
// recovery window: an aborted upload cannot be recovered or committed.
// docs/exactly-once.md has the details.
//
// # Local server
//
// `make s3-server` (scripts/s3-server.sh) starts the pinned SeaweedFS on
// 127.0.0.1:8333 with a bucket named vfskit and prints the variables to export.
package s3
