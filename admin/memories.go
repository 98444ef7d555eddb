package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
)

// MemoryLocator is an optional Store capability: find the scope of a
// memory from its id alone. Without it the API asks each scope in turn.
type MemoryLocator interface {
	LocateMemory(ctx context.Context, id string) (memory.Scope, error)
}

// maxTextBytes bounds a memory's text written through the API.
const maxTextBytes = 16 << 10

// listResponse is every listing's envelope.
type listResponse[T any] struct {
	Data []T    `json:"data"`
	Next string `json:"next"`
}

// GET /admin/v1/users/{user}/memories
func (a *API) listMemories(c echo.Context) error {
	s, err := scopeOf(c)
	if err != nil {
		return err
	}
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	f.At = a.now()
	withEmb := c.QueryParam("embedding") == "true"
	page, err := a.st.List(c.Request().Context(), s, f)
	if err != nil {
		return fmt.Errorf("list memories: %w", storeCursorErr(err, f.Cursor))
	}
	out := listResponse[memoryView]{Data: make([]memoryView, 0, len(page.Data)), Next: encodeCursor(page.Next)}
	for _, m := range page.Data {
		out.Data = append(out.Data, a.view(m, f.At, withEmb))
	}
	return c.JSON(http.StatusOK, out)
}

func listFilter(c echo.Context) (memory.ListFilter, error) {
	var f memory.ListFilter
	var err error
	if f.Tiers, err = tiersParam(c); err != nil {
		return f, err
	}
	switch st := memory.State(c.QueryParam("state")); st {
	case memory.StateAny, memory.StateLive, memory.StateSuperseded, memory.StateArchived, memory.StateExpired:
		f.State = st
	default:
		return f, badParam("state", fmt.Sprintf("%q is not a state (live, superseded, archived, expired)", st))
	}
	if src := memory.Source(c.QueryParam("source")); src != "" {
		if !src.Valid() {
			return f, badParam("source", fmt.Sprintf("%q is not a source (explicit, extracted, consolidated, imported, admin, event)", src))
		}
		f.Source = src
	}
	f.Query = c.QueryParam("q")
	if len(f.Query) > 1024 || !utf8.ValidString(f.Query) {
		return f, badParam("q", "must be valid UTF-8 of at most 1024 bytes")
	}
	f.Key = c.QueryParam("key")
	f.Session = c.QueryParam("session")
	if f.Since, err = timeParam(c, "since"); err != nil {
		return f, err
	}
	if f.Until, err = timeParam(c, "until"); err != nil {
		return f, err
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && f.Until.Before(f.Since) {
		return f, badParam("until", "is before since")
	}
	if f.Limit, err = limitParam(c, 50, 500); err != nil {
		return f, err
	}
	f.Cursor, err = cursorParam(c)
	return f, err
}

// createRequest is a manual memory: a fact or profile entry an operator
// writes for a user.
type createRequest struct {
	Namespace  string      `json:"namespace"`
	Tier       memory.Tier `json:"tier"`
	Text       string      `json:"text"`
	Value      *float64    `json:"value"`
	Confidence *float64    `json:"confidence"`
	Key        string      `json:"key"`
	NoDecay    *bool       `json:"no_decay"`
	ExpiresAt  *time.Time  `json:"expires_at"`
}

// POST /admin/v1/users/{user}/memories
func (a *API) createMemory(c echo.Context) error {
	user, err := userParam(c)
	if err != nil {
		return err
	}
	var req createRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	s, err := scopeFor(user, req.Namespace)
	if err != nil {
		return err
	}
	now := a.now().UTC()
	m := &memory.Memory{
		ID: memory.NewID(), Scope: s, Tier: req.Tier, Text: a.redactor().Text(strings.TrimSpace(req.Text)),
		Value: 0.9, Confidence: 1, Source: memory.SourceAdmin, Key: req.Key,
		CreatedAt: now, LastUsedAt: now, ValidFrom: now, ExpiresAt: req.ExpiresAt,
	}
	if m.Tier == "" {
		m.Tier = memory.TierSemantic
	}
	m.NoDecay = m.Tier == memory.TierProfile
	if req.NoDecay != nil {
		m.NoDecay = *req.NoDecay
	}
	if req.Value != nil {
		m.Value = *req.Value
	}
	if req.Confidence != nil {
		m.Confidence = *req.Confidence
	}
	if err := validateWrite(m, now, true); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := a.embed(ctx, m); err != nil {
		return err
	}
	if err := a.st.Insert(ctx, s, m); err != nil {
		return fmt.Errorf("insert memory: %w", err)
	}
	a.audit(ctx, s, "insert", m.ID, "", snapshot(m), "")
	return c.JSON(http.StatusCreated, a.view(m, now, false))
}

// validateWrite checks an operator-written memory, naming the field; a
// TTL must lie in the future when checkTTL is set.
func validateWrite(m *memory.Memory, now time.Time, checkTTL bool) error {
	switch {
	case !m.Tier.Valid():
		return badParam("tier", fmt.Sprintf("%q is not a tier (event, episodic, semantic, profile)", m.Tier))
	case m.Text == "":
		return badParam("text", "is required")
	case len(m.Text) > maxTextBytes:
		return badParam("text", fmt.Sprintf("is longer than %d bytes", maxTextBytes))
	case !utf8.ValidString(m.Text):
		return badParam("text", "is not valid UTF-8")
	case m.Value < 0 || m.Value > 1:
		return badParam("value", "must be between 0 and 1")
	case m.Confidence < 0 || m.Confidence > 1:
		return badParam("confidence", "must be between 0 and 1")
	case len(m.Key) > 256:
		return badParam("key", "is longer than 256 bytes")
	case checkTTL && m.ExpiresAt != nil && !m.ExpiresAt.After(now):
		return badParam("expires_at", "is not in the future")
	}
	return nil
}

// embed fills m's vector when an embedder is configured. A failure is an
// error, not a silent vector-less write: the operator can retry.
func (a *API) embed(ctx context.Context, m *memory.Memory) error {
	if a.cfg.Embedder == nil {
		m.Embedding = nil
		return nil
	}
	vs, err := a.cfg.Embedder.Embed(ctx, []string{m.Text})
	if err != nil {
		return fmt.Errorf("embed memory: %w", err)
	}
	if len(vs) != 1 {
		return fmt.Errorf("embed memory: embedder returned %d vectors for 1 text", len(vs))
	}
	m.Embedding = vs[0]
	return nil
}

// find loads a memory by id: in the scope named by ?user=&namespace= when
// given, else wherever it lives.
func (a *API) find(c echo.Context, id string) (*memory.Memory, error) {
	ctx := c.Request().Context()
	if u := c.QueryParam("user"); u != "" {
		s, err := scopeFor(u, c.QueryParam("namespace"))
		if err != nil {
			return nil, err
		}
		return a.getIn(ctx, s, id)
	}
	if l, ok := a.st.(MemoryLocator); ok {
		s, err := l.LocateMemory(ctx, id)
		if errors.Is(err, memory.ErrNotFound) {
			return nil, notFound("memory " + id)
		}
		if err != nil {
			return nil, fmt.Errorf("locate memory: %w", err)
		}
		return a.getIn(ctx, s, id)
	}
	scopes, err := a.st.Scopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list scopes: %w", err)
	}
	for _, s := range scopes {
		m, err := a.st.Get(ctx, s, id)
		if err == nil {
			return m, nil
		}
		if !errors.Is(err, memory.ErrNotFound) {
			return nil, fmt.Errorf("get memory: %w", err)
		}
	}
	return nil, notFound("memory " + id)
}

