package s3

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/aws/smithy-go/logging"
	"github.com/stretchr/testify/assert"
)

func TestSDKLogLinesGoToSlog(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	sdkLogger{}.Logf(logging.Warn, "falling back to %s", "IMDSv1")
	sdkLogger{}.Logf(logging.Debug, "request %d", 7)
	out := buf.String()
	assert.Contains(t, out, `level=INFO msg="aws sdk: falling back to IMDSv1"`)
	assert.Contains(t, out, `level=DEBUG msg="aws sdk: request 7"`)
}

func TestSDKLogLinesAreRedacted(t *testing.T) {
	var buf bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(prev) })

	sdkLogger{}.Logf(logging.Debug, "GET %s", "http://u:hunter2@127.0.0.1:1/b/k?X-Amz-Signature=s3cr3t&x-id=GetObject")
	out := buf.String()
	assert.NotContains(t, out, "hunter2")
	assert.NotContains(t, out, "s3cr3t")
	assert.Contains(t, out, "http://xxxxx@127.0.0.1:1/b/k?X-Amz-Signature=xxxxx&x-id=GetObject")
}
