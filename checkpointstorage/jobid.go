package checkpointstorage

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
)

// JobID identifies a job: 16 bytes, written as 32 lowercase hex characters, like
// Flink's JobID. The job's checkpoints live in <checkpoints base>/<JobID>/.
type JobID [16]byte

// NewJobID returns a random JobID.
func NewJobID() JobID {
	var id JobID
	_, _ = rand.Read(id[:])
	return id
}

// ParseJobID parses the 32 hex characters of String (either case). Any other
// input fails with Flink's "Cannot parse JobID from "..."." message, which names
// it, and an error that errors.Is fs.ErrInvalid.
func ParseJobID(s string) (JobID, error) {
	var id JobID
	if len(s) != 2*len(id) {
		return JobID{}, invalidJobID(s)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return JobID{}, invalidJobID(s)
	}
	return id, nil
}

func invalidJobID(s string) error {
	return fmt.Errorf("Cannot parse JobID from %q. The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.: %w", s, fs.ErrInvalid)
}

// String returns the 32 lowercase hex characters of id.
func (id JobID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero JobID (no job).
func (id JobID) IsZero() bool { return id == JobID{} }

// MarshalText implements encoding.TextMarshaler with String.
func (id JobID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseJobID.
func (id *JobID) UnmarshalText(b []byte) error {
	v, err := ParseJobID(string(b))
	if err != nil {
		return err
	}
	*id = v
	return nil
}
