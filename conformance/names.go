package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// specialNames are file names that break backends which build URLs, object keys or
// query strings from paths without escaping them.
var specialNames = []string{
	"with space",
	"  leading and trailing  ",
	"ünïcødé-日本語-😀",
	"per%cent",
	"per%20cent",
	"%2F-escaped-slash",
	"plus+sign",
	"hash#tag",
	"question?mark",
	"query?a=b&c=d",
	"semi;colon",
	"tilde~",
	"quote'and\"double",
	"at@sign",
	"dollar$",
	"brackets[0]{1}(2)",
	"comma,",
	".hidden",
	"...",
	"a-dash",
	"UPPER",
}

// nameCases write, list, stat, read, rename and delete files and directories with
// special characters in their names.
var nameCases = []testCase{
	{name: "Files", run: func(t *testing.T, e *env) {
		for i, name := range specialNames {
			e.write(t, e.path(name), pattern(uint64(400+i), 0, i))
		}
		got := e.names(t, e.dir)
		requireSameNames(t, specialNames, got, "List(%s) of files with special names", e.dir)
		requireSorted(t, got, e.dir)
		for i, name := range specialNames {
			p := e.path(name)
			e.requireContent(t, p, pattern(uint64(400+i), 0, i))
			// The path's string form parses back to a path that names the same file.
			again, err := vfs.NewPath(p.String())
			require.NoError(t, err, "NewPath(%q)", p.String())
			e.requireContent(t, again, pattern(uint64(400+i), 0, i))
		}
		for i, name := range specialNames {
			src, dst := e.path(name), e.path("renamed", name)
			require.NoError(t, e.fsys.Rename(e.ctx, src, dst), "Rename(%q, %q)", src, dst)
			e.requireMissing(t, src)
			e.requireContent(t, dst, pattern(uint64(400+i), 0, i))
		}
		requireSameNames(t, specialNames, e.names(t, e.path("renamed")), "List of renamed files with special names")
		for _, name := range specialNames {
			p := e.path("renamed", name)
			require.NoError(t, e.fsys.Delete(e.ctx, p, false), "Delete(%q)", p)
			e.requireMissing(t, p)
		}
	}},
	{name: "Directories", run: func(t *testing.T, e *env) {
		for _, name := range specialNames {
			e.write(t, e.path(name, name), []byte(name))
		}
		requireSameNames(t, specialNames, e.names(t, e.dir), "List(%s) of directories with special names", e.dir)
		for _, name := range specialNames {
			d := e.path(name)
			e.requireDir(t, d)
			require.Equal(t, []string{name}, e.names(t, d), "List(%q)", d)
			e.requireContent(t, d.Join(name), []byte(name))
		}
		for _, name := range specialNames {
			d := e.path(name)
			requirePathError(t, e.fsys.Delete(e.ctx, d, false), vfs.ErrDirNotEmpty, d, "Delete(%q, recursive=false)", d)
			require.NoError(t, e.fsys.Delete(e.ctx, d, true), "Delete(%q, recursive=true)", d)
			e.requireMissing(t, d)
		}
		require.Empty(t, e.namesOfEmpty(t, e.dir), "List(%s) after deleting every directory", e.dir)
	}},
}
