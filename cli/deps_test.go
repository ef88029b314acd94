package cli

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSchemeSetsLinkOnlyTheirSDK checks that a program links the cloud SDKs of
// the scheme sets it passes and no other: `go list -deps` of package cli holds
// none, of clis3 (and of internal/readme/myvfskit, built with clis3 alone)
// no Google Cloud or Azure package, of cligcs no AWS or Azure one, of
// cliazblob no AWS or Google Cloud one.
func TestSchemeSetsLinkOnlyTheirSDK(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH to list dependencies")
	}
	aws := []string{"github.com/aws/", "gocloud.dev/blob/s3blob"}
	// gocloud's azureblob driver imports Google's auth packages (for its user
	// agent), so the Google Cloud "SDK" here is the storage client.
	gcp := []string{"cloud.google.com/go/storage", "gocloud.dev/blob/gcsblob", "google.golang.org/api/storage"}
	azure := []string{"github.com/Azure/", "gocloud.dev/blob/azureblob"}
	for _, c := range []struct {
		pkg       string
		mustLink  string
		forbidden [][]string
	}{
		{".", "github.com/spf13/cobra", [][]string{aws, gcp, azure}},
		{"./clis3", "github.com/aws/aws-sdk-go-v2/service/s3", [][]string{gcp, azure}},
		{"../internal/readme/myvfskit", "github.com/aws/aws-sdk-go-v2/service/s3", [][]string{gcp, azure}},
		{"./cligcs", "cloud.google.com/go/storage", [][]string{aws, azure}},
		{"./cliazblob", "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob", [][]string{aws, gcp}},
	} {
		out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", c.pkg).CombinedOutput()
		require.NoError(t, err, "go list -deps %s: %s", c.pkg, out)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, c.mustLink, "the listing is of %s's dependencies", c.pkg)
		for _, dep := range deps {
			for _, sdk := range c.forbidden {
				for _, prefix := range sdk {
					if strings.HasPrefix(dep, prefix) {
						t.Errorf("%s links %s (prefix %s), an SDK of a scheme it does not serve", c.pkg, dep, prefix)
					}
				}
			}
		}
	}
}
