package s3

import (
	"fmt"
	"io/fs"
	"net"
	"strings"
)

// checkBucketName validates an S3 bucket name by the general-purpose bucket rules:
// 3 to 63 characters of lowercase letters, digits, '.' and '-', starting and
// ending with a letter or digit, no "..", and not an IP address.
func checkBucketName(name string) error {
	const rules = "want 3 to 63 lowercase letters, digits, '.' or '-', starting and ending with a letter or digit"
	if name == "" {
		return fmt.Errorf("%w: no bucket in the URI (want s3://BUCKET/path)", fs.ErrInvalid)
	}
	if len(name) < 3 || len(name) > 63 {
		return fmt.Errorf("%w: invalid S3 bucket name %q: %d characters; %s", fs.ErrInvalid, name, len(name), rules)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-'
		if !ok {
			return fmt.Errorf("%w: invalid S3 bucket name %q: character %q at %d; %s", fs.ErrInvalid, name, c, i, rules)
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return fmt.Errorf("%w: invalid S3 bucket name %q: %s", fs.ErrInvalid, name, rules)
	}
	if strings.Contains(name, "..") {
		return fmt.Errorf("%w: invalid S3 bucket name %q: contains \"..\"; %s", fs.ErrInvalid, name, rules)
	}
	if net.ParseIP(name) != nil {
		return fmt.Errorf("%w: invalid S3 bucket name %q: looks like an IP address", fs.ErrInvalid, name)
	}
	return nil
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
