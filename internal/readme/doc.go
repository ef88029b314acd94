// Package readme keeps the documentation honest. Its tests hold every Go
// snippet of README.md and of the guides in docs/ as compiled (and where
// possible run) code, check that the documents show exactly that code (and
// compile README.md's snippets as shown, imports included), keep README.md
// short, and check that every relative link of the documents reaches a file
// and heading that exist.
package readme
