package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/vfskit/vfskit/cli"
)

// TestUsageDocListsEveryCommand checks the command's doc comment (what go doc
// shows) against the command tree --help prints: every command has a usage
// line (a group such as checkpoints through its subcommands' lines; a line for
// completion covers its shells), and every usage line names a command.
func TestUsageDocListsEveryCommand(t *testing.T) {
	commands := commandPaths(t, nil)
	require.Contains(t, commands, "checkpoints relocate", "the command tree is read from --help")
	lines := usageLines(t)
	documented := slices.Collect(maps.Keys(lines))
	for _, c := range commands {
		group := slices.ContainsFunc(commands, func(sub string) bool { return strings.HasPrefix(sub, c+" ") })
		covered := slices.ContainsFunc(documented, func(d string) bool { return c == d || strings.HasPrefix(c, d+" ") })
		assert.True(t, group || covered, "main.go's doc comment has no usage line for vfskit %s", c)
	}
	for _, d := range documented {
		assert.Contains(t, commands, d, "main.go's doc comment has a usage line for vfskit %s, which --help does not list", d)
	}
	// Every flag a command's own usage line shows is on its line here too.
	for _, c := range commands {
		line, ok := lines[c]
		if !ok {
			continue
		}
		_, use, _ := strings.Cut(helpOf(t, strings.Fields(c)), "Usage:\n")
		use, _, _ = strings.Cut(strings.TrimSpace(use), "\n")
		for _, m := range flagRE.FindAllStringSubmatch(strings.TrimSuffix(use, " [flags]"), -1) {
			flag := m[2]
			assert.Regexp(t, `(^|[^\w-])`+regexp.QuoteMeta(flag)+`\b`, line, "main.go's usage line for vfskit %s does not show %s (--help: %s)", c, flag, use)
		}
	}
}

// flagRE matches the flags in a usage line ("-r", "--no-preserve-root").
var flagRE = regexp.MustCompile(`(^|[\s\[|])(--?[a-zA-Z][\w-]*)`)

// TestHelpListsEveryScheme: the top-level help names every scheme the
// binary serves, each with a line saying how it is addressed.
func TestHelpListsEveryScheme(t *testing.T) {
	help := helpOf(t, nil)
	m := regexp.MustCompile(`This binary serves the schemes ([a-z0-9, ]+)\.`).FindStringSubmatch(help)
	require.NotNil(t, m, "--help says which schemes the binary serves:\n%s", help)
	schemes := strings.Split(m[1], ", ")
	assert.ElementsMatch(t, []string{"file", "memory", "s3", "s3a", "s3p", "gs", "azblob", "abfs", "abfss", "wasb", "wasbs"}, schemes)
	for _, s := range schemes {
		assert.Regexp(t, `(?m)^  `+s+`://\S*\s+\S`, help, "--help shows how %s:// is addressed", s)
	}
}

// helpOf returns what vfskit ARGS... --help prints, with this binary's options.
func helpOf(t *testing.T, args []string) string {
	var out, errOut bytes.Buffer
	code := cli.Run(t.Context(), append(slices.Clip(args), "--help"), cli.Stdio{Out: &out, Err: &errOut}, options...)
	require.Equal(t, cli.ExitOK, code, "vfskit %s --help: %s", strings.Join(args, " "), errOut.String())
	return out.String()
}

// commandPaths returns the commands below vfskit PARENT... as --help lists
// them ("ls", "checkpoints gc"), recursively.
func commandPaths(t *testing.T, parent []string) []string {
	var paths []string
	in := false
	for _, line := range strings.Split(helpOf(t, parent), "\n") {
		switch {
		case strings.HasPrefix(line, "Available Commands:"):
			in = true
		case in && strings.TrimSpace(line) == "":
			in = false
		case in:
			name := strings.Fields(line)[0]
			path := append(slices.Clip(parent), name)
			paths = append(paths, strings.Join(path, " "))
			paths = append(paths, commandPaths(t, path)...)
		}
	}
	return paths
}

// usageLines returns the lines of the Usage section of this package's doc
// comment by the command they are for: "vfskit checkpoints gc DIR ..." is
// "checkpoints gc" (the words up to the first argument or flag).
func usageLines(t *testing.T) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc, "main.go has the package comment")
	_, usage, ok := strings.Cut(f.Doc.Text(), "Usage:\n")
	require.True(t, ok, "the doc comment has a Usage section")
	cmds := map[string]string{}
	for _, line := range strings.Split(usage, "\n") {
		rest, ok := strings.CutPrefix(line, "\tvfskit ")
		if !ok {
			if strings.TrimSpace(line) != "" {
				break // the end of the Usage block
			}
			continue
		}
		var words []string
		for _, w := range strings.Fields(rest) {
			if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
				break
			}
			words = append(words, w)
		}
		if len(words) > 0 {
			cmds[strings.Join(words, " ")] = rest
		}
	}
	return cmds
}

// TestCLIDocNamesEveryCommand: package cli's comment names every command.
func TestCLIDocNamesEveryCommand(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../cli/doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	require.NoError(t, err)
	require.NotNil(t, f.Doc)
	doc := strings.Join(strings.Fields(f.Doc.Text()), " ")
	commands := commandPaths(t, nil)
	for _, c := range commands {
		if c == "help" || strings.HasPrefix(c, "completion") || slices.ContainsFunc(commands, func(sub string) bool { return strings.HasPrefix(sub, c+" ") }) {
			continue
		}
		words := strings.Fields(c)
		assert.Regexp(t, `\b`+regexp.QuoteMeta(words[len(words)-1])+`\b`, doc, "cli's package comment does not name vfskit %s", c)
	}
}
