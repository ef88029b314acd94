package gcs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
)

// TestDescribeRefusedCredentials: a key Google refuses (a 401, or a token
// exchange the OAuth server answers with an error) is one line naming the
// bucket and the fix. The 401 is also met against a server (a proxy in front
// of fake-gcs-server, TestRefusalIsNotAbsence and the built binary's
// TestCloudErrors); the token exchange only here, since a client pointed at
// an emulator uses no credentials.
func TestDescribeRefusedCredentials(t *testing.T) {
	d := describer{bucket: "b"}
	for _, err := range []error{
		&googleapi.Error{Code: 401, Message: "Invalid Credentials"},
		&oauth2.RetrieveError{ErrorCode: "invalid_grant"},
	} {
		got := d.short(err)
		assert.Equal(t, `Google refused the credentials for bucket "b": check GOOGLE_APPLICATION_CREDENTIALS or run 'gcloud auth application-default login'`, got.Error())
		assert.ErrorIs(t, got, err, "the SDK's error stays wrapped")
	}
}
