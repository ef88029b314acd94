package blobfs

import (
	"context"
	"errors"

	"gocloud.dev/blob"

	"github.com/vfskit/vfskit/vfs"
)

var _ vfs.UnnameableFS = (*FileSystem)(nil)

// errEnough stops a listing that found what it looked for.
var errEnough = errors.New("enough")

// Unnameable returns the keys under "dir/" that no vfs.Path names (an
// empty, "." or ".." segment: "dir/./x", "dir//x", "dir/sub/.."), at most
// limit of them, as the store spells them: it lists every key under "dir/"
// (⌈N/ListPageSize⌉ requests), stopping once it has limit. When it finds
// one, it HEADs dir: an object there makes dir a file (as Stat says), which
// has none. vfs.MoveTree asks it before it copies anything
// (vfs.CheckNameable).
func (f *FileSystem) Unnameable(ctx context.Context, dir vfs.Path, limit int) ([]string, error) {
	q, k, err := f.qualifiedKey("list", dir)
	if err != nil {
		return nil, err
	}
	prefix := dirPrefix(k)
	var keys []string
	err = f.listPages(ctx, prefix, "", func(objs []*blob.ListObject) error {
		for _, o := range objs {
			if len(o.Key) >= len(prefix) && !nameable(o.Key[len(prefix):]) {
				keys = append(keys, o.Key)
				if len(keys) >= limit {
					return errEnough
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, f.pathError("list", q, err)
	}
	if len(keys) > 0 && k != "" {
		if _, file, err := f.statObject(ctx, q, k); err != nil || file {
			return nil, f.pathError("list", q, err)
		}
	}
	return keys, nil
}
