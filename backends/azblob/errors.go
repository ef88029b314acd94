package azblob

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/vfskit/vfskit/backends/internal/httpguard"
	"github.com/vfskit/vfskit/vfs"
)

// describer replaces the errors a user must act on, and every multi-line
// dump of Azure's SDK, with a short message naming the container, the cause
// and the fix (see Options.Logger).
type describer struct {
	container string
	log       *slog.Logger
}

// describe is blobfs.Options.DescribeError.
func (d describer) describe(err error) error {
	return httpguard.Describe(d.log, "azblob", err, d.short)
}

func (d describer) short(err error) error {
	short := func(format string, args ...any) error {
		return &httpguard.Error{Msg: fmt.Sprintf(format, args...), Err: vfs.RedactError(err)}
	}
	if cause, ok := httpguard.Unreachable(err); ok {
		return short("cannot reach the storage account's endpoint: %s; check the BlobEndpoint of %s, or AZURE_STORAGE_ACCOUNT", cause, ConnectionStringEnv)
	}
	var failed *azidentity.AuthenticationFailedError
	if errors.As(err, &failed) || strings.Contains(err.Error(), "DefaultAzureCredential") {
		return short("%s", (&CredentialsError{}).Error())
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		return err
	}
	switch re.ErrorCode {
	case "ContainerNotFound":
		return &httpguard.Error{Msg: fmt.Sprintf("container %q does not exist in the storage account: check its name and the account (AZURE_STORAGE_ACCOUNT or %s), or create it", d.container, ConnectionStringEnv),
			Err: vfs.RedactError(err), Kind: vfs.ErrBucketNotExist}
	case "AuthenticationFailed", "InvalidAuthenticationInfo", "NoAuthenticationInformation":
		return short("the storage account refused the credentials for container %q (%s): check AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or the AccountKey of %s", d.container, re.ErrorCode, ConnectionStringEnv)
	case "AuthorizationFailure":
		// Azure's answer to credentials without the permission, and
		// Azurite's to a wrong key.
		return short("the storage account refused the credentials for container %q (%s): check AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or the AccountKey of %s, and their permissions", d.container, re.ErrorCode, ConnectionStringEnv)
	case "AuthorizationPermissionMismatch", "InsufficientAccountPermissions":
		return short("access denied to container %q (%s): the credentials lack the permission", d.container, re.ErrorCode)
	}
	// Any other answer: its code and status on one line, not the SDK's
	// multi-line dump.
	code := re.ErrorCode
	if code == "" {
		code = "no error code"
	}
	return short("Azure answered HTTP %d (%s)", re.StatusCode, code)
}
