package chaos

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vfskit/vfskit/backends/s3"
	"github.com/vfskit/vfskit/vfs"
)

// TestLeftReports: the handler collects the markers the s3 backend reports
// leaving (as it logs them), once each, and passes every record on.
func TestLeftReports(t *testing.T) {
	var out bytes.Buffer
	h := newLeftReports(slog.NewTextHandler(&out, nil))
	log := slog.New(h).With("component", "s3")
	log.Warn(s3.MarkerLeftMessage, "bucket", "b", "key", "job/chk-2/.vfskit-upload-x", "error", "SlowDown")
	log.Info("something else", "key", "other")
	assert.Equal(t, []vfs.Path{vfs.MustPath("s3://b/job/chk-2/.vfskit-upload-x")}, h.take())
	assert.Empty(t, h.take(), "taken once")
	assert.Contains(t, out.String(), s3.MarkerLeftMessage)
	assert.Contains(t, out.String(), "something else")
}
