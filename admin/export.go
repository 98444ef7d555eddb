package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
)

// ExportFormat names the JSON export; import refuses anything else.
const ExportFormat = "memproxy.export.v1"

// Export is a user's whole memory: every memory (all tiers and states,
// embeddings included so an import needs no re-embedding) and the turn
// log. It is what POST .../import reads back.
type Export struct {
	Format     string           `json:"format"`
	ExportedAt time.Time        `json:"exported_at"`
	User       string           `json:"user"`
	Namespace  string           `json:"namespace,omitempty"` // "" = every namespace
	Embedding  *EmbeddingInfo   `json:"embedding,omitempty"`
	Memories   []*memory.Memory `json:"memories"`
	Turns      []*memory.Turn   `json:"turns"`
}

// EmbeddingInfo names the vectors' dimension so an import into a store of
// another dimension re-embeds instead of failing.
type EmbeddingInfo struct {
	Dim int `json:"dim"`
}

// maxExportPages bounds one export (pages of 500 memories or turns).
const maxExportPages = 2000

// GET /admin/v1/users/{user}/export?format=json|markdown[&namespace=]
func (a *API) export(c echo.Context) error {
	user, err := userParam(c)
	if err != nil {
		return err
	}
	ns, err := optionalNamespace(c)
	if err != nil {
		return err
	}
	format := c.QueryParam("format")
	if format != "" && format != "json" && format != "markdown" {
		return badParam("format", fmt.Sprintf("%q is not json or markdown", format))
	}
	ex, err := a.collect(c.Request().Context(), user, ns)
	if err != nil {
		return err
	}
	name := fileName(user)
	if format == "markdown" {
		c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`.md"`)
		return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(a.markdown(ex)))
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`.json"`)
	return c.JSON(http.StatusOK, ex)
}

// collect reads everything of user (in ns, or every namespace).
func (a *API) collect(ctx context.Context, user, ns string) (*Export, error) {
	scopes, err := a.userScopes(ctx, user, ns)
	if err != nil {
		return nil, err
	}
	ex := &Export{Format: ExportFormat, ExportedAt: a.now().UTC(), User: user, Namespace: ns,
		Memories: []*memory.Memory{}, Turns: []*memory.Turn{}}
	if d := a.st.Dim(); d > 0 {
		ex.Embedding = &EmbeddingInfo{Dim: d}
	}
	for _, s := range scopes {
		f := memory.ListFilter{Limit: 500}
		for range maxExportPages {
			p, err := a.st.List(ctx, s, f)
			if err != nil {
				return nil, fmt.Errorf("export memories: %w", err)
			}
			ex.Memories = append(ex.Memories, p.Data...)
			if f.Cursor = p.Next; f.Cursor == "" {
				break
			}
		}
		tf := memory.TurnFilter{Limit: 500}
		for range maxExportPages {
			p, err := a.st.Turns(ctx, s, tf)
			if err != nil {
				return nil, fmt.Errorf("export turns: %w", err)
			}
			ex.Turns = append(ex.Turns, p.Data...)
			if tf.Cursor = p.Next; tf.Cursor == "" {
				break
			}
		}
	}
	// Oldest first reads best and imports in the order things happened.
	slices.SortStableFunc(ex.Memories, func(x, y *memory.Memory) int {
		if c := x.CreatedAt.Compare(y.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return ex, nil
}

// userScopes lists the user's scopes: ns alone when given, else every
// scope holding memories plus the default namespace (turns may exist
// without memories).
func (a *API) userScopes(ctx context.Context, user, ns string) ([]memory.Scope, error) {
	if ns != "" {
		return []memory.Scope{{User: user, Namespace: ns}}, nil
	}
	all, err := a.st.Scopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list scopes: %w", err)
	}
	out := []memory.Scope{{User: user, Namespace: memory.DefaultNamespace}}
	for _, s := range all {
		if s.User == user && s.Namespace != memory.DefaultNamespace {
			out = append(out, s)
		}
	}
	return out, nil
}

// fileName makes a download name from a user id.
func fileName(user string) string {
	return "memproxy-" + strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return r
		}
		return '_'
	}, user)
}

// importResponse counts what an import wrote.
type importResponse struct {
	User     string `json:"user"`
	Memories int    `json:"memories"`
	Turns    int    `json:"turns"`
	Reembed  bool   `json:"reembedded"`
}

// maxImportMemories bounds one import request.
const maxImportMemories = 200000

