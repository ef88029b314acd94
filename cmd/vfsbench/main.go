// Command vfsbench runs make bench's measures (internal/bench/suite): vfskit
// against its baselines, interleaved in one process, several rounds, median
// ratios. It prints a Markdown table and writes the results as JSON.
//
//	go run ./cmd/vfsbench [-rounds 5] [-big 256] [-files 10000] [-keys 10000] [-out bench/results.json]
//	go run ./cmd/vfsbench -only 'checkpoint s3' -cpuprofile cpu.out   # then: go tool pprof cpu.out
//
// The S3 measures run against a SeaweedFS it starts on 127.0.0.1 (the binary
// from $VFSKIT_WEED_BIN or scripts/build-seaweedfs.sh's cache, as the tests
// find it); -s3=false, or no binary, skips them (with VFSKIT_REQUIRE_S3=1 a
// missing binary is an error). The Flink measures run the harness
// (interop/flink/flink) of the newest Flink version it lists against a vfskit
// binary built for them; -flink=false, or no Java or Maven, skips them (with
// VFSKIT_REQUIRE_FLINK=1 that is an error). The copy measures run vfskit cp
// against rclone (from $VFSKIT_RCLONE_BIN or scripts/build-rclone.sh's
// cache; with VFSKIT_REQUIRE_S3=1 the script builds a missing one) on that
// SeaweedFS; -rclone=false skips them. The exit status is 0 even when a target is
// missed: the table and the JSON say which.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"runtime/pprof"

	"github.com/vfskit/vfskit/internal/bench"
	"github.com/vfskit/vfskit/internal/bench/suite"
	"github.com/vfskit/vfskit/internal/flinktest"
	"github.com/vfskit/vfskit/internal/s3test"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "vfsbench:", err)
		os.Exit(1)
	}
}

func run() error {
	c := suite.Default()
	out := flag.String("out", "bench/results.json", "where to write the results as JSON")
	useS3 := flag.Bool("s3", true, "run the S3 measures on a SeaweedFS started for them")
	useRclone := flag.Bool("rclone", true, "run the copy measures against rclone (built by scripts/build-rclone.sh; needs the S3 measures' server)")
	useFlink := flag.Bool("flink", true, "run the measures against Flink's own reading of _metadata (the interop/flink harness)")
	tiny := flag.Bool("tiny", false, "smoke-test sizes (every measure once, tiny)")
	flag.IntVar(&c.Rounds, "rounds", c.Rounds, "interleaved rounds per measure")
	big := flag.Int("big", c.Big/(1<<20), "size of the large sequential file, MiB")
	flag.IntVar(&c.Files, "files", c.Files, "number of 4 KiB files of the local small-file measure")
	flag.IntVar(&c.Keys, "keys", c.Keys, "number of objects of the S3 list and delete measures")
	flag.IntVar(&c.States, "states", c.States, "number of 1 MiB states of the checkpoint measures")
	flag.StringVar(&c.Dir, "dir", "", "directory of the local measures (default: the temporary directory)")
	only := flag.String("only", "", "run only the measures whose group name matches this regular expression")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile (go tool pprof) of the whole run to this file")
	flag.Parse()
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			return fmt.Errorf("-only %q: %w", *only, err)
		}
		c.Only = re
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *tiny {
		d, o := c.Dir, c.Only
		c = suite.Tiny()
		c.Dir, c.Only = d, o
	} else {
		c.Big = *big << 20
	}
	c.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *useS3 {
		// Volumes that hold all a measure writes to its bucket (both sides,
		// every round; 30000 MB is SeaweedFS's most): SeaweedFS pauses writes
		// for about a second each time a bucket's volume fills, 1 GiB by
		// default, which at 256 MiB a side is the start of every other round,
		// always on the side that goes first in it.
		volumeMB := min(30000, (2*c.Rounds+1)*c.Big>>20+1024)
		srv, err := s3test.StartSeaweedFS(ctx, s3test.SeaweedOptions{Build: s3test.Required(), VolumeSizeLimitMB: volumeMB})
		switch {
		case err == nil:
			defer srv.Close()
			c.S3 = srv
		case s3test.Required():
			return err
		default:
			fmt.Fprintf(os.Stderr, "vfsbench: skipping the S3 measures: %v\n", err)
		}
	}
	if *useFlink && (c.Only == nil || c.Only.MatchString("flink inspect")) {
		fc, cleanup, err := flinkConfig()
		switch {
		case err == nil:
			defer cleanup()
			c.Flink = fc
		case os.Getenv(flinktest.RequireEnv) == "1":
			return err
		default:
			fmt.Fprintf(os.Stderr, "vfsbench: skipping the Flink measures: %v\n", err)
		}
	}
	if *useRclone && c.S3 != nil && (c.Only == nil || c.Only.MatchString("copy upload") || c.Only.MatchString("copy download")) {
		tools, cleanup, err := copyTools()
		switch {
		case err == nil:
			defer cleanup()
			c.Tools = tools
		case s3test.Required():
			return err
		default:
			fmt.Fprintf(os.Stderr, "vfsbench: skipping the copy measures against rclone: %v\n", err)
		}
	}
	results, err := suite.Run(ctx, c)
	if werr := bench.WriteJSON(*out, results); werr != nil && err == nil {
		err = werr
	}
	if terr := bench.Table(os.Stdout, results); terr != nil && err == nil {
		err = terr
	}
	return err
}

// flinkConfig builds the newest Flink version's harness and a vfskit binary.
func flinkConfig() (*suite.FlinkConfig, func(), error) {
	script, err := flinktest.FindScript()
	if err != nil {
		return nil, nil, err
	}
	versions, err := flinktest.ListVersions(script)
	if err != nil {
		return nil, nil, err
	}
	h := &flinktest.Harness{Script: script, Version: versions[len(versions)-1]}
	if _, stderr, err := h.Run("build"); err != nil {
		return nil, nil, fmt.Errorf("building the Flink %s harness: %w\n%s", h.Version, err, stderr)
	}
	bin, cleanup, err := buildVfskit()
	if err != nil {
		return nil, nil, err
	}
	return &suite.FlinkConfig{Harness: h, Vfskit: bin}, cleanup, nil
}

// copyTools finds rclone (building it with VFSKIT_REQUIRE_S3=1 when it is
// missing) and builds a vfskit binary.
func copyTools() (*suite.CopyTools, func(), error) {
	rclone, err := suite.FindRclone(s3test.Required())
	if err != nil {
		return nil, nil, err
	}
	bin, cleanup, err := buildVfskit()
	if err != nil {
		return nil, nil, err
	}
	return &suite.CopyTools{Vfskit: bin, Rclone: rclone}, cleanup, nil
}

// buildVfskit builds a vfskit binary into a temporary directory, which the
// returned function removes.
func buildVfskit() (string, func(), error) {
	dir, err := os.MkdirTemp("", "vfsbench-bin-")
	if err != nil {
		return "", nil, err
	}
	bin, err := suite.BuildVfskit(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}
