package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Result is one measure of `make bench`, one record of bench/results.json.
type Result struct {
	// Name names the measure, such as "local sequential 256 MiB write+read".
	Name string `json:"name"`
	// Ours and Baseline are the medians of vfskit's and the baseline's value
	// in Unit; Baseline is 0 when the measure has no baseline.
	Ours     float64 `json:"ours"`
	Baseline float64 `json:"baseline"`
	Unit     string  `json:"unit"`
	// Ratio is the median over rounds of the per-round ratio the target is
	// about (baseline time ÷ our time for speed: above 1, vfskit is faster);
	// 0 when the target is not a ratio.
	Ratio float64 `json:"ratio"`
	// CPURatio is the same ratio for process CPU time, when measured.
	CPURatio float64 `json:"cpu_ratio,omitempty"`
	// Target states the goal, such as "ratio ≥ 0.95"; Met says whether it was
	// reached (always true for a measure that is only reported).
	Target string `json:"target"`
	Met    bool   `json:"met"`
	// Requests counts S3 requests by operation: ours for one run of vfskit's
	// side, baseline for the baseline's.
	Requests         map[string]int `json:"requests,omitempty"`
	BaselineRequests map[string]int `json:"baseline_requests,omitempty"`
	// Rounds is how many interleaved rounds the medians are over.
	Rounds int `json:"rounds"`
	// Note says anything else the reader needs (peak heap, bytes fetched).
	Note string `json:"note,omitempty"`
}

// Table writes results as a Markdown table.
func Table(w io.Writer, results []Result) error {
	var b strings.Builder
	b.WriteString("| measure | vfskit | baseline | ratio (cpu) | target | met | requests | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		base, ratio := "—", "—"
		if r.Baseline != 0 {
			base = fmt.Sprintf("%s %s", num(r.Baseline), r.Unit)
		}
		if r.Ratio != 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio)
			if r.CPURatio != 0 {
				ratio += fmt.Sprintf(" (%.2f)", r.CPURatio)
			}
		}
		met := "yes"
		if !r.Met {
			met = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s | %s | %s | %s | %s | %s |\n", r.Name, num(r.Ours), r.Unit, base, ratio,
			r.Target, met, requests(r.Requests, r.BaselineRequests), r.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func requests(ours, base map[string]int) string {
	if ours == nil && base == nil {
		return ""
	}
	s := total(ours)
	if base != nil {
		s += " vs " + total(base)
	}
	return s
}

func total(m map[string]int) string {
	n := 0
	for _, c := range m {
		n += c
	}
	return fmt.Sprint(n)
}

// WriteJSON writes results as an indented JSON array to path, creating its
// directory, through a temporary file renamed into place.
func WriteJSON(path string, results []Result) error {
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o666); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
