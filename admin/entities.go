package admin

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/entity"
	"github.com/memproxy/memproxy/memory"
)

// maxEntityScan bounds the memories one entity request reads (facts in
// any state, then live events and episodes), so a very large scope costs
// a bounded walk; past it, the oldest events' mentions are not counted.
const maxEntityScan = 20000

// entityMentions is how many of an entity's mentioning memories its
// detail lists (newest first).
const entityMentions = 20

// entityView is one entity of the listing.
type entityView struct {
	Name       string      `json:"name"`
	Kind       entity.Kind `json:"kind"`
	Aliases    []string    `json:"aliases"`
	Facts      int         `json:"live_facts"`       // facts true now
	Superseded int         `json:"superseded_facts"` // facts no longer true
	Mentions   int         `json:"mentions"`         // events and episodes naming it
	LastSeen   time.Time   `json:"last_seen"`
}

// entityDetail is one entity with its facts and their history.
type entityDetail struct {
	entityView
	// FactList is every fact about the entity, live and superseded, with
	// the other values of its single-valued slots, by slot then validity;
	// each carries its state.
	FactList []memoryView `json:"facts"`
	// Recent are the newest memories that mention it.
	Recent []memoryView `json:"recent_mentions"`
}

// GET /admin/v1/users/{user}/entities?namespace&limit&cursor: the people,
// pets, places, organisations and projects the scope's memories name,
// ordered by name. An entity is listed when a fact names it or two
// memories mention it.
func (a *API) listEntities(c echo.Context) error {
	s, err := scopeOf(c)
	if err != nil {
		return err
	}
	limit, err := limitParam(c, 50, 500)
	if err != nil {
		return err
	}
	cursor, err := cursorParam(c)
	if err != nil {
		return err
	}
	at := a.now()
	g, err := a.entityGraph(c.Request().Context(), s, at)
	if err != nil {
		return err
	}
	out := listResponse[entityView]{Data: []entityView{}}
	for _, e := range g.Entities() {
		if e.Key() <= cursor || (len(e.Facts) == 0 && len(e.Mentions) < 2) {
			continue
		}
		if len(out.Data) == limit {
			out.Next = encodeCursor(out.Data[len(out.Data)-1].key())
			break
		}
		out.Data = append(out.Data, viewEntity(e, at))
	}
	return c.JSON(http.StatusOK, out)
}

func (v entityView) key() string { return entity.Fold(v.Name) }

// GET /admin/v1/users/{user}/entities/{name}?namespace: one entity by
// name or alias, case-insensitive, with its facts and their history.
func (a *API) getEntity(c echo.Context) error {
	s, err := scopeOf(c)
	if err != nil {
		return err
	}
	name, err := pathParam(c, "name")
	if err != nil {
		return err
	}
	if name == "" || len(name) > 256 || !utf8.ValidString(name) {
		return badParam("name", "must be valid UTF-8 of 1 to 256 bytes")
	}
	at := a.now()
	g, err := a.entityGraph(c.Request().Context(), s, at)
	if err != nil {
		return err
	}
	found := g.Lookup(name)
	if len(found) == 0 {
		return notFound("entity")
	}
	// An alias several entities share ("friend") names the one most
	// recently seen.
	e := slices.MaxFunc(found, func(x, y *entity.Entity) int { return x.LastSeen.Compare(y.LastSeen) })
	d := entityDetail{entityView: viewEntity(e, at), FactList: []memoryView{}, Recent: []memoryView{}}
	for _, m := range factHistory(e, g) {
		d.FactList = append(d.FactList, a.view(m, at, false))
	}
	recent := slices.Clone(e.Mentions)
	slices.SortFunc(recent, func(x, y *memory.Memory) int { return y.CreatedAt.Compare(x.CreatedAt) })
	for _, m := range recent[:min(len(recent), entityMentions)] {
		d.Recent = append(d.Recent, a.view(m, at, false))
	}
	return c.JSON(http.StatusOK, d)
}

func viewEntity(e *entity.Entity, at time.Time) entityView {
	v := entityView{Name: e.Name, Kind: e.Kind, Aliases: e.Aliases, Mentions: len(e.Mentions), LastSeen: e.LastSeen}
	if v.Aliases == nil {
		v.Aliases = []string{}
	}
	v.Facts = len(e.Live(at))
	v.Superseded = len(e.Facts) - v.Facts
	return v
}

// factHistory is the entity's facts with the other values of their
// single-valued slots ("lives in Berlin" beside "lives in Lisbon"), by
// slot, then validity.
func factHistory(e *entity.Entity, g *entity.Graph) []*memory.Memory {
	slots := map[string]bool{}
	for _, m := range e.Facts {
		if f := m.Fact(); f != nil && !f.Multi && m.Key != "" {
			slots[m.Key] = true
		}
	}
	out := slices.Clone(e.Facts)
	for _, o := range g.Entities() {
		for _, m := range o.Facts {
			if slots[m.Key] && m.Key != "" && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	slices.SortStableFunc(out, func(x, y *memory.Memory) int {
		return cmp.Or(cmp.Compare(x.Key, y.Key), x.ValidFrom.Compare(y.ValidFrom), x.CreatedAt.Compare(y.CreatedAt))
	})
	return out
}

// entityGraph builds the scope's entity graph: its facts in any state and
// its live events and episodes, within maxEntityScan memories.
func (a *API) entityGraph(ctx context.Context, s memory.Scope, at time.Time) (*entity.Graph, error) {
	var ms []*memory.Memory
	read := func(f memory.ListFilter) error {
		f.At, f.Limit = at, 500
		for len(ms) < maxEntityScan {
			p, err := a.st.List(ctx, s, f)
			if err != nil {
				return fmt.Errorf("entities: %w", err)
			}
			ms = append(ms, p.Data...)
			if p.Next == "" {
				break
			}
			f.Cursor = p.Next
		}
		return nil
	}
	if err := read(memory.ListFilter{Tiers: []memory.Tier{memory.TierSemantic, memory.TierProfile}, State: memory.StateAny}); err != nil {
		return nil, err
	}
	if err := read(memory.ListFilter{Tiers: []memory.Tier{memory.TierEvent, memory.TierEpisodic}, State: memory.StateLive}); err != nil {
		return nil, err
	}
	return entity.Build(ms), nil
}
