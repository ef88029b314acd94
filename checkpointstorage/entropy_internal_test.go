package checkpointstorage

import (
	"strings"
	"testing"
)

// cycle serves the bytes next, next+1, ..., 255, 0, 1, ... forever.
type cycle struct{ next byte }

func (c *cycle) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = c.next
		c.next++
	}
	return len(p), nil
}

// TestRandomStringIsUniform feeds the bytes 248..255 first, then 0..247: the
// first eight must be rejected (a plain modulo maps them to 'a'..'h' once more),
// leaving each of the 62 entropy characters exactly 4 times, and each hex digit
// of a savepoint name appears exactly 16 times in 256 draws.
func TestRandomStringIsUniform(t *testing.T) {
	for _, tc := range []struct {
		alphabet string
		n, each  int
	}{{entropyAlphabet, 248, 4}, {"0123456789abcdef", 256, 16}} {
		s := randomStringFrom(&cycle{next: 248}, tc.n, tc.alphabet)
		if len(s) != tc.n {
			t.Fatalf("got %d characters, want %d", len(s), tc.n)
		}
		for _, c := range []byte(tc.alphabet) {
			if got := strings.Count(s, string(c)); got != tc.each {
				t.Errorf("alphabet %q: %q appears %d times, want %d", tc.alphabet, c, got, tc.each)
			}
		}
	}
	if s := randomString(DefaultEntropyLength, entropyAlphabet); len(s) != DefaultEntropyLength || strings.Trim(s, entropyAlphabet) != "" {
		t.Errorf("randomString = %q", s)
	}
}
