package admin

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
)

// GET /admin/v1/audit?user=&since=&limit=

func (a *API) auditLog(c echo.Context) error {
	user := c.QueryParam("user")
	if user != "" {
		if _, err := scopeFor(user, ""); err != nil {
			return err
		}
	}
	since, err := timeParam(c, "since")
	if err != nil {
		return err
	}
	limit, err := limitParam(c, 100, 1000)
	if err != nil {
		return err
	}
	es, err := a.st.AuditAll(c.Request().Context(), user, since, limit)
	if err != nil {
		return fmt.Errorf("read audit: %w", err)
	}
	if es == nil {
		es = []*memory.AuditEntry{}
	}
	return c.JSON(http.StatusOK, listResponse[*memory.AuditEntry]{Data: es})
}

// GET /admin/v1/queue
func (a *API) queue(c echo.Context) error {
	if a.cfg.Queue == nil {
		return unavailable("the queue view")
	}
	v, err := a.cfg.Queue.Pending(c.Request().Context())
	if err != nil {
		return fmt.Errorf("queue: %w", err)
	}
	return c.JSON(http.StatusOK, v)
}

// requestDetail is a request's recall row with its injected memories.
type requestDetail struct {
	*memory.RecallRecord
	Memories []memoryView `json:"memories"`
}

// GET /admin/v1/requests/{request_id}
func (a *API) request(c echo.Context) error {
	id, err := pathParam(c, "request_id")
	if err != nil {
		return err
	}
	if !requestIDPattern.MatchString(id) {
		return badParam("request_id", fmt.Sprintf("%q is not a request id", id))
	}
	ctx := c.Request().Context()
	r, err := a.st.FindRecall(ctx, id)
	if errors.Is(err, memory.ErrNotFound) {
		return notFound("request " + id)
	}
	if err != nil {
		return fmt.Errorf("find request: %w", err)
	}
	out := requestDetail{RecallRecord: r, Memories: []memoryView{}}
	if len(r.Injected) > 0 {
		ms, err := a.st.GetMany(ctx, r.Scope, r.Injected)
		if err != nil {
			return fmt.Errorf("request memories: %w", err)
		}
		now := a.now()
		for _, m := range ms {
			out.Memories = append(out.Memories, a.view(m, now, false))
		}
	}
	return c.JSON(http.StatusOK, out)
}

// POST /admin/v1/maintenance/decay?at=RFC3339 runs a decay pass as of at
// (default now): replays move the clock with it.
func (a *API) decay(c echo.Context) error {
	if a.cfg.Queue == nil {
		return unavailable("decay")
	}
	at, err := timeParam(c, "at")
	if err != nil {
		return err
	}
	if at.IsZero() {
		at = a.now().UTC()
	}
	st, err := a.cfg.Queue.RunDecay(c.Request().Context(), at)
	if err != nil {
		return fmt.Errorf("decay: %w", err)
	}
	return c.JSON(http.StatusOK, map[string]any{"at": at, "stats": st})
}

// turnsRequest is a batch of past turns to ingest.
type turnsRequest struct {
	Namespace string       `json:"namespace"`
	Session   string       `json:"session"`
	Turns     []importTurn `json:"turns"`
}

type importTurn struct {
	Time      time.Time `json:"time"`
	User      string    `json:"user"`
	Assistant string    `json:"assistant"`
	Refs      []string  `json:"refs"`
	Session   string    `json:"session"`
	RequestID string    `json:"request_id"`
}

// maxTurnBatch bounds one turn import; larger histories come in batches.
const maxTurnBatch = 10000

// POST /admin/v1/users/{user}/turns: past conversation turns go through the
// same ingest path as live traffic (the queue), in order.
func (a *API) importTurns(c echo.Context) error {
	if a.cfg.Queue == nil {
		return unavailable("turn import")
	}
	user, err := userParam(c)
	if err != nil {
		return err
	}
	var req turnsRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	s, err := scopeFor(user, req.Namespace)
	if err != nil {
		return err
	}
	switch {
	case len(req.Turns) == 0:
		return badParam("turns", "is empty")
	case len(req.Turns) > maxTurnBatch:
		return badParam("turns", fmt.Sprintf("has %d turns; send at most %d per request", len(req.Turns), maxTurnBatch))
	}
	turns := make([]*memory.Turn, len(req.Turns))
	for i, t := range req.Turns {
		p := fmt.Sprintf("turns[%d]", i)
		switch {
		case t.Time.IsZero():
			return badParam(p+".time", "is required (RFC 3339)")
		case strings.TrimSpace(t.User) == "" && strings.TrimSpace(t.Assistant) == "":
			return badParam(p, "has neither user nor assistant text")
		case !utf8.ValidString(t.User) || !utf8.ValidString(t.Assistant):
			return badParam(p, "is not valid UTF-8")
		case t.RequestID != "" && !requestIDPattern.MatchString(t.RequestID):
			return badParam(p+".request_id", "is not a request id")
		}
		rid := t.RequestID
		if rid == "" {
			rid = "imp_" + memory.NewID()
		}
		turns[i] = &memory.Turn{
			RequestID: rid, Scope: s, Session: cmpOr(t.Session, req.Session), Time: t.Time.UTC(),
			User: t.User, Assistant: t.Assistant, Refs: t.Refs, Arm: "import",
		}
	}
	if err := a.reopen(c.Request().Context(), user); err != nil {
		return err
	}
	if err := a.cfg.Queue.ImportTurns(c.Request().Context(), turns); err != nil {
		return fmt.Errorf("import turns: %w", err)
	}
	return c.JSON(http.StatusAccepted, map[string]any{"accepted": len(turns), "scope": s})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
