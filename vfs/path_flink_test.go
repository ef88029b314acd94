package vfs_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/vfs"
)

// TestPathFollowsFlinkPathTest ports Apache Flink's PathTest
// (flink-core/src/test/java/org/apache/flink/core/fs/PathTest.java) case by case:
// testPathFromString, testIsAbsolute, testGetName, testGetParent, testSuffix,
// testDepth and testParsing. Flink's null is "" here.
func TestPathFollowsFlinkPathTest(t *testing.T) {
	t.Run("testPathFromString", func(t *testing.T) {
		for _, tt := range []struct{ in, path, scheme string }{
			{"/my/path", "/my/path", ""},
			{"/my/path/", "/my/path", ""},
			{"/my//path/", "/my/path", ""},
			{"/my//path//a///", "/my/path/a", ""},
			{`\my\path\\a\\\`, "/my/path/a", ""},
			{"hdfs:///my/path", "/my/path", "hdfs"},
			{"hdfs:///my/path/", "/my/path", "hdfs"},
			{"file:///my/path", "/my/path", "file"},
			{"C:/my/windows/path", "/C:/my/windows/path", ""},
			{"file:/C:/my/windows/path", "/C:/my/windows/path", "file"},
		} {
			p, err := vfs.NewPath(tt.in)
			require.NoError(t, err, tt.in)
			assert.Equal(t, tt.path, p.Path(), tt.in)
			assert.Equal(t, tt.scheme, p.Scheme(), tt.in)
		}
		_, err := vfs.NewPath("")
		assert.ErrorIs(t, err, fs.ErrInvalid)
	})
	t.Run("testIsAbsolute", func(t *testing.T) {
		for in, abs := range map[string]bool{
			"/my/abs/path": true, "/": true, "./my/rel/path": false, "my/rel/path": false,
			"C:/my/abs/windows/path": true, "y:/my/abs/windows/path": true,
			"/y:/my/abs/windows/path": true, `b:\my\abs\windows\path`: true, "/c:/my/dir": true,
			"/C:/": true, "C:": false, "C:/": true, `C:my\relative\path`: false, `\my\dir`: true,
			`\`: true, `.\my\relative\path`: false, `my\relative\path`: false, `\\myServer\myDir`: true,
		} {
			assert.Equal(t, abs, vfs.MustPath(in).IsAbsolute(), in)
		}
	})
	t.Run("testGetName", func(t *testing.T) {
		for in, name := range map[string]string{
			"/my/fancy/path": "path", "/my/fancy/path/": "path", "hdfs:///my/path": "path",
			"hdfs:///myPath/": "myPath", "/": "", "C:/my/windows/path": "path",
			"file:/C:/my/windows/path": "path",
		} {
			assert.Equal(t, name, vfs.MustPath(in).Name(), in)
		}
	})
	t.Run("testGetParent", func(t *testing.T) {
		for in, parent := range map[string]string{
			"/my/fancy/path": "/my/fancy", "/my/other/fancy/path/": "/my/other/fancy",
			"hdfs:///my/path": "/my", "hdfs:///myPath/": "/", "C:/my/windows/path": "/C:/my/windows",
		} {
			assert.Equal(t, parent, vfs.MustPath(in).Parent().Path(), in)
		}
		assert.True(t, vfs.MustPath("/").Parent().IsZero())
	})
	t.Run("testSuffix", func(t *testing.T) {
		assert.Equal(t, "/my/path_123", vfs.MustPath("/my/path").Suffix("_123").Path())
		assert.Equal(t, "/my/path/abc", vfs.MustPath("/my/path/").Suffix("/abc").Path())
		assert.Equal(t, "/C:/my/windows/path/abc", vfs.MustPath("C:/my/windows/path").Suffix("/abc").Path())
	})
	t.Run("testDepth", func(t *testing.T) {
		for in, depth := range map[string]int{
			"/my/path": 2, "/my/fancy/path/": 3,
			"/my/fancy/fancy/fancy/fancy/fancy/fancy/fancy/fancy/fancy/fancy/path": 12,
			"/": 0, "C:/my/windows/path": 4,
		} {
			assert.Equal(t, depth, vfs.MustPath(in).Depth(), in)
		}
	})
	t.Run("testParsing", func(t *testing.T) {
		for _, tt := range []struct{ in, scheme, authority, path string }{
			{"hdfs://localhost:8000/test/test", "hdfs", "localhost:8000", "/test/test"},
			{"hdfs:///test/test", "hdfs", "", "/test/test"},
			{"hdfs:/test/test", "hdfs", "", "/test/test"},
			{"hdfs://test/test", "hdfs", "test", "/test"}, // "incorrect usage" in Flink's words
			{"hdfs:////test/test", "hdfs", "", "/test/test"},
		} {
			p := vfs.MustPath(tt.in)
			assert.Equal(t, tt.scheme, p.Scheme(), tt.in)
			assert.Equal(t, tt.authority, p.Authority(), tt.in)
			assert.Equal(t, tt.path, p.Path(), tt.in)
		}
	})
}

// TestPathFidelityCases are the points where a Path must match Flink's.
func TestPathFidelityCases(t *testing.T) {
	c := vfs.MustPath("C:")
	assert.False(t, c.IsAbsolute(), "C: is relative")
	assert.Equal(t, "C:", c.String())
	assert.Equal(t, 4, vfs.MustPath("C:/my/windows/path").Depth(), "the drive counts")

	unc := vfs.MustPath(`\\server\share`)
	assert.Equal(t, "", unc.Authority(), `\\server\share is a path, not an authority`)
	assert.Equal(t, "/server/share", unc.Path())

	assert.Equal(t, "s3://bucket/", vfs.MustPath("s3://bucket").String())

	_, err := vfs.MustPath("s3://bucket/base").Resolve("//other/x")
	require.ErrorIs(t, err, fs.ErrInvalid, "a child with an authority never switches buckets")
	assert.Contains(t, err.Error(), "//other/x")
}
