package vfs

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// UnnameableFS is implemented by file systems that can hold objects no Path
// names: an object store's keys with an empty, "." or ".." segment
// ("src//x", "src/./x", "src/sub/.."), which another client may write. A
// Path cannot spell them ("." and ".." resolve, "//" collapses), so listings
// leave them out, and a tree operation that trusts a listing would pass them
// by in silence. CheckNameable uses it.
type UnnameableFS interface {
	FileSystem
	// Unnameable returns the keys below the directory dir that no Path
	// names, exactly as the store spells them, at most limit of them (limit
	// > 0). A dir that is a file, or missing, has none.
	Unnameable(ctx context.Context, dir Path, limit int) ([]string, error)
}

// Unnameable returns the keys below dir on fsys that no Path names, at most
// limit of them: fsys's Unnameable (UnnameableFS); a file system without it
// holds none and gets nil.
func Unnameable(ctx context.Context, fsys FileSystem, dir Path, limit int) ([]string, error) {
	u, ok := fsys.(UnnameableFS)
	if !ok {
		return nil, nil
	}
	return u.Unnameable(ctx, dir, limit)
}

// unnameableShown is how many keys CheckNameable's error names at most.
const unnameableShown = 20

// CheckNameable returns nil when every object below dir on fsys is one that
// a Path names, and otherwise an *fs.PathError wrapping fs.ErrInvalid that
// names the keys that are not (up to 20; it says when there are more). It
// asks fsys's UnnameableFS (one listing of dir's keys on an object store);
// a file system without it holds no such object and gets nil at no cost.
// MoveTree calls it before it copies anything; CopyTree, to name the keys it
// does not copy.
func CheckNameable(ctx context.Context, fsys FileSystem, dir Path) error {
	_, err := checkNameable(ctx, fsys, dir, "move", "which a move would leave behind", "nothing was copied or deleted (rename or remove them with the store's own tools)")
	return err
}

// checkNameable is CheckNameable for the operation op: it also returns the
// keys (up to unnameableShown), and its error says what they are to op
// (which) and what op did about them (done).
func checkNameable(ctx context.Context, fsys FileSystem, dir Path, op, which, done string) ([]string, error) {
	keys, err := Unnameable(ctx, fsys, dir, unnameableShown+1)
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	more := ""
	if len(keys) > unnameableShown {
		keys, more = keys[:unnameableShown], " and more"
	}
	quoted := make([]string, 0, len(keys))
	for _, k := range keys {
		quoted = append(quoted, strconv.Quote(k))
	}
	return keys, NewPathError(op, dir, fmt.Errorf("%w: it holds keys that no path names (an empty, \".\" or \"..\" segment), %s: %s%s; %s",
		fs.ErrInvalid, which, strings.Join(quoted, ", "), more, done))
}
