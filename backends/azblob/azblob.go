package azblob

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob" // also the azblob:// driver of blob.OpenBucket

	"github.com/vfskit/vfskit/backends/blobfs"
	"github.com/vfskit/vfskit/backends/internal/httpguard"
	"github.com/vfskit/vfskit/vfs"
)

// Scheme is the URI scheme this package registers: azblob, as gocloud spells
// it.
const Scheme = "azblob"

// QueryParameters are the query parameters an azblob:// URI may give on a
// container's first use; they are gocloud's (gocloud.dev/blob/azureblob) and
// RequestTimeoutParameter, and are declared with vfs.DeclareQuery.
var QueryParameters = []string{"cdn", "domain", "localemu", "protocol", "storage_account", RequestTimeoutParameter}

// ConnectionStringEnv is the environment variable holding a connection string
// (gocloud's azureblob reads it too).
const ConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"

// MaxKeyLength is the longest blob name Azure accepts, in bytes (1,024
// characters; vfskit counts bytes, which is never more permissive).
const MaxKeyLength = 1024

func init() {
	vfs.Register(Scheme, Factory(Options{}))
	vfs.DeclareQuery(Scheme, QueryParameters...)
}

// Options configures the file systems of a Factory. The zero value is ready to
// use.
type Options struct {
	// ConnectionString, when set, is used instead of $AZURE_STORAGE_CONNECTION_STRING.
	ConnectionString string
	// PartSize is the block size of uploads in bytes: a file up to this size is
	// one request, a larger one is staged block by block and committed at Close.
	// Zero means the driver's default (8 MiB).
	PartSize int
	// Concurrency is the number of blocks uploaded at once. Zero means the
	// driver's default.
	Concurrency int
	// Strict makes Open and Create check for a directory at the path, one
	// request each (see blobfs.Options.Strict).
	Strict bool
	// RequestTimeout bounds every request whose context has no deadline: when
	// the server makes no progress for this long (no response headers, no
	// request body bytes taken, no response body bytes while a Read waits),
	// the request fails with an error that matches context.DeadlineExceeded
	// and is not retried. Zero means DefaultRequestTimeout (30 s); a negative
	// value turns it off. The query parameter request_timeout (a Go duration)
	// on a container's first use overrides it.
	RequestTimeout time.Duration
	// Logger receives, at Debug, the SDK's full text of every error this
	// package replaces with a short one (a missing container, refused
	// credentials, an unreachable endpoint, any other answer's multi-line
	// dump). Nil means slog's default logger.
	Logger *slog.Logger
}

// Factory returns a vfs.Factory for azblob://CONTAINER/ URIs with opts:
// register it on a private vfs.Registry under any scheme. The URI's authority
// is the container; its query parameters (on a container's first use) are
// gocloud's, and request_timeout.
func Factory(opts Options) vfs.Factory {
	open := opener(opts)
	return func(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
		if err := checkContainerName(uri); err != nil {
			return nil, err
		}
		return open(ctx, uri, uri.Host)
	}
}

// opener returns what opens the container of the configured account for a
// URI: the file system's scheme and authority are uri's (azblob://container,
// or an abfss:// or wasbs:// URI of the account).
func opener(opts Options) func(ctx context.Context, uri *url.URL, container string) (vfs.FileSystem, error) {
	bopts := blobfs.Options{
		PartSize:     opts.PartSize,
		Concurrency:  opts.Concurrency,
		MaxKeyLength: MaxKeyLength,
		Strict:       opts.Strict,
		// Azure stores '\' in a blob name as '/'.
		RefuseBackslash: true,
		// Store: the one registered for azblob:// bucket URLs (newStore).
	}
	return func(ctx context.Context, uri *url.URL, container string) (vfs.FileSystem, error) {
		u, timeout, err := httpguard.TimeoutParameter(uri, RequestTimeoutParameter, cmp.Or(opts.RequestTimeout, DefaultRequestTimeout))
		if err != nil {
			return nil, fmt.Errorf("azblob: %s: %w", vfs.RedactURL(uri), err)
		}
		o := bopts
		o.DescribeError = describer{container: container, log: cmp.Or(opts.Logger, slog.Default())}.describe
		conn := opts.connectionString()
		if conn == "" && os.Getenv("AZURE_STORAGE_ACCOUNT") == "" && os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING") == "" && u.Query().Get("storage_account") == "" {
			return nil, fmt.Errorf("azblob: %s: %w", vfs.RedactURL(uri), &CredentialsError{})
		}
		if conn == "" {
			mux := new(blob.URLMux)
			mux.RegisterBucket(Scheme, &azureblob.URLOpener{MakeClient: exactClient(newClient(timeout)), ServiceURLOptions: *azureblob.NewDefaultServiceURLOptions()})
			return blobfs.URLFactoryMux(mux, "azblob://"+container, o)(ctx, u)
		}
		return openConnectionString(ctx, u, container, conn, timeout, o)
	}
}

