package chaos_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/vfskit/vfskit/internal/chaos"
)

func TestCycles(t *testing.T) {
	t.Setenv(chaos.CyclesEnv, "")
	assert.Equal(t, 3, chaos.Cycles(t, 3))
	t.Setenv(chaos.CyclesEnv, "100")
	assert.Equal(t, 100, chaos.Cycles(t, 3))
}

func TestSummary(t *testing.T) {
	s := chaos.NewSummary("demo")
	s.Add("writes", 2)
	s.Add("lost", 0)
	s.Add("writes", 3)
	assert.Equal(t, 5, s.Get("writes"))
	assert.Equal(t, "chaos demo: lost=0 writes=5", s.String())
}