func (a *API) getIn(ctx context.Context, s memory.Scope, id string) (*memory.Memory, error) {
	m, err := a.st.Get(ctx, s, id)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, notFound("memory " + id)
	}
	if err != nil {
		return nil, fmt.Errorf("get memory: %w", err)
	}
	return m, nil
}

// GET /admin/v1/memories/{id}
func (a *API) getMemory(c echo.Context) error {
	id, err := memoryID(c)
	if err != nil {
		return err
	}
	m, err := a.find(c, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, a.view(m, a.now(), c.QueryParam("embedding") == "true"))
}

// patchRequest holds the editable fields; absent fields stay as they are.
type patchRequest struct {
	Text       *string      `json:"text"`
	Tier       *memory.Tier `json:"tier"`
	Value      *float64     `json:"value"`
	Confidence *float64     `json:"confidence"`
	Key        *string      `json:"key"`
	NoDecay    *bool        `json:"no_decay"`
	ExpiresAt  nullTime     `json:"expires_at"`
	// Archived archives (true) or restores (false) the memory.
	Archived *bool `json:"archived"`
}

// PATCH /admin/v1/memories/{id}
func (a *API) patchMemory(c echo.Context) error {
	id, err := memoryID(c)
	if err != nil {
		return err
	}
	var req patchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	m, err := a.find(c, id)
	if err != nil {
		return err
	}
	before := snapshot(m)
	now := a.now().UTC()
	// Secrets are redacted before anything is written (policy
	// ingest.redact), as on capture.
	textChanged := req.Text != nil && a.redactor().Text(strings.TrimSpace(*req.Text)) != m.Text
	if req.Text != nil {
		m.Text = a.redactor().Text(strings.TrimSpace(*req.Text))
	}
	if req.Tier != nil {
		m.Tier = *req.Tier
	}
	if req.Value != nil {
		m.Value = *req.Value
	}
	if req.Confidence != nil {
		m.Confidence = *req.Confidence
	}
	if req.Key != nil {
		m.Key = *req.Key
	}
	if req.NoDecay != nil {
		m.NoDecay = *req.NoDecay
	}
	if req.ExpiresAt.Set {
		m.ExpiresAt = req.ExpiresAt.T
	}
	if req.Archived != nil {
		switch {
		case *req.Archived && m.ArchivedAt == nil:
			m.ArchivedAt = &now
		case !*req.Archived:
			m.ArchivedAt = nil
		}
	}
	// An already-expired TTL the patch leaves alone is not an error.
	if err := validateWrite(m, now, req.ExpiresAt.Set); err != nil {
		return err
	}
	ctx := c.Request().Context()
	if textChanged {
		if err := a.embed(ctx, m); err != nil {
			return err
		}
	}
	if err := a.st.Update(ctx, m.Scope, m); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	a.audit(ctx, m.Scope, "update", m.ID, before, snapshot(m), "")
	return c.JSON(http.StatusOK, a.view(m, now, false))
}

