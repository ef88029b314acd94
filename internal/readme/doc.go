// Package readme holds, in its tests, every Go snippet of the repository's
// README.md as compiled (and where possible run) code, and a test that the
// README shows exactly that code, so the snippets cannot drift.
package readme
