package admin

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
)

// armReport is one arm's line of the A/B report.
type armReport struct {
	Arm      string         `json:"arm"`
	Requests int            `json:"requests"`
	Statuses map[string]int `json:"statuses"`
	// APIs counts the requests by the API they came through (chat,
	// responses, messages; rows from before it was kept count as chat).
	APIs           map[string]int `json:"apis"`
	RecallRate     float64        `json:"recall_rate"` // share of requests with memories injected
	InjectedTokens int            `json:"injected_tokens"`
	TokensPerReq   float64        `json:"injected_tokens_per_request"`
	OverheadP50    float64        `json:"overhead_ms_p50"`
	OverheadP95    float64        `json:"overhead_ms_p95"`
	FeedbackCount  int            `json:"feedback_count"`
	FeedbackMean   *float64       `json:"feedback_mean"`
}

type abResponse struct {
	Since time.Time   `json:"since"`
	Until time.Time   `json:"until"`
	Arms  []armReport `json:"arms"`
}

// GET /admin/v1/ab?since=RFC3339 (default: the last 7 days)
func (a *API) abReport(c echo.Context) error {
	since, err := timeParam(c, "since")
	if err != nil {
		return err
	}
	now := a.now().UTC()
	if since.IsZero() {
		since = now.Add(-7 * 24 * time.Hour)
	}
	rs, err := a.st.RecallSince(c.Request().Context(), since)
	if err != nil {
		return fmt.Errorf("a/b report: %w", err)
	}
	return c.JSON(http.StatusOK, abResponse{Since: since, Until: now, Arms: summarize(rs)})
}

// summarize groups recall rows by arm, in arm name order.
func summarize(rs []*memory.RecallRecord) []armReport {
	type acc struct {
		r        armReport
		overhead []float64
		fbSum    float64
	}
	by := map[string]*acc{}
	for _, r := range rs {
		x := by[r.Arm]
		if x == nil {
			x = &acc{r: armReport{Arm: r.Arm, Statuses: map[string]int{}, APIs: map[string]int{}}}
			by[r.Arm] = x
		}
		x.r.Requests++
		x.r.Statuses[r.Status]++
		x.r.APIs[cmp.Or(r.API, "chat")]++
		x.r.InjectedTokens += r.InjectedTokens
		x.overhead = append(x.overhead, r.OverheadMs)
		if r.Feedback != nil {
			x.r.FeedbackCount++
			x.fbSum += *r.Feedback
		}
	}
	out := make([]armReport, 0, len(by))
	for _, x := range by {
		r := x.r
		r.RecallRate = float64(r.Statuses["injected"]) / float64(r.Requests)
		r.TokensPerReq = float64(r.InjectedTokens) / float64(r.Requests)
		slices.Sort(x.overhead)
		r.OverheadP50, r.OverheadP95 = percentile(x.overhead, 0.50), percentile(x.overhead, 0.95)
		if r.FeedbackCount > 0 {
			m := x.fbSum / float64(r.FeedbackCount)
			r.FeedbackMean = &m
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(x, y armReport) int {
		switch {
		case x.Arm < y.Arm:
			return -1
		case x.Arm > y.Arm:
			return 1
		}
		return 0
	})
	return out
}

// percentile of sorted xs by the nearest-rank method.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// feedbackRequest is an app's rating of one reply.
type feedbackRequest struct {
	RequestID string   `json:"request_id"`
	Score     *float64 `json:"score"`
}

// POST /memproxy/v1/feedback {request_id, score}: score in [-1, 1]
// (thumbs down -1, up 1). The caller must be the admin, hold a client key
// for the request's user (or one that may name users), or, with
// OpenFeedback, merely know the request id.
func (a *API) feedback(c echo.Context) error {
	var req feedbackRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	switch {
	case req.RequestID == "":
		return badParam("request_id", "is required")
	case !requestIDPattern.MatchString(req.RequestID):
		return badParam("request_id", "is not a request id")
	case req.Score == nil:
		return badParam("score", "is required (a number from -1 to 1)")
	case math.IsNaN(*req.Score) || *req.Score < -1 || *req.Score > 1:
		return badParam("score", "must be a number from -1 to 1")
	}
	ctx := c.Request().Context()
	r, err := a.st.FindRecall(ctx, req.RequestID)
	if errors.Is(err, memory.ErrNotFound) {
		if a.feedbackAllowed(c, "") {
			return notFound("request " + req.RequestID)
		}
		return errFeedbackAuth
	}
	if err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	if !a.feedbackAllowed(c, r.Scope.User) {
		return errFeedbackAuth
	}
	if err := a.st.SetFeedback(ctx, r.Scope, r.RequestID, *req.Score); err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	return c.JSON(http.StatusOK, map[string]any{"request_id": r.RequestID, "score": *req.Score, "arm": r.Arm})
}

var errFeedbackAuth = &apiError{Status: http.StatusUnauthorized, Message: "feedback needs the admin token or a memproxy client key for the request's user", Type: "authentication_error", Code: "invalid_api_key"}

// feedbackAllowed decides whether the caller may rate a request of user
// ("" = the request is unknown: only say so to callers who could rate it).
func (a *API) feedbackAllowed(c echo.Context, user string) bool {
	if a.cfg.OpenFeedback || a.isAdmin(c) {
		return true
	}
	if a.auth == nil {
		return false
	}
	tok, ok := bearer(c.Request().Header.Get("Authorization"))
	if !ok {
		return false
	}
	u, anyUser, ok, err := a.auth.Authenticate(c.Request().Context(), tok)
	if err != nil || !ok {
		return false
	}
	return anyUser || user == "" || u == user
}
