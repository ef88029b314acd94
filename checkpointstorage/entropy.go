package checkpointstorage

import (
	"crypto/rand"
	"io"
	"strings"

	"github.com/vfskit/vfskit/vfs"
)

// Entropy injection, ported from Flink's EntropyInjector. The key is configured
// with WithEntropyInjection; a path without the key is left alone.

const entropyAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// isEntropyInjecting reports whether files written under p get entropy.
func (o *options) isEntropyInjecting(p vfs.Path) bool {
	return o.entropyKey != "" && strings.Contains(p.Path(), o.entropyKey)
}

// addEntropy replaces the first occurrence of the key in p's path part with
// random alphanumeric characters.
func (o *options) addEntropy(p vfs.Path) vfs.Path {
	return o.resolveEntropy(p, true)
}

// removeEntropyMarker removes the first occurrence of the key from p's path part.
func (o *options) removeEntropyMarker(p vfs.Path) vfs.Path {
	return o.resolveEntropy(p, false)
}

func (o *options) resolveEntropy(p vfs.Path, inject bool) vfs.Path {
	if !o.isEntropyInjecting(p) {
		return p
	}
	path := p.Path()
	i := strings.Index(path, o.entropyKey)
	var sb strings.Builder
	sb.WriteString(path[:i])
	if inject {
		sb.WriteString(randomString(o.entropyLength, entropyAlphabet))
	}
	sb.WriteString(path[i+len(o.entropyKey):])
	return withPathPart(p, sb.String())
}

// withPathPart returns p with its path part replaced (and normalized), keeping
// scheme and authority. It falls back to p when the result does not parse, which
// cannot happen for the characters the key and the entropy may contain.
func withPathPart(p vfs.Path, path string) vfs.Path {
	s := path
	if p.Scheme() != "" {
		s = p.Scheme() + "://" + p.Authority() + path
	}
	q, err := vfs.NewPath(s)
	if err != nil {
		return p
	}
	return q
}

// randomString returns n characters drawn uniformly from alphabet (at most 256
// characters) with crypto/rand.
func randomString(n int, alphabet string) string {
	return randomStringFrom(rand.Reader, n, alphabet)
}

// randomStringFrom draws from random bytes of src, rejecting the bytes at or above
// the largest multiple of len(alphabet), so that every character is equally
// likely (a plain modulo would favour the first 256 % len(alphabet) ones).
func randomStringFrom(src io.Reader, n int, alphabet string) string {
	limit := 256 - 256%len(alphabet)
	out := make([]byte, 0, n)
	var buf [64]byte
	for len(out) < n {
		if _, err := io.ReadFull(src, buf[:]); err != nil {
			panic("checkpointstorage: reading random bytes: " + err.Error()) // crypto/rand never fails
		}
		for _, c := range buf {
			if int(c) < limit && len(out) < n {
				out = append(out, alphabet[int(c)%len(alphabet)])
			}
		}
	}
	return string(out)
}
