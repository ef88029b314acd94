package azblob_test

import (
	"context"
	"fmt"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/vfs"
)

// Reach Azurite (or any account) with a connection string; without one the
// environment's account and Azure's default credentials are used.
func ExampleNew() {
	ctx := context.Background()
	fsys, err := azblob.New(ctx, "reports", azblob.Options{
		ConnectionString: "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;" +
			"AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;" +
			"BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
	})
	if err != nil {
		panic(err)
	}
	p := vfs.MustPath("azblob://reports/2026/q4.txt")
	_ = vfs.WriteFile(ctx, fsys, p, []byte("fine"), vfs.NoOverwrite)
}

// A URI names its container as its authority.
func Example_badURI() {
	_, err := vfs.Get(context.Background(), "azblob:///no-container")
	fmt.Println(err)
	_, err = vfs.Get(context.Background(), "azblob://a--b/x")
	fmt.Println(err)
	// Output:
	// azblob: azblob:///: invalid argument: no container in the URI (want azblob://CONTAINER/path)
	// azblob: azblob://a--b/: invalid argument: container name "a--b" is not lowercase letters, digits and single hyphens starting and ending with a letter or digit (want azblob://CONTAINER/path)
}
