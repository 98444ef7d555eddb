package proxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"syscall"

	"github.com/labstack/echo/v4"
)

// APIError is an error written as OpenAI's error JSON
// {"error":{"message","type","param","code"}}.
type APIError struct {
	Status  int
	Message string
	Type    string
	Param   string
	Code    string
	Err     error // cause, for logs only
}

func (e *APIError) Error() string { return e.Message }
func (e *APIError) Unwrap() error { return e.Err }

func badRequest(param, code, msg string) *APIError {
	return &APIError{Status: http.StatusBadRequest, Message: msg, Type: "invalid_request_error", Param: param, Code: code}
}

type errorBody struct {
	Error errorFields `json:"error"`
}

type errorFields struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// statusClientClosed is logged when the client went away (nginx's 499).
const statusClientClosed = 499

// upstreamError maps a failed upstream round trip to an APIError: a
// timeout is 504, a vanished client 499, anything else (refused,
// unreachable, reset) 502.
func upstreamError(ctx context.Context, err error) *APIError {
	var ne net.Error
	var de *dialError
	switch {
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return &APIError{Status: statusClientClosed, Message: "client closed the request", Type: "client_error", Err: err}
	case errors.As(err, &de):
		return &APIError{Status: http.StatusBadGateway, Message: "upstream unreachable", Type: "upstream_error", Code: "upstream_unreachable", Err: err}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return &APIError{Status: http.StatusGatewayTimeout, Message: "upstream timed out", Type: "upstream_error", Code: "upstream_timeout", Err: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &APIError{Status: http.StatusBadGateway, Message: "upstream unreachable", Type: "upstream_error", Code: "upstream_unreachable", Err: err}
	}
	return &APIError{Status: http.StatusBadGateway, Message: "upstream request failed", Type: "upstream_error", Code: "upstream_error", Err: err}
}

// dialError marks a failure to connect, so it maps to 502 even when the
// connect timeout fired.
type dialError struct{ err error }

func (e *dialError) Error() string { return "dial upstream: " + e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// errorHandler is echo's HTTPErrorHandler: every error leaves as OpenAI
// error JSON.
func (s *Server) errorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	ae := toAPIError(err)
	if ae.Status >= 500 || ae.Err != nil {
		s.log.Warn("request failed", "request_id", requestID(c), "status", ae.Status, "code", ae.Code, "err", errString(ae))
	}
	if ae.Status == statusClientClosed {
		return
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	if isAnthropic(c.Request()) {
		_ = c.JSON(ae.Status, anthropicError{Type: "error", Error: anthropicErrorFields{Type: anthropicErrorType(ae), Message: ae.Message}})
		return
	}
	_ = c.JSON(ae.Status, errorBody{Error: errorFields{Message: ae.Message, Type: ae.Type, Param: strOrNil(ae.Param), Code: strOrNil(ae.Code)}})
}

// anthropicError is Anthropic's error shape
// {"type":"error","error":{"type","message"}}, used for memproxy's own
// errors on Anthropic routes.
type anthropicError struct {
	Type  string               `json:"type"`
	Error anthropicErrorFields `json:"error"`
}

type anthropicErrorFields struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// anthropicErrorType maps a status to Anthropic's error types.
func anthropicErrorType(ae *APIError) string {
	switch ae.Status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case 529, http.StatusServiceUnavailable:
		return "overloaded_error"
	}
	if ae.Status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

func errString(ae *APIError) string {
	if ae.Err != nil {
		return ae.Err.Error()
	}
	return ae.Message
}

func toAPIError(err error) *APIError {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			msg = m
		}
		typ := "invalid_request_error"
		if he.Code >= 500 {
			typ = "server_error"
		}
		return &APIError{Status: he.Code, Message: msg, Type: typ, Err: he.Internal}
	}
	return &APIError{Status: http.StatusInternalServerError, Message: "internal error", Type: "server_error", Err: err}
}
