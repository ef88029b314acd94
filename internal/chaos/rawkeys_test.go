package chaos_test

import (
	"context"
	"fmt"
	"io"
	"io/fs"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// rawKeys puts and reads objects by their exact keys, below the bucket, with
// the store's own client (gs://, azblob://; SeaweedFS does not keep such
// keys as given): keys such as "a/./b", "a//b" or "a/.." that no vfs
// path names.
type rawKeys struct {
	put func(ctx context.Context, key string, data []byte) error
	get func(ctx context.Context, key string) ([]byte, error) // fs.ErrNotExist when missing
}

// The raw keys of a cycle: in the target tree, and around it (t//src/x is not
// below t/src/ as a key, whatever a path would make of it).
var (
	rawSrcNames    = []string{"t/src/./dot.txt", "t/src//empty.txt", "t/src/sub/.."}
	rawAroundNames = []string{"t//src/x", "t/./src/y", "t/src/../src.z"}
)

func gcsRaw(srv *fakestorage.Server, bucket string) *rawKeys {
	return &rawKeys{
		put: func(_ context.Context, key string, data []byte) error {
			srv.CreateObject(fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: key}, Content: data})
			return nil
		},
		get: func(_ context.Context, key string) ([]byte, error) {
			obj, err := srv.GetObject(bucket, key)
			if err != nil {
				return nil, fmt.Errorf("gcs key %q: %v: %w", key, err, fs.ErrNotExist)
			}
			return obj.Content, nil
		},
	}
}

func azureRaw(client *azblob.Client, container string) *rawKeys {
	return &rawKeys{
		put: func(ctx context.Context, key string, data []byte) error {
			_, err := client.UploadBuffer(ctx, container, key, data, nil)
			return err
		},
		get: func(ctx context.Context, key string) ([]byte, error) {
			out, err := client.DownloadStream(ctx, container, key, nil)
			if bloberror.HasCode(err, bloberror.BlobNotFound) {
				return nil, fmt.Errorf("azure key %q: %w", key, fs.ErrNotExist)
			}
			if err != nil {
				return nil, err
			}
			defer out.Body.Close()
			return io.ReadAll(out.Body)
		},
	}
}
