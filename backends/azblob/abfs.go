package azblob

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// HadoopSchemes are Flink's and Hadoop's schemes for Azure storage (ABFS and
// WASB, each plain and over TLS), which this package registers beside
// azblob: abfs[s]://CONTAINER@ACCOUNT.dfs.core.windows.net/path and
// wasb[s]://CONTAINER@ACCOUNT.blob.core.windows.net/path name the blob path
// of container CONTAINER in storage account ACCOUNT, which is
// azblob://CONTAINER/path when ACCOUNT is the account this process is
// configured for (Account).
var HadoopSchemes = []string{"abfs", "abfss", "wasb", "wasbs"}

// hostSuffixes are the endpoint host names of an account ACCOUNT<suffix>.
var hostSuffixes = []string{".dfs.core.windows.net", ".blob.core.windows.net"}

func init() {
	vfs.RegisterIdentity(Scheme, Identity)
	for _, s := range HadoopSchemes {
		vfs.Register(s, HadoopFactory(Options{}))
		vfs.DeclareQuery(s, RequestTimeoutParameter)
		vfs.RegisterIdentity(s, Identity)
	}
}

// Account returns the storage account opts configure: the AccountName of the
// connection string (Options.ConnectionString or
// $AZURE_STORAGE_CONNECTION_STRING), or else $AZURE_STORAGE_ACCOUNT; "" when
// neither names one.
func Account(opts Options) string {
	if conn := opts.connectionString(); conn != "" {
		for _, kv := range strings.Split(conn, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			if strings.EqualFold(k, "AccountName") {
				return v
			}
		}
		return ""
	}
	return os.Getenv("AZURE_STORAGE_ACCOUNT")
}

// HadoopLocation parses the authority of an abfs[s]:// or wasb[s]:// URI,
// CONTAINER@ACCOUNT.dfs.core.windows.net or
// CONTAINER@ACCOUNT.blob.core.windows.net, into the container and the
// account. Anything else fails with fs.ErrInvalid naming the authority.
func HadoopLocation(authority string) (container, account string, err error) {
	c, host, ok := strings.Cut(authority, "@")
	if ok {
		host = strings.ToLower(host)
		for _, s := range hostSuffixes {
			if a, found := strings.CutSuffix(host, s); found && a != "" && !strings.Contains(a, ".") {
				if err := checkContainerName(&url.URL{Scheme: Scheme, Host: c}); err != nil {
					return "", "", err
				}
				return c, a, nil
			}
		}
	}
	return "", "", fmt.Errorf("azblob: %w: authority %q is not CONTAINER@ACCOUNT.dfs.core.windows.net or CONTAINER@ACCOUNT.blob.core.windows.net",
		fs.ErrInvalid, vfs.RedactAuthority(authority))
}

// Identity is the location rule (vfs.Identity) of azblob:// and of
// HadoopSchemes with the process-wide configuration: azblob:// paths are
// their own canonical form; abfs[s]://CONTAINER@ACCOUNT.../path and
// wasb[s]://CONTAINER@ACCOUNT.../path are azblob://CONTAINER/path when
// ACCOUNT is the configured one (Account), and fail with vfs.ErrForeign
// otherwise: vfskit cannot reach that account, so they are never the same as
// anything it lists.
func Identity(ctx context.Context, r *vfs.Registry, p vfs.Path) (vfs.Path, error) {
	return IdentityOf(Options{})(ctx, r, p)
}

// IdentityOf is Identity with the account opts configure, for a private
// registry whose factories use opts.
func IdentityOf(opts Options) vfs.Identity {
	return func(_ context.Context, _ *vfs.Registry, p vfs.Path) (vfs.Path, error) {
		if p.Scheme() == Scheme {
			return p, nil
		}
		container, err := hadoopContainer(opts, p.Scheme(), p.Authority())
		if err != nil {
			return vfs.Path{}, &fs.PathError{Op: "canonical", Path: p.Redacted(), Err: err}
		}
		return p.WithScheme(Scheme, container)
	}
}

// hadoopContainer returns the container an abfs[s]:// or wasb[s]://
// authority names in the account opts configure; vfs.ErrForeign for another
// account.
func hadoopContainer(opts Options, scheme, authority string) (string, error) {
	container, account, err := HadoopLocation(authority)
	if err != nil {
		return "", err
	}
	mine := Account(opts)
	if !strings.EqualFold(account, mine) {
		if mine == "" {
			mine = "none: set " + ConnectionStringEnv + " or AZURE_STORAGE_ACCOUNT"
		}
		return "", fmt.Errorf("%w: %s:// storage account %q is not the configured one (%s)", vfs.ErrForeign, scheme, account, mine)
	}
	return container, nil
}

// HadoopFactory returns the vfs.Factory of HadoopSchemes with opts: a URI of
// the configured account (Account) opens its container as azblob:// does,
// with the URI's scheme and authority (paths keep the spelling they were
// given); another account fails with vfs.ErrForeign, a malformed authority
// with fs.ErrInvalid.
func HadoopFactory(opts Options) vfs.Factory {
	open := opener(opts)
	return func(ctx context.Context, uri *url.URL) (vfs.FileSystem, error) {
		authority := uri.Host
		if uri.User != nil {
			authority = uri.User.String() + "@" + uri.Host
		}
		container, err := hadoopContainer(opts, uri.Scheme, authority)
		if err != nil {
			return nil, fmt.Errorf("azblob: %s: %w", vfs.RedactURL(uri), err)
		}
		return open(ctx, uri, container)
	}
}