// connectionString is Options.ConnectionString, or else
// $AZURE_STORAGE_CONNECTION_STRING.
func (o Options) connectionString() string {
	if o.ConnectionString != "" {
		return o.ConnectionString
	}
	return os.Getenv(ConnectionStringEnv)
}

// openConnectionString serves containerName, for uri, with a client made from a
// connection string: its BlobEndpoint (an emulator's http:// one included) and
// its account key are used as they are.
func openConnectionString(ctx context.Context, uri *url.URL, containerName, conn string, timeout time.Duration, o blobfs.Options) (vfs.FileSystem, error) {
	if uri.RawQuery != "" {
		return nil, fmt.Errorf("azblob: %s: %w: query parameters are not used with a connection string (%s or Options.ConnectionString), except %s",
			vfs.RedactURL(uri), fs.ErrInvalid, ConnectionStringEnv, RequestTimeoutParameter)
	}
	client, err := sendsExactNames(container.NewClientFromConnectionString(conn, containerName, clientOptions(timeout)))
	if err != nil {
		// The error may quote the connection string, account key included.
		return nil, fmt.Errorf("azblob: %s: %w: the connection string is not valid (its text is not shown: it holds the account key)", vfs.RedactURL(uri), fs.ErrInvalid)
	}
	bucket, err := azureblob.OpenBucket(ctx, client, nil)
	if err != nil {
		return nil, fmt.Errorf("azblob: open container %q: %w", containerName, err)
	}
	o.Scheme, o.Authority, o.Distributed = uri.Scheme, uri.Host, true
	if uri.User != nil {
		o.Authority = uri.User.String() + "@" + uri.Host
	}
	o.Store = newStore(bucket)
	fsys, err := blobfs.New(bucket, o)
	if err != nil {
		_ = bucket.Close()
		return nil, err
	}
	return fsys, nil
}

// New returns an azblob://container/ file system that is not registered
// anywhere.
func New(ctx context.Context, container string, opts Options) (*blobfs.FileSystem, error) {
	fsys, err := Factory(opts)(ctx, &url.URL{Scheme: Scheme, Host: container, Path: "/"})
	if err != nil {
		return nil, err
	}
	return fsys.(*blobfs.FileSystem), nil
}

// checkContainerName refuses a URI without a container, with user info, or
// whose container name Azure cannot hold (3 to 63 lowercase letters, digits
// and single hyphens, starting and ending with a letter or digit).
func checkContainerName(uri *url.URL) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("azblob: %s: %w: "+format+" (want azblob://CONTAINER/path)", append([]any{vfs.RedactURL(uri), fs.ErrInvalid}, args...)...)
	}
	c := uri.Host
	switch {
	case uri.User != nil:
		return bad("the URI has user info")
	case c == "":
		return bad("no container in the URI")
	case len(c) < 3 || len(c) > 63:
		return bad("container name %q is %d bytes long; Azure wants 3 to 63", c, len(c))
	case strings.Trim(c, "abcdefghijklmnopqrstuvwxyz0123456789-") != "",
		strings.HasPrefix(c, "-"), strings.HasSuffix(c, "-"), strings.Contains(c, "--"):
		return bad("container name %q is not lowercase letters, digits and single hyphens starting and ending with a letter or digit", c)
	}
	return nil
}
