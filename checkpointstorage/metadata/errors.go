package metadata

import (
	"errors"
	"fmt"
	"io/fs"
)

// Errors of the codecs.
var (
	// ErrCorrupt is wrapped by every error about _metadata content that is
	// truncated, corrupted, inconsistent or not a metadata file at all.
	ErrCorrupt = errors.New("corrupt checkpoint metadata")
	// ErrUnsupportedVersion is wrapped when a file's format version is one this
	// package does not read (Flink's version 1, or a version newer than 7).
	ErrUnsupportedVersion = errors.New("unsupported checkpoint metadata version")
)

// corruptAt reports corrupt content at byte offset off of the file.
func corruptAt(off int, format string, args ...any) error {
	return fmt.Errorf("metadata: %w: %s (at byte %d)", ErrCorrupt, fmt.Sprintf(format, args...), off)
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("metadata: %w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// invalid reports a model the encoder cannot write.
func invalid(format string, args ...any) error {
	return fmt.Errorf("metadata: cannot encode: %s: %w", fmt.Sprintf(format, args...), fs.ErrInvalid)
}
