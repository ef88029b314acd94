package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStatShowsAttributesOnS3: stat shows the Content-Type vfskit gave a
// file from its extension, in text and in --json.
func TestStatShowsAttributesOnS3(t *testing.T) {
	root := s3Root(t)
	writeTo(t, root+"/d/data.json", "{}")
	assert.Contains(t, ok(t, "stat", root+"/d/data.json"), "Content-Type: application/json\n")
	var j struct {
		Type        string `json:"type"`
		ContentType string `json:"contentType"`
	}
	require.NoError(t, json.Unmarshal([]byte(ok(t, "stat", "--json", root+"/d/data.json")), &j))
	assert.Equal(t, "file", j.Type)
	assert.Equal(t, "application/json", j.ContentType)
	assert.NotContains(t, ok(t, "stat", "--json", root+"/d"), "contentType", "a directory has no attributes")
}