// DELETE /admin/v1/memories/{id}
func (a *API) deleteMemory(c echo.Context) error {
	id, err := memoryID(c)
	if err != nil {
		return err
	}
	m, err := a.find(c, id)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := a.st.Delete(ctx, m.Scope, id); err != nil {
		if errors.Is(err, memory.ErrNotFound) {
			return notFound("memory " + id)
		}
		return fmt.Errorf("delete memory: %w", err)
	}
	a.audit(ctx, m.Scope, "delete", id, snapshot(m), "", "")
	return c.JSON(http.StatusOK, map[string]any{"id": id, "deleted": true})
}

// maxHistory bounds a supersede chain walk.
const maxHistory = 200

// GET /admin/v1/memories/{id}/history: the supersede chain the memory is
// part of, oldest first. With a subject key that is the key's history;
// without one, the chain is followed through superseded_by links.
func (a *API) history(c echo.Context) error {
	id, err := memoryID(c)
	if err != nil {
		return err
	}
	m, err := a.find(c, id)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var chain []*memory.Memory
	if m.Key != "" {
		if chain, err = a.st.History(ctx, m.Scope, m.Key); err != nil {
			return fmt.Errorf("memory history: %w", err)
		}
	} else if chain, err = a.linkChain(ctx, m); err != nil {
		return err
	}
	now := a.now()
	out := listResponse[memoryView]{Data: make([]memoryView, 0, len(chain))}
	for _, h := range chain {
		out.Data = append(out.Data, a.view(h, now, false))
	}
	return c.JSON(http.StatusOK, out)
}

// linkChain walks superseded_by backwards (which superseded memories point
// at m, transitively) and forwards from m.
func (a *API) linkChain(ctx context.Context, m *memory.Memory) ([]*memory.Memory, error) {
	// Older links: scan the scope's superseded memories once.
	by := map[string]*memory.Memory{}
	f := memory.ListFilter{State: memory.StateSuperseded, Limit: 500}
	for range 20 {
		p, err := a.st.List(ctx, m.Scope, f)
		if err != nil {
			return nil, fmt.Errorf("memory history: %w", err)
		}
		for _, o := range p.Data {
			if o.SupersededBy != "" {
				by[o.SupersededBy] = o
			}
		}
		if p.Next == "" {
			break
		}
		f.Cursor = p.Next
	}
	var older []*memory.Memory
	for cur := m.ID; len(older) < maxHistory; {
		o, ok := by[cur]
		if !ok {
			break
		}
		older = append(older, o)
		cur = o.ID
	}
	chain := make([]*memory.Memory, 0, len(older)+1)
	for i := len(older) - 1; i >= 0; i-- {
		chain = append(chain, older[i])
	}
	chain = append(chain, m)
	for cur := m; cur.SupersededBy != "" && len(chain) < maxHistory; {
		next, err := a.st.Get(ctx, m.Scope, cur.SupersededBy)
		if errors.Is(err, memory.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("memory history: %w", err)
		}
		chain = append(chain, next)
		cur = next
	}
	return chain, nil
}

// audit records an admin mutation. A failure is logged, not returned: the
// mutation itself succeeded and the caller must know that. Every audited
// mutation also drops the request path's cached view of the scope, so a
// deleted user's profile is not injected from a cache.
func (a *API) audit(ctx context.Context, s memory.Scope, action, id, before, after, detail string) {
	if a.cfg.Invalidator != nil {
		ns := s.Namespace
		if ns == "*" {
			ns = ""
		}
		a.cfg.Invalidator.InvalidateScope(s.User, ns)
	}
	e := &memory.AuditEntry{Scope: s, Time: a.now().UTC(), Actor: "admin", Action: action, MemoryID: id, Before: before, After: after, Detail: detail}
	if err := a.st.AppendAudit(ctx, e); err != nil {
		a.log.ErrorContext(ctx, "admin audit write failed", "action", action, "err", err)
	}
}
