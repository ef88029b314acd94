package demo

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/backends/memfs"
	"github.com/vfskit/vfskit/vfs"
)

// TestSinkCrashBeforeCommit: a job that dies after its checkpoint completed
// but before it committed the checkpoint's parts commits them at restore, and
// continues its part in progress without the lines written after the
// checkpoint.
func TestSinkCrashBeforeCommit(t *testing.T) {
	ctx := t.Context()
	fsys, dir := memfs.NewTest(t)
	w, err := vfs.NewRecoverableWriter(fsys)
	require.NoError(t, err)
	s := &sink{w: w, dir: dir, subtask: 0}
	var want []string
	line := func(i int) { // one line; about 18 bytes, so parts roll every ~7,000
		word := fmt.Sprintf("w%08d", i)
		s.write(ctx, word, int64(i+1))
		want = append(want, fmt.Sprintf("%s %d", word, i+1))
	}
	for i := range 20_000 {
		line(i)
	}
	st, err := s.snapshot(ctx, false)
	require.NoError(t, err)
	require.Len(t, st.pending, 2, "parts closed before the checkpoint")
	require.NotNil(t, st.resume, "the part in progress")
	checkpointed := len(want)
	for i := 20_000; i < 30_000; i++ { // written after the checkpoint: lost in the crash
		line(i)
	}
	// The crash: nothing committed, the sink dropped.
	list, err := fsys.List(ctx, dir)
	require.NoError(t, err)
	for _, f := range list {
		require.False(t, strings.HasPrefix(f.Name(), "part-"), "%s visible before the commit", f.Name())
	}

	restored, err := unmarshalSinkState(st.marshal())
	require.NoError(t, err)
	s, err = restoreSink(ctx, w, dir, 0, restored)
	require.NoError(t, err)
	want = want[:checkpointed]
	for i := 20_000; i < 25_000; i++ { // replayed
		line(i)
	}
	st, err = s.snapshot(ctx, true)
	require.NoError(t, err)
	require.NoError(t, commitAll(ctx, w, st.pending, false))

	var got []string
	list, err = fsys.List(ctx, dir)
	require.NoError(t, err)
	for _, f := range list {
		if strings.HasPrefix(f.Name(), "part-") {
			data, err := vfs.ReadFile(ctx, fsys, f.Path)
			require.NoError(t, err)
			got = append(got, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	require.Equal(t, want, got, "the output: every line once")
	require.Len(t, got, 25_000)
}
