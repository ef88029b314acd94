package cli

import "errors"

// toldError is an error a command has already told the user about in its
// own words (cp -r interrupted: what it copied and how to finish): Run exits
// with the status err calls for without printing it again.
type toldError struct{ err error }

// Error returns the wrapped error's message.
func (e *toldError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *toldError) Unwrap() error { return e.err }

// untold returns err without the errors in it already told (toldError), nil
// when nothing is left to say.
func untold(err error) error {
	if _, ok := err.(*toldError); ok {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var rest []error
		for _, e := range j.Unwrap() {
			if e = untold(e); e != nil {
				rest = append(rest, e)
			}
		}
		return errors.Join(rest...)
	}
	return err
}
