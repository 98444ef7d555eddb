package admin

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
)

// apiError is an error with its HTTP status and the OpenAI error fields.
type apiError struct {
	Status  int    `json:"-"`
	Message string `json:"message"`
	Type    string `json:"type"`
	Param   string `json:"param"`
	Code    string `json:"code"`
}

func (e *apiError) Error() string { return e.Message }

// badParam is a 400 naming the offending parameter.
func badParam(param, msg string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Message: param + ": " + msg, Type: "invalid_request_error", Param: param, Code: "invalid_" + param}
}

func notFound(what string) *apiError {
	return &apiError{Status: http.StatusNotFound, Message: what + " not found", Type: "not_found_error", Code: "not_found"}
}

func conflict(msg string) *apiError {
	return &apiError{Status: http.StatusConflict, Message: msg, Type: "invalid_request_error", Code: "conflict"}
}

func unavailable(what string) *apiError {
	return &apiError{Status: http.StatusNotImplemented, Message: what + " is not available in this deployment", Type: "server_error", Code: "not_configured"}
}

var errUnauthorized = &apiError{Status: http.StatusUnauthorized, Message: "missing or invalid admin token: send Authorization: Bearer <admin token>", Type: "authentication_error", Code: "invalid_admin_token"}

// errorBody is the OpenAI error envelope.
type errorBody struct {
	Error *apiError `json:"error"`
}

// toAPIError maps any handler error to what the client sees: domain errors
// to 4xx with their message, everything else to a 500 whose detail only
// goes to the log (it may name tables or hold fragments of content).
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := http.StatusText(he.Code)
		if s, ok := he.Message.(string); ok {
			msg = s
		}
		typ := "invalid_request_error"
		switch {
		case he.Code == http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case he.Code >= 500:
			typ = "server_error"
		}
		return &apiError{Status: he.Code, Message: msg, Type: typ, Code: codeFor(he.Code)}
	}
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return notFound("resource")
	case errors.Is(err, memory.ErrInvalidScope), errors.Is(err, memory.ErrInvalid), errors.Is(err, memory.ErrDimension):
		return &apiError{Status: http.StatusBadRequest, Message: err.Error(), Type: "invalid_request_error", Code: "invalid_request"}
	case errors.Is(err, context.Canceled):
		return &apiError{Status: 499, Message: "client closed request", Type: "invalid_request_error", Code: "canceled"}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{Status: http.StatusGatewayTimeout, Message: "timed out", Type: "server_error", Code: "timeout"}
	}
	return &apiError{Status: http.StatusInternalServerError, Message: "internal error", Type: "server_error", Code: "internal_error"}
}

func codeFor(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "rate_limit_exceeded"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case http.StatusUnsupportedMediaType:
		return "unsupported_media_type"
	}
	return "error"
}

// errorJSON is the outermost middleware of every admin route: it renders
// the handler's error itself, so the admin API's error shape does not
// depend on the host server's error handler.
func (a *API) errorJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err == nil {
			return nil
		}
		ae := toAPIError(err)
		if ae.Status >= 500 && ae.Status != http.StatusNotImplemented {
			a.log.ErrorContext(c.Request().Context(), "admin request failed",
				slog.String("method", c.Request().Method), slog.String("route", c.Path()), slog.Any("err", err))
		}
		if c.Response().Committed {
			return nil
		}
		return c.JSON(ae.Status, errorBody{ae})
	}
}
