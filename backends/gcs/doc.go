// Package gcs serves Google Cloud Storage as vfskit file systems. It registers
// the scheme gs in vfs's default registry, so a blank import enables it:
//
//	import _ "github.com/vfskit/vfskit/backends/gcs"
//
//	fsys, err := vfs.Get(ctx, "gs://my-bucket/")
//
// The engine is blobfs (object-store semantics, request-frugal streaming, see
// its package documentation) over gocloud.dev/blob/gcsblob.
//
// # URLs
//
// gs://BUCKET/path/to/object names the object whose name is the path without
// its leading "/": gs://logs/2026/app.log is the object "2026/app.log" in the
// bucket logs, as gsutil and gcloud storage name it. The authority is the
// bucket; a URI without one, with user info, or with a bucket name GCS cannot
// hold fails with fs.ErrInvalid naming it. Object names longer than 1,024 bytes
// fail with fs.ErrInvalid before any request.
//
// The first use of a bucket may carry gocloud's query parameters
// (QueryParameters), for example gs://public-data/?anonymous=true for a bucket
// readable without credentials.
//
// Object names are exact: the name vfskit writes is the name gsutil, gcsfs and
// Hadoop's connector list, and every name they wrote is listed, read, copied
// and removed by vfskit as it is (line breaks, "../" and text such as
// "__0x41__" included), though gocloud's driver would store some of these
// escaped: the store's hooks send every name exactly (blobfs.ExactKeys).
// Objects that earlier versions of vfskit wrote under escaped names
// ("__0x0a__") keep them, and are reached by those names (see
// docs/schemes.md to rename them).
//
// # Configuration
//
// Credentials are Google's Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's user credentials, the metadata
// server). STORAGE_EMULATOR_HOST=host:port sends every request to an emulator
// such as fake-gcs-server, without credentials, in plain HTTP
// (https://host:port for one that speaks TLS); the tests run the whole
// conformance suite that way.
//
// # Timeouts and retries
//
// Every request whose context has no deadline fails when the server makes no
// progress for Options.RequestTimeout (30 s; the query parameter
// request_timeout on a bucket's first use, such as ?request_timeout=2m): no
// response headers, no request body bytes taken, no response body bytes while
// a Read waits. The error names the request and the setting, matches
// context.DeadlineExceeded and is not retried. The storage client's retryer
// tries a throttled or failed request MaxAttempts (10) times with backoffs
// from 200 ms to 5 s, and a refused connection 5 times with backoffs of at
// most 1 s (within about 4 s). Credentials are looked up when a bucket is
// first used: without any, opening fails with a *CredentialsError naming the
// variables to set. Errors a user must act on (a missing bucket, refused
// credentials, an unreachable endpoint) are one short line; the SDK's text is
// logged at Debug on Options.Logger.
//
// # Semantics
//
// NoOverwrite is a conditional write (ifGenerationMatch=0): of writers racing
// onto one name exactly one wins, and the others fail with fs.ErrExist. Rename
// and a NoOverwrite copy are conditional writes too (a read streamed into a
// conditional write: the bytes pass through this process), so of renames
// racing onto one destination exactly one wins. GCS's rewrite could make the
// copy server-side with ifGenerationMatch=0, but the emulator vfskit is tested
// against (fake-gcs-server 1.56) ignores conditions on rewrites, so that path
// could not be tested against a race and is not taken. Rename reads the
// source's generation first, reads exactly that generation for the copy
// (ifGenerationMatch) and deletes the source only at that generation: a
// version written meanwhile stays (vfs.ErrChanged). A recursive delete deletes object by
// object, a few at a time. A stream reads one version of an object: its GETs
// after the first are conditional on the generation of its first response
// (ifGenerationMatch), so when the object is replaced or deleted meanwhile the
// stream's next read fails with vfs.ErrChanged instead of mixing old and new
// bytes.
//
// vfs.NewRecoverableWriter on a gs:// file system returns Flink's
// RecoverableWriter as Flink's GCS writer does it: each persisted piece is a
// temporary object next to the target (dir/.vfskit-rw-<write id>-<epoch>-<n>-<check>,
// left out of listings: blobfs.IsRecoverableTemp),
// and Commit composes the pieces (each at the generation it was written at)
// into the target server-side, in rounds of MaxComposeSources (32), with the
// stream's commit id in its metadata, then deletes them, after a commit
// marker that records the target's generation, which goes last; a compose
// whose answer was lost is recognised by the commit id, and a commit that
// died after publishing is never published again over a target replaced or
// deleted since. See
// docs/exactly-once.md. Everything else is as documented in blobfs.
package gcs
