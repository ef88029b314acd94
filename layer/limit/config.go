package limit

import (
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vfskit/vfskit/vfs"
)

// The option names after "fs.<scheme>.", Flink's CoreOptions
// fileSystemConnectionLimit*.
const (
	OptionTotal         = "limit.total"          // maximum open streams
	OptionInput         = "limit.input"          // maximum open input streams
	OptionOutput        = "limit.output"         // maximum open output streams
	OptionTimeout       = "limit.timeout"        // wait for a slot, in milliseconds
	OptionStreamTimeout = "limit.stream-timeout" // inactivity timeout, in milliseconds
)

var options = []string{OptionTotal, OptionInput, OptionOutput, OptionTimeout, OptionStreamTimeout}

// Key returns the full configuration key of option for scheme, such as
// "fs.s3.limit.total".
func Key(scheme, option string) string { return "fs." + strings.ToLower(scheme) + "." + option }

// FromConfig reads the limits of scheme from conf, Flink's
// ConnectionLimitingSettings.fromConfig: the limits fs.<scheme>.limit.total,
// .input and .output are integers (-1 or 0 for none, the default), the
// timeouts fs.<scheme>.limit.timeout and .stream-timeout are milliseconds
// ("30000") or Go durations ("30s"), 0 (the default) for none. ok is false
// when no limit is set, as Flink returns null. An invalid value, or an
// unknown option under fs.<scheme>.limit., fails with fs.ErrInvalid naming
// the key and the value.
func FromConfig(conf map[string]string, scheme string) (s Settings, ok bool, err error) {
	prefix := Key(scheme, "limit.")
	for k := range conf {
		if strings.HasPrefix(strings.ToLower(k), prefix) && !slices.Contains(options, strings.ToLower(k)[len(prefix)-len("limit."):]) {
			return Settings{}, false, fmt.Errorf("limit: %w: unknown option '%s' (expected one of %s)",
				fs.ErrInvalid, k, strings.Join(keys(scheme), ", "))
		}
	}
	limits := []*int{&s.Total, &s.Input, &s.Output}
	for i, opt := range options[:3] {
		if *limits[i], err = limitValue(conf, Key(scheme, opt)); err != nil {
			return Settings{}, false, err
		}
	}
	if s.Total == 0 && s.Input == 0 && s.Output == 0 {
		return Settings{}, false, nil
	}
	if s.OpenTimeout, err = timeoutValue(conf, Key(scheme, OptionTimeout)); err != nil {
		return Settings{}, false, err
	}
	if s.StreamTimeout, err = timeoutValue(conf, Key(scheme, OptionStreamTimeout)); err != nil {
		return Settings{}, false, err
	}
	return s, true, nil
}

func keys(scheme string) []string {
	k := make([]string, len(options))
	for i, o := range options {
		k[i] = Key(scheme, o)
	}
	return k
}

// lookup finds key in conf, case-insensitively.
func lookup(conf map[string]string, key string) (string, bool) {
	if v, ok := conf[key]; ok {
		return v, true
	}
	for k, v := range conf {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

func limitValue(conf map[string]string, key string) (int, error) {
	v, ok := lookup(conf, key)
	if !ok {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < -1 {
		return 0, fmt.Errorf("limit: %w: invalid value for '%s': %q (expected a whole number of streams, -1 or 0 for no limit)", fs.ErrInvalid, key, v)
	}
	return max(n, 0), nil
}

func timeoutValue(conf map[string]string, key string) (time.Duration, error) {
	v, ok := lookup(conf, key)
	if !ok {
		return 0, nil
	}
	v = strings.TrimSpace(v)
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil && ms >= 0 && ms <= int64(1<<63-1)/int64(time.Millisecond) {
		return time.Duration(ms) * time.Millisecond, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, nil
	}
	return 0, fmt.Errorf("limit: %w: invalid value for '%s': %q (expected milliseconds such as 30000, or a duration such as 30s; 0 for none)", fs.ErrInvalid, key, v)
}

// Configure puts a limit layer over every file system that r creates from now
// on for each registered scheme that conf limits (see FromConfig), as Flink's
// ConnectionLimitingFactory does; schemes conf does not limit are left as
// they are. It reads every scheme's settings before it changes anything, so
// an invalid value changes nothing.
func Configure(r *vfs.Registry, conf map[string]string) error {
	type pending struct {
		scheme string
		s      Settings
	}
	var todo []pending
	for _, scheme := range r.Schemes() {
		s, ok, err := FromConfig(conf, scheme)
		if err != nil {
			return err
		}
		if ok {
			todo = append(todo, pending{scheme, s})
		}
	}
	for _, p := range todo {
		s := p.s
		if err := r.AddLayer(p.scheme, func(_ context.Context, _ *url.URL, fsys vfs.FileSystem) (vfs.FileSystem, error) {
			return New(fsys, s)
		}); err != nil {
			return err
		}
	}
	return nil
}
