package azblob_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/azblob"
	"github.com/vfskit/vfskit/internal/azuritetest"
	"github.com/vfskit/vfskit/internal/stalltest"
	"github.com/vfskit/vfskit/vfs"
)

// TestStalledEndpointTimesOut: against an endpoint that accepts and never
// answers, a request whose context has no deadline fails after
// Options.RequestTimeout with an error that matches
// context.DeadlineExceeded and names the setting, without retries.
func TestStalledEndpointTimesOut(t *testing.T) {
	conn := "DefaultEndpointsProtocol=http;AccountName=" + azuritetest.Account + ";AccountKey=" + azuritetest.Key +
		";BlobEndpoint=http://" + stalltest.Listen(t) + "/" + azuritetest.Account + ";"
	fsys, err := azblob.New(context.Background(), "stalled", azblob.Options{ConnectionString: conn, RequestTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	_, err = fsys.List(context.Background(), vfs.MustPath("/"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "made no progress for 200ms (azblob.Options.RequestTimeout")
}
