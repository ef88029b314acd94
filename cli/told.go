package cli

// toldError is an error a command has already told the user about in its
// own words (cp -r interrupted: what it copied and how to finish): Run exits
// with the status err calls for without printing it again.
type toldError struct{ err error }

// Error returns the wrapped error's message.
func (e *toldError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *toldError) Unwrap() error { return e.err }
