package admin

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
)

// idPattern bounds ids taken from paths: memory ids are 16 hex characters,
// imported ones may be any short token, never anything with separators.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// requestIDPattern is looser: request ids come from the proxy or clients.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// pathParam returns a path parameter, unescaped when the request path was
// escaped (user ids may hold characters such as '/' or '%').
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath != "" {
		u, err := url.PathUnescape(v)
		if err != nil {
			return "", badParam(name, "is not a valid escaped path segment")
		}
		v = u
	}
	return v, nil
}

func memoryID(c echo.Context) (string, error) {
	id, err := pathParam(c, "id")
	if err != nil {
		return "", err
	}
	if !idPattern.MatchString(id) {
		return "", badParam("id", fmt.Sprintf("%q is not a memory id (1-64 letters, digits, '-' or '_')", id))
	}
	return id, nil
}

// userParam is the {user} path segment, validated as a scope part.
func userParam(c echo.Context) (string, error) {
	u, err := pathParam(c, "user")
	if err != nil {
		return "", err
	}
	if err := (memory.Scope{User: u, Namespace: memory.DefaultNamespace}).Validate(); err != nil {
		return "", badParam("user", scopeMsg(err))
	}
	return u, nil
}

// scopeOf builds the scope of {user} and ?namespace= (default "default").
func scopeOf(c echo.Context) (memory.Scope, error) {
	u, err := userParam(c)
	if err != nil {
		return memory.Scope{}, err
	}
	return scopeFor(u, c.QueryParam("namespace"))
}

func scopeFor(user, ns string) (memory.Scope, error) {
	if ns == "" {
		ns = memory.DefaultNamespace
	}
	if err := (memory.Scope{User: user, Namespace: memory.DefaultNamespace}).Validate(); err != nil {
		return memory.Scope{}, badParam("user", scopeMsg(err))
	}
	s := memory.Scope{User: user, Namespace: ns}
	if err := s.Validate(); err != nil {
		return s, badParam("namespace", scopeMsg(err))
	}
	return s, nil
}

// scopeMsg strips the sentinel's prefix: the param already names the part.
func scopeMsg(err error) string {
	m := strings.TrimPrefix(err.Error(), memory.ErrInvalidScope.Error()+": ")
	m = strings.TrimPrefix(m, "user ")
	return strings.TrimPrefix(m, "namespace ")
}

// optionalNamespace reads ?namespace= where "" means every namespace.
func optionalNamespace(c echo.Context) (string, error) {
	ns := c.QueryParam("namespace")
	if ns == "" {
		return "", nil
	}
	if _, err := scopeFor("x", ns); err != nil {
		return "", err
	}
	return ns, nil
}

// limitParam reads ?limit= in [1, max], def when absent.
func limitParam(c echo.Context, def, max int) (int, error) {
	v := c.QueryParam("limit")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > max {
		return 0, badParam("limit", fmt.Sprintf("%q is not an integer from 1 to %d", v, max))
	}
	return n, nil
}

// timeParam reads an RFC 3339 time; zero when absent.
func timeParam(c echo.Context, name string) (time.Time, error) {
	v := c.QueryParam(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, badParam(name, fmt.Sprintf("%q is not an RFC 3339 time such as 2026-11-29T13:00:00Z", v))
	}
	return t.UTC(), nil
}

// Paging cursors are the store's opaque cursor wrapped in base64url with a
// version prefix, so a mangled cursor is rejected here with a clear error
// instead of reaching the store.
const cursorPrefix = "c1."

func encodeCursor(next string) string {
	if next == "" {
		return ""
	}
	return cursorPrefix + base64.RawURLEncoding.EncodeToString([]byte(next))
}

func cursorParam(c echo.Context) (string, error) {
	v := c.QueryParam("cursor")
	if v == "" {
		return "", nil
	}
	raw, ok := strings.CutPrefix(v, cursorPrefix)
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if !ok || err != nil || len(b) == 0 {
		return "", badParam("cursor", "is not a cursor returned as \"next\" by this listing")
	}
	return string(b), nil
}

// storeCursorErr turns a store's rejection of a well-formed but stale or
// foreign cursor into the same 400.
func storeCursorErr(err error, cursor string) error {
	if cursor != "" && errors.Is(err, memory.ErrInvalid) {
		return badParam("cursor", "is not a cursor returned as \"next\" by this listing")
	}
	return err
}

// decodeJSON reads the body strictly: unknown fields, trailing data, a
// wrong content type and oversized bodies are all clear 4xx errors.
func decodeJSON(c echo.Context, v any) error {
	r := c.Request()
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return &apiError{Status: http.StatusUnsupportedMediaType, Message: "body must be application/json", Type: "invalid_request_error", Code: "unsupported_media_type"}
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return bodyErr(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return bodyErr(err)
		}
		return badParam("body", "has data after the JSON value")
	}
	return nil
}

func bodyErr(err error) error {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var pe *time.ParseError
	switch {
	case errors.As(err, &pe):
		return badParam("body", fmt.Sprintf("%q is not an RFC 3339 time such as 2026-11-29T13:00:00Z", pe.Value))
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case errors.Is(err, io.EOF):
		return badParam("body", "is empty; send a JSON object")
	case errors.As(err, &se):
		return badParam("body", fmt.Sprintf("is not valid JSON (offset %d)", se.Offset))
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "body"
		}
		return badParam(field, fmt.Sprintf("expected %s, got JSON %s", te.Type, te.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return badParam(f, "is not a known field")
	}
	return badParam("body", err.Error())
}

func tooLarge(n int64) *apiError {
	return &apiError{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("request body larger than %d bytes", n), Type: "invalid_request_error", Code: "request_too_large"}
}

// tiersParam reads ?tier=a,b.
func tiersParam(c echo.Context) ([]memory.Tier, error) {
	v := c.QueryParam("tier")
	if v == "" {
		return nil, nil
	}
	var ts []memory.Tier
	for _, p := range strings.Split(v, ",") {
		t := memory.Tier(strings.TrimSpace(p))
		if !t.Valid() {
			return nil, badParam("tier", fmt.Sprintf("%q is not a tier (event, episodic, semantic, profile)", p))
		}
		ts = append(ts, t)
	}
	return ts, nil
}
