package readme_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxREADMELines is how long README.md may be: what vfskit is, how to install
// and start, the library at a glance, and links; everything else is a guide.
const maxREADMELines = 300

// TestREADMEIsShort keeps README.md at most maxREADMELines lines.
func TestREADMEIsShort(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	require.NoError(t, err)
	lines := strings.Count(string(b), "\n")
	assert.LessOrEqual(t, lines, maxREADMELines, "README.md has %d lines: move the details into a guide in docs/ and link it", lines)
}

// TestDocLinks checks every relative link of README.md, bench/README.md and
// docs/*.md: the file it names exists, and an #anchor names a heading of it.
func TestDocLinks(t *testing.T) {
	root := moduleRoot(t)
	files := markdownFiles(t, root)
	require.Contains(t, files, filepath.Join("docs", "cli.md"), "the guides are found")
	for _, doc := range files {
		text, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		links := markdownLinks(string(text))
		for _, link := range links {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(link, "#")
			target := filepath.Join(root, doc)
			if file != "" {
				target = filepath.Join(filepath.Dir(target), filepath.FromSlash(file))
			}
			info, err := os.Stat(target)
			if !assert.NoError(t, err, "%s links to %q, which does not exist", doc, link) {
				continue
			}
			if anchor == "" {
				continue
			}
			if !assert.False(t, info.IsDir(), "%s links to %q: an anchor in a directory", doc, link) ||
				!assert.True(t, strings.HasSuffix(target, ".md"), "%s links to %q: an anchor in a file that is not Markdown", doc, link) {
				continue
			}
			md, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Contains(t, headingAnchors(string(md)), anchor, "%s links to %q: no heading of %s has that anchor", doc, link, file)
		}
	}
}

// TestDocLinkHelpers: links in code are not links, anchors are GitHub's.
func TestDocLinkHelpers(t *testing.T) {
	md := "# A title\n\nSee [x](docs/x.md#a-b) and [y](#c).\n\n```sh\nls [z](nope.md)\n```\n`[w](no.md)`\n" +
		"## A local S3 server: `make s3-server`\n## The demo\n## The demo\n"
	assert.Equal(t, []string{"docs/x.md#a-b", "#c"}, markdownLinks(md))
	assert.Equal(t, map[string]bool{"a-title": true, "a-local-s3-server-make-s3-server": true, "the-demo": true, "the-demo-1": true},
		headingAnchors(md))
}

var (
	linkRE       = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	inlineCodeRE = regexp.MustCompile("`[^`]*`")
)

// markdownLinks returns the targets of the inline links of markdown outside
// code blocks and code spans.
func markdownLinks(markdown string) []string {
	var links []string
	for _, line := range proseLines(markdown) {
		for _, m := range linkRE.FindAllStringSubmatch(inlineCodeRE.ReplaceAllString(line, ""), -1) {
			links = append(links, m[1])
		}
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of markdown:
// lower case, punctuation dropped, spaces as hyphens, "-1", "-2"... for repeats.
func headingAnchors(markdown string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(markdown) {
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !strings.HasPrefix(line, "#") || !ok {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if n := seen[slug]; n > 0 {
			seen[slug]++
			slug += "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		anchors[slug] = true
	}
	return anchors
}

// proseLines returns markdown's lines outside fenced code blocks.
func proseLines(markdown string) []string {
	var lines []string
	fenced := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, line)
		}
	}
	return lines
}
