// Package errcode gives tool errors the stable codes an agent can act on.
//
// Every error a tool returns to a caller reads "CODE: message", where CODE is
// one of the constants below. Internal failures that carry no code are shown
// as UNAVAILABLE so the agent knows retrying may help.
package errcode

import (
	"errors"
	"fmt"
)

// Code is a stable error class, part of the tool contract.
type Code string

const (
	NotFound         Code = "NOT_FOUND"
	InvalidRef       Code = "INVALID_REF"
	InvalidArgument  Code = "INVALID_ARGUMENT"
	PathDenied       Code = "PATH_DENIED"
	TooLarge         Code = "TOO_LARGE"
	Unavailable      Code = "UNAVAILABLE"
	PermissionDenied Code = "PERMISSION_DENIED"
)

// Error is an error with a stable code.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Msg }

// New returns an error with the given code and a formatted message.
func New(code Code, format string, args ...any) error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Of returns the code of err, or Unavailable when err carries none.
func Of(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Unavailable
}

// Message renders err for a caller: coded errors as they are, anything else
// under UNAVAILABLE.
func Message(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return string(Unavailable) + ": " + err.Error()
}
