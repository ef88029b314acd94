package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestCtxReaderIsAReader: ctxReader keeps io.Reader's contract, with reads of
// every size and a reader that returns data with its error.
func TestCtxReaderIsAReader(t *testing.T) {
	data := strings.Repeat("0123456789", 1000)
	for name, r := range map[string]io.Reader{
		"plain":    strings.NewReader(data),
		"one byte": iotest.OneByteReader(strings.NewReader(data)),
		"data+EOF": iotest.DataErrReader(strings.NewReader(data)),
		"half":     iotest.HalfReader(strings.NewReader(data)),
	} {
		a := &app{stdio: Stdio{In: r}}
		assert.NoError(t, iotest.TestReader(a.stdin(t.Context()), []byte(data)), name)
	}
	a := &app{stdio: Stdio{In: iotest.TimeoutReader(strings.NewReader(data))}}
	got, err := io.ReadAll(a.stdin(t.Context()))
	assert.ErrorIs(t, err, iotest.ErrTimeout)
	assert.NotEmpty(t, got)
}

// TestStdinInterrupted: Ctrl-C while cp - or cat - waits on input that never
// comes (a terminal, an idle pipe) stops the command with exit 130, and cp
// publishes nothing of what it had read.
func TestStdinInterrupted(t *testing.T) {
	root := memRoot(t)
	for _, args := range [][]string{{"cp", "-", root + "/partial"}, {"cat", "-"}, {"cp", "-", "-"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			pr, pw := io.Pipe()
			defer pw.Close()
			ctx, cancel := context.WithCancel(withLastingMemory(t.Context()))
			var out, errOut bytes.Buffer
			done := make(chan int, 1)
			go func() {
				done <- Run(ctx, args, Stdio{In: pr, Out: &out, Err: &errOut, Terminal: func() bool { return false }})
			}()
			_, err := pw.Write([]byte("half of it")) // returns once the command read it
			require.NoError(t, err)
			cancel() // the command is blocked reading more
			assert.Equal(t, ExitInterrupted, <-done)
			assert.Contains(t, errOut.String(), "vfskit: interrupted: ")
			fsys, err := vfs.Get(t.Context(), root)
			require.NoError(t, err)
			ok, err := vfs.Exists(t.Context(), fsys, vfs.MustPath(root+"/partial"))
			require.NoError(t, err)
			assert.False(t, ok, "nothing published")
		})
	}
}
