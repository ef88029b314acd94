package otel_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

func TestRecoverableSpans(t *testing.T) {
	ctx := t.Context()
	f, spans, _ := recorded(t, memfs.New())
	w, err := vfs.NewRecoverableWriter(f)
	require.NoError(t, err)
	out, err := w.Open(ctx, vfs.MustPath("/out/part-0"))
	require.NoError(t, err)
	_, err = out.Write([]byte("result"))
	require.NoError(t, err)
	_, err = out.Persist(ctx)
	require.NoError(t, err)
	c, err := out.CloseForCommit(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Commit(ctx))
	_, err = w.Recover(ctx, []byte("not a token"))
	require.Error(t, err)

	var names []string
	for _, s := range spans.Ended() {
		names = append(names, s.Name())
	}
	require.Equal(t, []string{"vfskit.recoverable_open", "vfskit.persist", "vfskit.close_for_commit", "vfskit.commit", "vfskit.recover"}, names)
	attrs := attribute.NewSet(spans.Ended()[4].Attributes()...)
	et, _ := attrs.Value("error.type")
	require.Equal(t, "invalid", et.Emit(), "error.type of the refused token's span")
	got, err := vfs.ReadFile(ctx, f, vfs.MustPath("/out/part-0"))
	require.NoError(t, err)
	require.Equal(t, "result", string(got))
}
