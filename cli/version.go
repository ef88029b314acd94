package cli

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// version describes the running binary for --version: the main module's
// version and, when the build recorded them, the commit, its time and whether
// the tree had uncommitted changes, from runtime/debug build information.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "vfskit (unknown version: built without module support)"
	}
	return versionOf(info)
}

// versionOf formats info as --version prints it, for example
// "vfskit v1.2.0 (commit 0123456789ab, 2026-12-03T07:00:00Z, modified; go1.26.0)".
func versionOf(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var details []string
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		details = append(details, "commit "+rev)
	}
	if t := settings["vcs.time"]; t != "" {
		details = append(details, t)
	}
	if settings["vcs.modified"] == "true" {
		details = append(details, "modified")
	}
	suffix := info.GoVersion
	if len(details) > 0 {
		suffix = strings.Join(details, ", ") + "; " + suffix
	}
	return fmt.Sprintf("vfskit %s (%s)", v, suffix)
}
