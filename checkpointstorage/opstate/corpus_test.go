package opstate_test

import (
	"strconv"
)

func goBytes(b []byte) string { return "[]byte(" + strconv.Quote(string(b)) + ")" }

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
