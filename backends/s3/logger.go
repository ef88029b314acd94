package s3

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/aws/smithy-go/logging"

	"github.com/vfskit/vfskit/vfs"
)

// sdkLogger routes the AWS SDK's own log lines (such as its IMDS fallback notice
// when no credentials are configured) to log/slog at Info (SDK warnings) or Debug
// level, instead of letting the SDK print them on stderr: to Options.Logger, or
// slog's default logger when it is nil. A program that wants them sees them
// through its slog handler. Messages are redacted (vfs.Redact): a request URL
// may carry a signature.
type sdkLogger struct{ log *slog.Logger }

// Logf implements logging.Logger.
func (l sdkLogger) Logf(c logging.Classification, format string, v ...any) {
	level := slog.LevelDebug
	if c == logging.Warn {
		level = slog.LevelInfo
	}
	log := l.log
	if log == nil {
		log = slog.Default()
	}
	log.Log(context.Background(), level, "aws sdk: "+vfs.Redact(fmt.Sprintf(format, v...)), "component", "s3")
}
