package azblob

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"

	"github.com/vfskit/vfskit/backends/blobfs"
)

var _ blobfs.ConditionalCopier = store{}

// BeforeCopyNew makes a server-side copy (Copy Blob: the bytes stay in the
// account) conditional on the destination's absence (If-None-Match: *; Azure
// answers an existing destination with 409 BlobAlreadyExists or 412) and
// gives the new blob the write's id. The Content-Type is the source's, which
// blobfs wrote. With it, Rename and CopyFile of azblob:// blobs no longer
// stream the bytes through this process.
func (store) BeforeCopyNew(id, _ string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var opts *azblobblob.StartCopyFromURLOptions
		if !as(&opts) {
			return errors.New("azblob: the Azure driver did not expose its copy options, so the copy cannot be conditional")
		}
		if opts.AccessConditions == nil {
			opts.AccessConditions = &azblobblob.AccessConditions{}
		}
		if opts.AccessConditions.ModifiedAccessConditions == nil {
			opts.AccessConditions.ModifiedAccessConditions = &azblobblob.ModifiedAccessConditions{}
		}
		etag := azcore.ETagAny
		opts.AccessConditions.ModifiedAccessConditions.IfNoneMatch = &etag
		value := url.PathEscape(id)
		opts.Metadata = map[string]*string{metadataKey(blobfs.WriteIDMetadata): &value}
		return nil
	}
}

var _ blobfs.SourceConditionalCopier = store{}

// BeforeCopyFrom makes a server-side copy conditional on the source blob's
// ETag (x-ms-source-if-match): Azure answers a source at another version
// with 412.
func (store) BeforeCopyFrom(etag string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		var opts *azblobblob.StartCopyFromURLOptions
		if !as(&opts) {
			return errors.New("azblob: the Azure driver did not expose its copy options, so the copy cannot be conditional on the source's version")
		}
		if opts.SourceModifiedAccessConditions == nil {
			opts.SourceModifiedAccessConditions = &azblobblob.SourceModifiedAccessConditions{}
		}
		e := azcore.ETag(etag)
		opts.SourceModifiedAccessConditions.SourceIfMatch = &e
		return nil
	}
}

// metadataKey escapes a metadata key the way gocloud's azureblob driver does
// when it writes one (Azure takes only C# identifiers): every character other
// than an ASCII letter, a digit or "_", and a digit in first place, becomes
// "__0x<hex>__". The driver unescapes the keys it reads, so blobfs finds the
// key it wrote through the driver.
func metadataKey(k string) string {
	var b strings.Builder
	for i, c := range k {
		switch {
		case c >= '0' && c <= '9' && i > 0, c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
			b.WriteRune(c)
		default:
			fmt.Fprintf(&b, "__0x%x__", c)
		}
	}
	return b.String()
}
