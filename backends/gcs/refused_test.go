package gcs_test

import (
	"io"
	"io/fs"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/internal/faultproxy"
	"github.com/vfskit/vfskit/internal/gcstest"
	"github.com/vfskit/vfskit/vfs"
)

// TestRefusalIsNotAbsence: a proxy in front of fake-gcs-server answers every
// request as GCS answers credentials it refuses (401) or credentials that
// lack the permission (403; gocloud's driver calls it NotFound). No
// operation takes either for a missing file: Stat, List and a read fail, and
// Delete (which succeeds on a missing file) fails too; a 403 is
// fs.ErrPermission, and each error is the describer's message.
func TestRefusalIsNotAbsence(t *testing.T) {
	faulty, _, p, bucket := faulted(t)
	ctx := t.Context()
	file := vfs.MustPath("gs://" + bucket + "/dir/f")
	for _, c := range []struct {
		status int
		body   string
		want   string
		is     error // the io/fs sentinel, or nil
	}{
		{http.StatusUnauthorized, gcstest.InvalidCredentials,
			"Google refused the credentials for bucket", nil},
		{http.StatusForbidden, gcstest.NoListPermission,
			"access denied to bucket", fs.ErrPermission},
	} {
		p.Set(faultproxy.Faults{Answer: &faultproxy.Answer{Status: c.status, Body: c.body, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}}}})
		_, statErr := faulty.Stat(ctx, file)
		_, listErr := faulty.List(ctx, file.Parent())
		readErr := func() error {
			in, err := faulty.Open(ctx, file)
			if err != nil {
				return err
			}
			defer in.Close()
			_, err = io.ReadAll(in)
			return err
		}()
		deleteErr := faulty.Delete(ctx, file, false)
		for op, err := range map[string]error{"stat": statErr, "list": listErr, "read": readErr, "delete": deleteErr} {
			require.Error(t, err, "%d %s", c.status, op)
			assert.NotErrorIs(t, err, fs.ErrNotExist, "%d %s: %v", c.status, op, err)
			assert.Contains(t, err.Error(), c.want, "%d %s", c.status, op)
			if c.is != nil {
				assert.ErrorIs(t, err, c.is, "%d %s: %v", c.status, op, err)
			}
		}
		assert.Positive(t, p.Counts().Answered, "the proxy answered")
	}
}
