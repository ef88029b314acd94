package vfs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestWaitCleanups: WaitCleanups returns once every cleanup begun has ended,
// and gives up when its context ends first; a second end call does nothing.
func TestWaitCleanups(t *testing.T) {
	require.NoError(t, vfs.WaitCleanups(t.Context()), "none in flight")

	end1, end2 := vfs.BeginCleanup(), vfs.BeginCleanup()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, vfs.WaitCleanups(cancelled), context.Canceled, "two in flight")

	done := make(chan error, 1)
	go func() { done <- vfs.WaitCleanups(t.Context()) }()
	end1()
	end1() // once only: end2's cleanup still counts
	select {
	case err := <-done:
		t.Fatalf("WaitCleanups returned %v with a cleanup in flight", err)
	default:
	}
	end2()
	require.NoError(t, <-done)
}
