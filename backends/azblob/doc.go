// Package azblob serves Azure Blob Storage as vfskit file systems. It
// registers the scheme azblob in vfs's default registry, so a blank import
// enables it:
//
//	import _ "github.com/vfskit/vfskit/backends/azblob"
//
//	fsys, err := vfs.Get(ctx, "azblob://my-container/")
//
// The engine is blobfs (object-store semantics, request-frugal streaming, see
// its package documentation) over gocloud.dev/blob/azureblob.
//
// # URLs
//
// azblob://CONTAINER/path/to/blob names the block blob whose name is the path
// without its leading "/": azblob://logs/2026/app.log is the blob
// "2026/app.log" in the container logs of the storage account. The authority
// is the container; the account comes from the configuration. A URI without a
// container, with user info, or with a container name Azure cannot hold fails
// with fs.ErrInvalid naming it. Blob names longer than 1,024 bytes fail with
// fs.ErrInvalid before any request.
//
// Flink's and Hadoop's URIs of a container are served too (HadoopSchemes):
// abfs[s]://CONTAINER@ACCOUNT.dfs.core.windows.net/path and
// wasb[s]://CONTAINER@ACCOUNT.blob.core.windows.net/path open CONTAINER of
// the configured account (Account) and are the same objects as
// azblob://CONTAINER/path (Identity, vfs.Canonical); a URI of another account
// is foreign (vfs.ErrForeign): it is never opened, nor taken for a blob of
// this one.
//
// The first use of a container may carry gocloud's query parameters
// (QueryParameters): storage_account, domain, protocol, cdn, localemu.
//
// Blob names are exact: the name vfskit writes is the name the Azure SDK, the
// portal, Hadoop's ABFS and adlfs list, and every name they wrote is listed,
// read, copied and removed by vfskit as it is ('"', '#', '%', '?', control
// characters, "../" and text such as "__0x23__" included). gocloud's driver
// would store some of these escaped ("__0x23__" for '#'); the container
// clients this package makes send the names exactly. Azure stores '\' in a
// name as '/', so a path holding '\' fails with fs.ErrInvalid before any
// request. Blobs that earlier versions of vfskit wrote under escaped names
// keep them, and are reached by those names (see docs/schemes.md to rename
// them).
//
// # Configuration
//
// Credentials and the account come from the environment, as gocloud's
// azureblob reads it: AZURE_STORAGE_CONNECTION_STRING (a connection string,
// the way to reach Azurite or another emulator), or AZURE_STORAGE_ACCOUNT with
// AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN, or else Azure's default
// credential chain (azidentity: environment, workload identity, managed
// identity, Azure CLI). The tests run the whole conformance suite against
// Azurite with its development account.
//
// # Timeouts and retries
//
// Every request whose context has no deadline fails when the server makes no
// progress for Options.RequestTimeout (30 s; the query parameter
// request_timeout on a container's first use, such as ?request_timeout=2m):
// no response headers, no request body bytes taken, no response body bytes
// while a Read waits. The error names the request and the setting, matches
// context.DeadlineExceeded and is not retried. azcore's retry policy retries
// a throttled or failed request, or a failed connection, MaxRetries (4) times
// with backoffs of at most 1 s, so a refused connection fails within about
// 4 s; an https:// endpoint on a plain-HTTP port fails at once. Without a
// connection string, an account or credentials, opening fails with a
// *CredentialsError naming the variables to set. Errors a user must act on (a
// missing container, refused credentials, an unreachable endpoint) and every
// other error answer of the service are one short line; the SDK's multi-line
// text is logged at Debug on Options.Logger.
//
// # Semantics
//
// NoOverwrite is a conditional write (If-None-Match: *): of writers racing onto
// one name exactly one wins, and the others fail with fs.ErrExist. Rename and
// a NoOverwrite copy are conditional server-side copies (Copy Blob with
// If-None-Match: *, made through gocloud's copy hook: the bytes stay in the
// storage account), so of renames racing onto one destination exactly one
// wins; the copy carries the write id that lets a retry after a lost answer
// recognise its own blob. Rename's copy is also conditional on the source's
// ETag (x-ms-source-if-match) and its delete on the same ETag (If-Match): a
// version written to the source meanwhile stays (vfs.ErrChanged). A
// recursive delete deletes blob by blob, a few
// at a time. A stream reads one version of a blob: its GETs after the first
// carry If-Match with the ETag of its first response, so when the blob is
// replaced or deleted meanwhile the stream's next read fails with
// vfs.ErrChanged instead of mixing old and new bytes.
//
// vfs.NewRecoverableWriter on an azblob:// file system returns Flink's
// RecoverableWriter as blocks staged on the target blob (Put Block) as they
// fill and at each Persist; the token lists the block ids, and Commit puts the
// block list with the stream's commit id in the blob's metadata (a commit
// whose answer was lost is recognised by it; an empty stream stages one block
// of no bytes, so its commit consumes staged blocks too). Azure discards uncommitted blocks after
// seven days or when anyone commits the blob, which bounds the recovery
// window. See
// docs/exactly-once.md. Everything else is as documented in blobfs.
package azblob
