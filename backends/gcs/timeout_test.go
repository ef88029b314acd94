package gcs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/gcs"
	"github.com/vfskit/vfskit/internal/stalltest"
	"github.com/vfskit/vfskit/vfs"
)

// TestStalledEndpointTimesOut: against an endpoint that accepts and never
// answers, a request whose context has no deadline fails after
// Options.RequestTimeout with an error that matches
// context.DeadlineExceeded and names the setting.
func TestStalledEndpointTimesOut(t *testing.T) {
	t.Setenv(gcs.EmulatorHostEnv, stalltest.Listen(t))
	fsys, err := gcs.New(context.Background(), "stalled-bucket", gcs.Options{RequestTimeout: 200 * time.Millisecond})
	require.NoError(t, err)
	_, err = fsys.List(context.Background(), vfs.MustPath("/"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "made no progress for 200ms (gcs.Options.RequestTimeout")
}
