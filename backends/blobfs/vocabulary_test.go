package blobfs_test

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeVocabulary matches the error vocabulary of particular stores: HTTP
// statuses, S3's error codes and option names. blobfs classifies errors by
// gocloud's codes only; each store maps its own answers (blobfs.ErrorCoder)
// and names its own settings (Store.CheckKey).
var storeVocabulary = regexp.MustCompile(`^(40[0-9]|41[0-9]|50[0-9])$|InvalidRange|NotImplemented|AllowBackslash|HTTPStatusCode|\bS3\b|\bs3\.|net/http|http\.Status`)

// TestNoStoreVocabulary reads the code of blobfs's non-test files (their
// identifiers, numbers and strings; comments may name a store to explain by
// example) and checks that none of it is a store's error vocabulary.
func TestNoStoreVocabulary(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	read := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		read++
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(name, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			switch tok {
			case token.INT, token.STRING, token.IDENT:
				assert.False(t, storeVocabulary.MatchString(lit), "%s: %s is a store's error vocabulary; map it in the store's blobfs.ErrorCoder or CheckKey", fset.Position(pos), lit)
			}
		}
	}
	require.Greater(t, read, 10, "the test read blobfs's sources")
}
