package record_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/layer/fault"
	"github.com/vfskit/vfskit/layer/record"
	"github.com/vfskit/vfskit/vfs"
)

// record and fault name operations alike (vfs.Op): a rule keyed by the name
// record recorded fires on that call, and fault refuses a name it never
// matches instead of never firing.
func TestRecordAndFaultShareOpNames(t *testing.T) {
	ctx := context.Background()
	rec := record.New(memfs.New())
	dir := vfs.MustPath("/d")
	require.NoError(t, rec.Mkdirs(ctx, dir))
	_, err := rec.CleanTemp(ctx, dir, time.Now(), true)
	require.NoError(t, err)
	_, err = rec.ReadFile(ctx, dir.Join("missing"))
	require.Error(t, err)
	assert.Equal(t, map[string]int{"mkdirs": 1, "clean_temp": 1, "read_file": 1}, rec.Counts())
	assert.Equal(t, 1, rec.Count(string(vfs.OpCleanTemp)))

	boom := errors.New("boom")
	for _, c := range rec.Calls() {
		f, err := fault.New(memfs.New(), 1, fault.Rule{Ops: []fault.Op{vfs.Op(c.Op)}, Err: boom})
		switch vfs.Op(c.Op) {
		case vfs.OpMkdirs:
			require.NoError(t, err)
			assert.ErrorIs(t, f.Mkdirs(ctx, dir), boom)
		case vfs.OpCleanTemp:
			require.NoError(t, err)
			_, err = f.CleanTemp(ctx, dir, time.Now(), true)
			assert.ErrorIs(t, err, boom)
		case vfs.OpReadFile:
			// fault matches ReadFile as the Open it is made of, and says so.
			require.ErrorContains(t, err, `operation "read_file" is not one this layer matches`)
		}
	}
}
