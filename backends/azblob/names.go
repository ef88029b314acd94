package azblob

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"

	"github.com/vfskit/vfskit/backends/blobfs"
)

// Exact names
//
// gocloud's azureblob driver hex-escapes some characters of every blob name
// it sends (`\ " # % ?`, control characters, DEL, the "/" of "../", a
// trailing "/", and text that looks like its own "__0x23__" escapes) and
// unescapes the names it lists. Other clients (the Azure SDK, the portal,
// Hadoop's ABFS, adlfs) name blobs as they are, so a driver-escaped name is
// not theirs. Every container client this package makes carries
// exactNames, which turns the driver's escaped names back into the exact
// names before a request is signed and sent: the name vfskit writes is the
// name every other client lists, and a name any client wrote is reachable
// by its listed name (the store's ListedKey reads the names Azure returned).
//
// The rule for code that calls the container client itself (the recoverable
// writer, conditional deletes): a blob name given to the SDK is in the
// driver's escaped form; sdkName makes it.

// exactNames is the pipeline policy that sends exact blob names: in the
// request's path, in the source URL of a copy (x-ms-copy-source) and in a
// listing's prefix parameter, every "__0x<hex>__" escape is replaced by the
// character it stands for. Account and container names cannot hold "_", so
// only blob names change.
type exactNames struct{}

// Do rewrites req's names and sends it on.
func (exactNames) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	if p := raw.URL.EscapedPath(); strings.Contains(p, "__0x") {
		path := unescapeName(raw.URL.Path, false)
		raw.URL.RawPath = unescapeName(p, true)
		raw.URL.Path = path
	}
	// The SDK sets its headers under their lower-case names.
	for _, h := range []string{"x-ms-copy-source", "X-Ms-Copy-Source"} {
		if v := raw.Header[h]; len(v) == 1 && strings.Contains(v[0], "__0x") {
			if u, err := url.Parse(v[0]); err == nil {
				path := unescapeName(u.Path, false)
				u.RawPath = unescapeName(u.EscapedPath(), true)
				u.Path = path
				v[0] = u.String()
			}
		}
	}
	if strings.Contains(raw.URL.RawQuery, "__0x") {
		raw.URL.RawQuery = exactPrefix(raw.URL.RawQuery)
	}
	return req.Next()
}

// exactPrefix returns the query rawQuery with the names in its prefix
// parameter exact, percent-encoded as a path is (a space is %20, not "+").
func exactPrefix(rawQuery string) string {
	params := strings.Split(rawQuery, "&")
	for i, kv := range params {
		v, ok := strings.CutPrefix(kv, "prefix=")
		if !ok {
			continue
		}
		if d, err := url.QueryUnescape(v); err == nil {
			params[i] = "prefix=" + strings.ReplaceAll(url.QueryEscape(unescapeName(d, false)), "+", "%20")
		}
	}
	return strings.Join(params, "&")
}

// exactClients holds the container clients made with clientOptions, whose
// requests carry exact blob names (exactNames).
var exactClients sync.Map // *container.Client → struct{}

// sendsExactNames records c, made with clientOptions, as a client whose
// requests carry exact blob names.
func sendsExactNames(c *container.Client, err error) (*container.Client, error) {
	if err == nil {
		exactClients.Store(c, struct{}{})
	}
	return c, err
}

// exactClient records every client make makes (with clientOptions) as one
// whose requests carry exact blob names.
func exactClient(make func(azureblob.ServiceURL, azureblob.ContainerName) (*container.Client, error)) func(azureblob.ServiceURL, azureblob.ContainerName) (*container.Client, error) {
	return func(svc azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
		return sendsExactNames(make(svc, name))
	}
}

// sdkName returns the form of the exact blob name key to give the container
// client, which exactNames turns back into key: key itself unless it holds
// "__0x", else key with every "_" escaped.
func sdkName(key string) string {
	if !strings.Contains(key, "__0x") {
		return key
	}
	return strings.ReplaceAll(key, "_", "__0x5f__")
}

// unescapeName replaces every "__0x<hex>__" escape in s by the character it
// stands for, scanning left to right as gocloud's unescaping does, so that
// it inverts the driver's escaping exactly. With encoded, s is a
// percent-encoded URL path and each character put back is percent-encoded
// as url.PathEscape does.
func unescapeName(s string, encoded bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if r, n, ok := escapeAt(s[i:]); ok {
			if encoded {
				b.WriteString(url.PathEscape(string(r)))
			} else {
				b.WriteRune(r)
			}
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// escapeAt reports whether s starts with an escape "__0x<hex>__", the rune it
// stands for and its length: the hex digits run to the next "_", and must
// parse as a 32-bit number (gocloud's rule).
func escapeAt(s string) (rune, int, bool) {
	if !strings.HasPrefix(s, "__0x") {
		return 0, 0, false
	}
	end := strings.IndexByte(s[4:], '_')
	if end < 0 || !strings.HasPrefix(s[4+end:], "__") {
		return 0, 0, false
	}
	v, err := strconv.ParseInt(s[4:4+end], 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return rune(v), 4 + end + 2, true
}

// BeforeList asks for each blob's metadata (exactNames sends the listing's
// prefix exactly), so that ListedFolder tells ADLS's folder blobs.
func (store) BeforeList(string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var opts *container.ListBlobsHierarchyOptions
		if as(&opts) {
			opts.Include.Metadata = true
		}
		return nil
	}
}

var _ blobfs.FolderLister = store{}

// ListedFolder reports whether o is an ADLS folder blob (metadata
// hdi_isfolder=true), which the portal, ADLS Gen2 and Hadoop's ABFS write.
func (store) ListedFolder(o *blob.ListObject) bool {
	var item container.BlobItem
	if !o.As(&item) || item.Metadata == nil {
		return false
	}
	for k, v := range item.Metadata {
		if strings.EqualFold(k, blobfs.FolderMetadata) && v != nil && strings.EqualFold(*v, "true") {
			return true
		}
	}
	return false
}

// ListedKey returns the name Azure listed o by (the driver unescapes it);
// the driver's key when the client does not send exact names.
func (s store) ListedKey(o *blob.ListObject) (string, error) {
	if !s.exact {
		return o.Key, nil
	}
	var item container.BlobItem
	if o.As(&item) && item.Name != nil {
		return *item.Name, nil
	}
	var prefix container.BlobPrefix
	if o.As(&prefix) && prefix.Name != nil {
		return *prefix.Name, nil
	}
	return o.Key, nil
}

// Attributes HEADs the blob key through the driver (exactNames sends its
// name exactly).
func (s store) Attributes(ctx context.Context, key string) (*blob.Attributes, error) {
	return s.bucket.Attributes(ctx, key)
}

// BeforeRead needs no hook: exactNames sends the name exactly.
func (store) BeforeRead(string) func(as func(any) bool) error { return nil }

// BeforeWrite needs no hook: exactNames sends the name exactly.
func (store) BeforeWrite(string) func(as func(any) bool) error { return nil }

// BeforeCopy needs no hook: exactNames sends both names exactly.
func (store) BeforeCopy(string, string) func(as func(any) bool) error { return nil }
