package demo

import (
	"math"
	"sort"
)

// Stream is the job's deterministic source: an endless sequence of words whose
// frequencies follow a Zipf-like law, as words in text do. The word at offset i
// depends only on the seed and i, so a replay from any offset yields exactly
// the records of the first run.
type Stream struct {
	seed  uint64
	words []string
	cdf   []float64 // cumulative weights, normalized to 1
}

// NewStream returns the stream for seed over a vocabulary of vocabulary
// distinct words (at least 1).
func NewStream(seed uint64, vocabulary int) *Stream {
	vocabulary = max(vocabulary, 1)
	s := &Stream{seed: seed, words: make([]string, vocabulary), cdf: make([]float64, vocabulary)}
	total := 0.0
	for k := range vocabulary {
		s.words[k] = wordName(k)
		total += 1 / math.Pow(float64(k+1), 1.07)
		s.cdf[k] = total
	}
	for k := range s.cdf {
		s.cdf[k] /= total
	}
	return s
}

// At returns the word at offset i.
func (s *Stream) At(i int64) string {
	u := float64(splitmix64(s.seed^uint64(i)*0x9e3779b97f4a7c15)>>11) / (1 << 53)
	k := sort.SearchFloat64s(s.cdf, u)
	if k >= len(s.words) {
		k = len(s.words) - 1
	}
	return s.words[k]
}

// splitmix64 is a fast, well-mixing 64-bit hash (the SplitMix64 finalizer).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// syllables build pronounceable, distinct words: word k spells k in base
// len(syllables).
var syllables = []string{
	"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ba", "de", "fi", "go", "hu", "ja", "ke", "li",
	"ma", "no", "pe", "qui", "ra", "se", "to", "un", "va", "we", "xo", "yu", "ze", "an", "el", "or",
}

func wordName(k int) string {
	b := syllables[k%len(syllables)]
	for k /= len(syllables); k > 0; k /= len(syllables) {
		b += syllables[k%len(syllables)]
	}
	return b
}

// partition routes a key to one of n subtasks, like Flink's keyBy: the same key
// always goes to the same subtask.
func partition(key string, n int) int {
	h := uint64(14695981039346656037) // FNV-1a
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return int(h % uint64(n))
}
