package blobfs_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cloudSDKs are the import path prefixes of the cloud SDKs and gocloud drivers
// blobfs must not link: store-specific code lives in the scheme's package
// (backends/s3, gcs, azblob) behind blobfs.Store.
var cloudSDKs = []string{
	"github.com/aws/",
	"cloud.google.com/go/",
	"github.com/Azure/",
	"gocloud.dev/blob/s3blob",
	"gocloud.dev/blob/gcsblob",
	"gocloud.dev/blob/azureblob",
}

// TestNoCloudSDK checks the dependency rule: `go list -deps` of blobfs (its
// non-test files, recursively) holds no AWS, Google Cloud or Azure SDK.
func TestNoCloudSDK(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH to list dependencies")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	require.NoError(t, err, "go list -deps: %s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "gocloud.dev/blob", "the listing is of blobfs's dependencies")
	for _, dep := range deps {
		for _, sdk := range cloudSDKs {
			if strings.HasPrefix(dep, sdk) {
				t.Errorf("backends/blobfs depends on %s (a cloud SDK, prefix %s); move the store-specific code behind blobfs.Store", dep, sdk)
			}
		}
	}
}
