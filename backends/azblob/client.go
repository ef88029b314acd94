package azblob

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	sdk "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob/azureblob"

	"github.com/vfskit/vfskit/backends/internal/httpguard"
)

// Retries of a request (azcore's retry policy): a throttled (429, 503) or
// failed request, or a failed connection, is retried MaxRetries times with
// jittered exponential backoff from 200 ms up to 1 s, so a refused connection
// (an endpoint nobody listens on) fails within about 4 s and a restarting
// Azurite is ridden out; a TLS handshake answered in plain HTTP and a stalled
// request (RequestTimeout) are not retried.
const MaxRetries = httpguard.RefusedAttempts - 1

// DefaultRequestTimeout is Options.RequestTimeout's default.
const DefaultRequestTimeout = httpguard.DefaultTimeout

// RequestTimeoutParameter is the query parameter that sets
// Options.RequestTimeout on a container's first use, as a Go duration:
// azblob://container/?request_timeout=2m.
const RequestTimeoutParameter = "request_timeout"

// clientOptions are the options of every container client: vfskit's HTTP
// client (the no-progress timeout, configuration mistakes not retried), the
// retries above and exact blob names (exactNames; a client made with them is
// recorded with sendsExactNames).
func clientOptions(timeout time.Duration) *container.ClientOptions {
	base := http.DefaultTransport.(*http.Transport).Clone()
	client := &http.Client{Transport: httpguard.Guard{Next: permanentTLS{base}, Limit: timeout, Err: func(method, url string) error {
		return &httpguard.TimeoutError{Scheme: Scheme, Method: method, URL: url, Limit: timeout,
			Setting: "azblob.Options.RequestTimeout, or ?" + RequestTimeoutParameter + "= on the container's first URI"}
	}}}
	return &container.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport:       client,
		PerCallPolicies: []policy.Policy{exactNames{}},
		Retry: policy.RetryOptions{
			MaxRetries:    MaxRetries,
			RetryDelay:    200 * time.Millisecond,
			MaxRetryDelay: httpguard.RefusedMaxBackoff,
		},
	}}
}

// permanentTLS marks a TLS handshake answered in plain HTTP as not retriable.
type permanentTLS struct{ rt http.RoundTripper }

// Do sends req, and tells a write's watcher (watchWrite) the answer to a
// request that published a blob.
func (p permanentTLS) Do(req *http.Request) (*http.Response, error) {
	resp, err := p.rt.RoundTrip(req)
	if err != nil && httpguard.IsTLSMismatch(err) {
		return nil, &httpguard.Permanent{Err: err}
	}
	if err == nil {
		if w, ok := req.Context().Value(writeWatchKey{}).(*writeWatch); ok {
			w.observe(req, resp)
		}
	}
	return resp, err
}

// writeWatchKey is the context key of a write's writeWatch.
type writeWatchKey struct{}

// writeWatch keeps the ETag Azure answered the request that published a
// blob with: a Put Blob (one request) or the Put Block List that commits
// staged blocks. The blocks of one upload are staged concurrently.
type writeWatch struct {
	mu   sync.Mutex
	etag string
}

// observe keeps the ETag of a successful Put Blob or Put Block List.
func (w *writeWatch) observe(req *http.Request, resp *http.Response) {
	if req.Method != http.MethodPut || resp.StatusCode/100 != 2 {
		return
	}
	switch comp := req.URL.Query().Get("comp"); {
	case comp == "blocklist", comp == "" && header(req, "x-ms-blob-type") != "" && header(req, "x-ms-copy-source") == "":
		w.mu.Lock()
		w.etag = resp.Header.Get("ETag")
		w.mu.Unlock()
	}
}

// header returns the request header k, which the Azure SDK sets under its
// lower-case name (not the canonical form Header.Get looks up).
func header(req *http.Request, k string) string {
	if v := req.Header[k]; len(v) > 0 {
		return v[0]
	}
	return req.Header.Get(k)
}

// version returns the ETag kept, "" when none.
func (w *writeWatch) version() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.etag
}

// newClient makes the client of a container from the environment, as
// gocloud's azureblob does (a shared key, a SAS token, a connection string,
// or Azure's default credential chain), with clientOptions.
func newClient(timeout time.Duration) func(svcURL azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
	return func(svcURL azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
		opts := clientOptions(timeout)
		containerURL, err := url.JoinPath(string(svcURL), string(name))
		if err != nil {
			return nil, err
		}
		account, key := os.Getenv("AZURE_STORAGE_ACCOUNT"), os.Getenv("AZURE_STORAGE_KEY")
		conn := os.Getenv(ConnectionStringEnv)
		if conn == "" {
			conn = os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING")
		}
		switch {
		case account != "" && key != "":
			cred, err := sdk.NewSharedKeyCredential(account, key)
			if err != nil {
				return nil, fmt.Errorf("AZURE_STORAGE_KEY is not a valid account key (its text is not shown): %w", errors.Unwrap(err))
			}
			return container.NewClientWithSharedKeyCredential(containerURL, cred, opts)
		case os.Getenv("AZURE_STORAGE_SAS_TOKEN") != "":
			return container.NewClientWithNoCredential(containerURL, opts)
		case conn != "":
			return container.NewClientFromConnectionString(conn, string(name), opts)
		}
		cred, err := azidentity.NewDefaultAzureCredential(nil)
		if err != nil {
			return nil, &CredentialsError{Err: err}
		}
		return container.NewClient(containerURL, cred, opts)
	}
}

// CredentialsError is the error of an azblob:// container opened without
// a storage account or credentials (no connection string, no
// AZURE_STORAGE_ACCOUNT, no storage_account query parameter), or without
// credentials that Azure's default chain can find.
type CredentialsError struct{ Err error }

// Error says what is missing and how to give it.
func (e *CredentialsError) Error() string {
	return "no Azure storage account or credentials found: set " + ConnectionStringEnv + ", or AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN (or sign in with 'az login')"
}

// Unwrap returns the credential chain's error.
func (e *CredentialsError) Unwrap() error { return e.Err }