// POST /admin/v1/users/{user}/import: the JSON export, written to {user}.
// Memories keep their times, state and supersede links. Imported as the
// same user (moving between stores, restoring) they keep their ids too,
// and an id already present is a 409 with nothing written; imported as
// another user (a copy) they get fresh ids, links remapped, since memory
// ids are unique store-wide.
func (a *API) importUser(c echo.Context) error {
	user, err := userParam(c)
	if err != nil {
		return err
	}
	var ex Export
	if err := decodeJSON(c, &ex); err != nil {
		return err
	}
	if ex.Format != ExportFormat {
		return badParam("format", fmt.Sprintf("%q is not %q", ex.Format, ExportFormat))
	}
	if len(ex.Memories)+len(ex.Turns) > maxImportMemories {
		return badParam("memories", fmt.Sprintf("more than %d records in one import", maxImportMemories))
	}
	if ex.User != user {
		renumber(&ex)
	}
	ctx := c.Request().Context()
	byScope := map[memory.Scope][]*memory.Memory{}
	var order []memory.Scope
	reembed := false
	for i, m := range ex.Memories {
		if m == nil {
			return badParam(fmt.Sprintf("memories[%d]", i), "is null")
		}
		s, err := scopeFor(user, m.Scope.Namespace)
		if err != nil {
			return badParam(fmt.Sprintf("memories[%d].scope.namespace", i), err.Error())
		}
		m.Scope = s
		if !idPattern.MatchString(m.ID) {
			return badParam(fmt.Sprintf("memories[%d].id", i), "is not a memory id")
		}
		// Secrets are redacted before anything is written; a vector made
		// from the unredacted text goes with it.
		was := m.Text + "\x00" + m.Context
		a.redactor().Memory(m)
		if m.Text+"\x00"+m.Context != was {
			m.Embedding = nil
		}
		if len(m.Embedding) > 0 && a.st.Dim() > 0 && len(m.Embedding) != a.st.Dim() {
			if a.cfg.Embedder == nil {
				return badParam(fmt.Sprintf("memories[%d].embedding", i), fmt.Sprintf("has %d dimensions, this store uses %d and no embedder is configured", len(m.Embedding), a.st.Dim()))
			}
			m.Embedding = nil
		}
		if len(m.Embedding) == 0 && a.cfg.Embedder != nil {
			if err := a.embed(ctx, m); err != nil {
				return err
			}
			reembed = true
		}
		if err := m.Validate(a.st.Dim()); err != nil {
			return badParam(fmt.Sprintf("memories[%d]", i), err.Error())
		}
		if _, ok := byScope[s]; !ok {
			order = append(order, s)
		}
		byScope[s] = append(byScope[s], m)
	}
	for i, t := range ex.Turns {
		if t == nil {
			return badParam(fmt.Sprintf("turns[%d]", i), "is null")
		}
		s, err := scopeFor(user, t.Scope.Namespace)
		if err != nil {
			return badParam(fmt.Sprintf("turns[%d].scope.namespace", i), err.Error())
		}
		t.Scope = s
		if t.Time.IsZero() {
			return badParam(fmt.Sprintf("turns[%d].time", i), "is required")
		}
	}
	for _, s := range order {
		ids := make([]string, len(byScope[s]))
		for i, m := range byScope[s] {
			ids[i] = m.ID
		}
		have, err := a.st.GetMany(ctx, s, ids)
		if err != nil {
			return fmt.Errorf("import: check ids: %w", err)
		}
		if len(have) > 0 {
			return conflict(fmt.Sprintf("memory %s already exists in %s; delete the user first or import elsewhere", have[0].ID, s))
		}
	}
	if err := a.reopen(ctx, user); err != nil {
		return err
	}
	out := importResponse{User: user, Reembed: reembed}
	for _, s := range order {
		if err := a.st.Insert(ctx, s, byScope[s]...); err != nil {
			if errors.Is(err, memory.ErrInvalid) {
				return err
			}
			return fmt.Errorf("import memories: %w", err)
		}
		out.Memories += len(byScope[s])
	}
	for _, t := range ex.Turns {
		if err := a.st.AppendTurn(ctx, t); err != nil {
			return fmt.Errorf("import turns: %w", err)
		}
		out.Turns++
	}
	detail := fmt.Sprintf(`{"memories":%d,"turns":%d,"exported_at":%q}`, out.Memories, out.Turns, ex.ExportedAt.Format(time.RFC3339))
	for _, s := range order {
		a.audit(ctx, s, "import", "", "", "", detail)
	}
	if len(order) == 0 {
		a.audit(ctx, memory.Scope{User: user, Namespace: memory.DefaultNamespace}, "import", "", "", "", detail)
	}
	return c.JSON(http.StatusOK, out)
}

// renumber gives every memory of ex a fresh id and rewrites the references
// to them (supersede links, provenance, turns' injected ids).
func renumber(ex *Export) {
	ids := make(map[string]string, len(ex.Memories))
	for _, m := range ex.Memories {
		if m != nil {
			ids[m.ID] = memory.NewID()
		}
	}
	re := func(xs []string) []string {
		out := make([]string, 0, len(xs))
		for _, x := range xs {
			out = append(out, cmpOr(ids[x], x))
		}
		return out
	}
	for _, m := range ex.Memories {
		if m == nil {
			continue
		}
		m.ID = ids[m.ID]
		if m.SupersededBy != "" {
			m.SupersededBy = cmpOr(ids[m.SupersededBy], m.SupersededBy)
		}
		if len(m.Provenance.MemoryIDs) > 0 {
			m.Provenance.MemoryIDs = re(m.Provenance.MemoryIDs)
		}
	}
	for _, t := range ex.Turns {
		if t != nil && len(t.Injected) > 0 {
			t.Injected = re(t.Injected)
		}
	}
}
