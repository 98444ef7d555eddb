package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// replicas opens two stores on one schema, as two processes would: every
// write goes through a, every search through b, whose in-process indexes
// must see a's writes as soon as they returned.
func replicas(t *testing.T, dim int) (a, b *Store) {
	t.Helper()
	a = openTest(t, dim)
	b, err := Open(context.Background(), testDSN(t, a), memory.OpenOptions{Model: "test-model", Dim: dim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return a, b
}

// found reports whether b's vector and lexical searches return id for
// the vector and query, with the options.
func found(t *testing.T, b *Store, sc memory.Scope, vec []float32, query, id string, o memory.SearchOptions) (vector, lexical bool) {
	t.Helper()
	ctx := context.Background()
	vs, err := b.VectorSearch(ctx, sc, vec, o)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := b.LexicalSearch(ctx, sc, query, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(vs, ls...) {
		if c.Memory.Scope != sc {
			t.Fatalf("search of %v returned a memory of %v", sc, c.Memory.Scope)
		}
	}
	return slices.Contains(candIDs(vs), id), slices.Contains(candIDs(ls), id)
}

// TestLocalIndexSeesOtherWriters checks every kind of write made by one
// store against the loaded indexes of another on the same database.
func TestLocalIndexSeesOtherWriters(t *testing.T) {
	const dim = 16
	a, b := replicas(t, dim)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 6))
	sc := memory.Scope{User: "alice", Namespace: "default"}
	var seed []*memory.Memory
	for i := range 50 {
		seed = append(seed, &memory.Memory{Tier: memory.TierSemantic, Text: fmt.Sprintf("filler note %d", i), Embedding: randVec(r, dim)})
	}
	if err := a.Insert(ctx, sc, seed...); err != nil {
		t.Fatal(err)
	}
	// b loads the scope now, before the writes below.
	if v, l := found(t, b, sc, seed[3].Embedding, "filler", seed[3].ID, memory.SearchOptions{}); !v || !l {
		t.Fatalf("seeded memory not found: vector %v lexical %v", v, l)
	}
	check := func(step string, vec []float32, query, id string, o memory.SearchOptions, want bool) {
		t.Helper()
		v, l := found(t, b, sc, vec, query, id, o)
		if v != want || l != want {
			t.Errorf("%s: found by vector %v, lexical %v; want %v", step, v, l, want)
		}
	}

	m := &memory.Memory{Tier: memory.TierSemantic, Text: "the user's cat is called Bartholomew", Embedding: randVec(r, dim)}
	if err := a.Insert(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	check("insert", m.Embedding, "Bartholomew", m.ID, memory.SearchOptions{}, true)

	old := m.Embedding
	m.Text, m.Embedding = "the user's cat is called Ferdinand", randVec(r, dim)
	if err := a.Update(ctx, sc, m); err != nil {
		t.Fatal(err)
	}
	check("update, new text", m.Embedding, "Ferdinand", m.ID, memory.SearchOptions{}, true)
	if _, l := found(t, b, sc, old, "Bartholomew", m.ID, memory.SearchOptions{}); l {
		t.Error("update: the old text still matches")
	}
	vs, err := b.VectorSearch(ctx, sc, m.Embedding, memory.SearchOptions{Limit: 1})
	if err != nil || len(vs) != 1 || vs[0].Memory.ID != m.ID || vs[0].Score < 0.999 {
		t.Fatalf("update: nearest to the new vector = %v (%v), want %s at 1", candIDs(vs), err, m.ID)
	}
	// The row b cached before the update is not served.
	if vs[0].Memory.Text != m.Text {
		t.Errorf("update: b returned the text %q, want %q", vs[0].Memory.Text, m.Text)
	}
	// A touch by b shows in b's next search at once (another process's
	// within search.RowTTL).
	hits := vs[0].Memory.Hits
	if err := b.Touch(ctx, sc, []string{m.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if vs, err = b.VectorSearch(ctx, sc, m.Embedding, memory.SearchOptions{Limit: 1}); err != nil || len(vs) != 1 || vs[0].Memory.Hits != hits+1 {
		t.Errorf("after b's touch: %v (%v), want hits %d", vs, err, hits+1)
	}

	if err := a.Archive(ctx, sc, []string{m.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	check("archive", m.Embedding, "Ferdinand", m.ID, memory.SearchOptions{}, false)
	check("archive, dead included", m.Embedding, "Ferdinand", m.ID, memory.SearchOptions{IncludeDead: true}, true)
	if err := a.Restore(ctx, sc, []string{m.ID}); err != nil {
		t.Fatal(err)
	}
	check("restore", m.Embedding, "Ferdinand", m.ID, memory.SearchOptions{}, true)

	if err := a.MarkConsolidated(ctx, sc, []string{m.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	check("consolidated, excluded", m.Embedding, "Ferdinand", m.ID, memory.SearchOptions{ExcludeConsolidated: true}, false)

	n := &memory.Memory{Tier: memory.TierSemantic, Text: "the user's cat is called Gertrude", Embedding: randVec(r, dim)}
	if err := a.Insert(ctx, sc, n); err != nil {
		t.Fatal(err)
	}
	if err := a.Supersede(ctx, sc, m.ID, n.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	check("superseded", m.Embedding, "Ferdinand", m.ID, memory.SearchOptions{}, false)
	check("superseding", n.Embedding, "Gertrude", n.ID, memory.SearchOptions{}, true)

	// A touch changes nothing a search reads: it must not restamp.
	var before, after string
	if err := a.db.QueryRow(`SELECT xid::text FROM memories WHERE id = $1`, n.ID).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := a.Touch(ctx, sc, []string{n.ID}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := a.db.QueryRow(`SELECT xid::text FROM memories WHERE id = $1`, n.ID).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("touch restamped the row: %s -> %s", before, after)
	}

	if err := a.Delete(ctx, sc, n.ID); err != nil {
		t.Fatal(err)
	}
	check("delete", n.Embedding, "Gertrude", n.ID, memory.SearchOptions{}, false)
	if b.local.Indexed(sc, n.ID) {
		t.Error("delete: the row the search found gone is still indexed")
	}

	if _, err := a.DeleteUser(ctx, sc.User, ""); err != nil {
		t.Fatal(err)
	}
	check("user deleted", seed[3].Embedding, "filler", seed[3].ID, memory.SearchOptions{}, false)
}

// TestLocalIndexHorizon: a transaction that began before others and
// commits after them is still seen. Its stamp (xid) is lower than the
// stamps of rows the index has already read, so a mark taken as "the
// highest stamp seen" (or the snapshot's xmax alone) would skip it; the
// snapshot's list of running transactions does not.
func TestLocalIndexHorizon(t *testing.T) {
	const dim = 8
	a, b := replicas(t, dim)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	sc := memory.Scope{User: "bob", Namespace: "default"}
	first := &memory.Memory{Tier: memory.TierSemantic, Text: "first note", Embedding: randVec(r, dim)}
	if err := a.Insert(ctx, sc, first); err != nil {
		t.Fatal(err)
	}
	if v, _ := found(t, b, sc, first.Embedding, "first", first.ID, memory.SearchOptions{}); !v {
		t.Fatal("first note not found")
	}
	long, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = long.Rollback() }()
	slow := &memory.Memory{ID: memory.NewID(), Tier: memory.TierSemantic, Text: "slow transaction note", Embedding: randVec(r, dim)}
	if err := sqlkit.Prepare(a.Store.Conn, sc, []*memory.Memory{slow}, dim); err != nil {
		t.Fatal(err)
	}
	if err := insertRows(ctx, long, []*memory.Memory{slow}); err != nil {
		t.Fatal(err)
	}
	// Later transactions commit while the long one is open, and b reads
	// them (its index reads rows stamped above the long one's xid).
	for i := range 3 {
		m := &memory.Memory{Tier: memory.TierSemantic, Text: fmt.Sprintf("quick note %d", i), Embedding: randVec(r, dim)}
		if err := a.Insert(ctx, sc, m); err != nil {
			t.Fatal(err)
		}
		if v, l := found(t, b, sc, m.Embedding, "quick", m.ID, memory.SearchOptions{}); !v || !l {
			t.Fatalf("quick note %d: vector %v lexical %v", i, v, l)
		}
		if v, _ := found(t, b, sc, slow.Embedding, "slow", slow.ID, memory.SearchOptions{}); v {
			t.Fatal("an uncommitted row was found")
		}
	}
	if err := long.Commit(); err != nil {
		t.Fatal(err)
	}
	if v, l := found(t, b, sc, slow.Embedding, "slow", slow.ID, memory.SearchOptions{}); !v || !l {
		t.Errorf("the long transaction's row after its commit: vector %v lexical %v, want both", v, l)
	}
}

// TestLocalIndexConcurrent: searches on one store run while another
// inserts and archives; every write is visible to every search that
// starts after it returned, and none after its archive returned.
func TestLocalIndexConcurrent(t *testing.T) {
	const dim = 16
	a, b := replicas(t, dim)
	ctx := context.Background()
	sc := memory.Scope{User: "carol", Namespace: "default"}
	r := rand.New(rand.NewPCG(9, 10))
	var seed []*memory.Memory
	for i := range 200 {
		seed = append(seed, &memory.Memory{Tier: memory.TierEvent, Text: fmt.Sprintf("background chatter %d", i), Embedding: randVec(r, dim)})
	}
	if err := a.Insert(ctx, sc, seed...); err != nil {
		t.Fatal(err)
	}
	type written struct {
		m        *memory.Memory
		word     string
		archived bool
		gen      int // bumped when an archive starts and ends: a search that overlaps it may see either state
	}
	var (
		mu   sync.Mutex
		done []written
	)
	stop := make(chan struct{})
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	// Searchers: after a write is listed, a search must agree with it.
	for g := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				if len(done) == 0 {
					mu.Unlock()
					continue
				}
				k := (i*7 + g) % len(done)
				w := done[k]
				mu.Unlock()
				vs, err := b.VectorSearch(ctx, sc, w.m.Embedding, memory.SearchOptions{Limit: 5})
				if err != nil {
					errs <- err
					return
				}
				ls, err := b.LexicalSearch(ctx, sc, w.word, memory.SearchOptions{Limit: 5})
				if err != nil {
					errs <- err
					return
				}
				inV, inL := slices.Contains(candIDs(vs), w.m.ID), slices.Contains(candIDs(ls), w.m.ID)
				mu.Lock()
				// An odd gen: an archive was running when w was copied.
				overlapped := done[k].gen != w.gen || w.gen%2 == 1
				mu.Unlock()
				if !overlapped && (inV == w.archived || inL == w.archived) {
					errs <- fmt.Errorf("%s (archived %v): found by vector %v, lexical %v", w.m.ID, w.archived, inV, inL)
					return
				}
			}
		})
	}
	for i := range 40 {
		word := fmt.Sprintf("zeta%dword", i)
		m := &memory.Memory{Tier: memory.TierSemantic, Text: "note about " + word, Embedding: randVec(r, dim)}
		if err := a.Insert(ctx, sc, m); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		done = append(done, written{m: m, word: word})
		mu.Unlock()
		if i%4 == 3 {
			k := len(done) - 2
			mu.Lock()
			done[k].gen++
			id := done[k].m.ID
			mu.Unlock()
			if err := a.Archive(ctx, sc, []string{id}, time.Now()); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			done[k].archived = true
			done[k].gen++
			mu.Unlock()
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestLocalIndexBudget: past the bound, least recently searched scopes
// are unloaded and searches stay right.
func TestLocalIndexBudget(t *testing.T) {
	const dim = 16
	a := openTest(t, dim)
	st, err := OpenWith(context.Background(), testDSN(t, a), memory.OpenOptions{Model: "test-model", Dim: dim}, Options{Options: search.Options{IndexBytes: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	var scs []memory.Scope
	var ms []*memory.Memory
	for u := range 3 {
		sc := memory.Scope{User: fmt.Sprintf("user%d", u), Namespace: "default"}
		m := &memory.Memory{Tier: memory.TierSemantic, Text: fmt.Sprintf("marker%d", u), Embedding: randVec(r, dim)}
		if err := a.Insert(ctx, sc, m); err != nil {
			t.Fatal(err)
		}
		scs, ms = append(scs, sc), append(ms, m)
	}
	for round := range 2 {
		for i, sc := range scs {
			if v, l := found(t, st, sc, ms[i].Embedding, ms[i].Text, ms[i].ID, memory.SearchOptions{}); !v || !l {
				t.Fatalf("round %d, %s: vector %v lexical %v", round, sc.User, v, l)
			}
		}
	}
	s := st.IndexStats()
	if s.Evictions < 4 || s.Scopes != 1 {
		t.Errorf("stats %+v: want one scope loaded and evictions at each switch", s)
	}
}

// TestLocalIndexLongTransactionElsewhere: a long transaction that writes
// elsewhere does not make searches read the scope's recent rows again and
// again (a mark taken as the snapshot's xmin would: every row written
// since that transaction began).
func TestLocalIndexLongTransactionElsewhere(t *testing.T) {
	const dim = 8
	a, b := replicas(t, dim)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(13, 14))
	long, err := a.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = long.Rollback() }()
	if _, err := long.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('long-running', 'x')`); err != nil {
		t.Fatal(err)
	}
	sc := memory.Scope{User: "dave", Namespace: "default"}
	q := &memory.Memory{Tier: memory.TierSemantic, Text: "first", Embedding: randVec(r, dim)}
	if err := a.Insert(ctx, sc, q); err != nil {
		t.Fatal(err)
	}
	if v, _ := found(t, b, sc, q.Embedding, "first", q.ID, memory.SearchOptions{}); !v {
		t.Fatal("not found")
	}
	var ms []*memory.Memory
	for i := range 30 {
		ms = append(ms, &memory.Memory{Tier: memory.TierSemantic, Text: fmt.Sprintf("note %d", i), Embedding: randVec(r, dim)})
	}
	if err := a.Insert(ctx, sc, ms...); err != nil {
		t.Fatal(err)
	}
	before := b.local.Counters.Changed.Load()
	if v, _ := found(t, b, sc, ms[0].Embedding, "note", ms[0].ID, memory.SearchOptions{}); !v {
		t.Fatal("new note not found")
	}
	first := b.local.Counters.Changed.Load() - before
	if first < 30 {
		t.Fatalf("the searches after the insert read %d changed rows, want the 30 inserted", first)
	}
	before = b.local.Counters.Changed.Load()
	for range 5 {
		found(t, b, sc, ms[1].Embedding, "note", ms[1].ID, memory.SearchOptions{})
	}
	if n := b.local.Counters.Changed.Load() - before; n != 0 {
		t.Errorf("later searches read %d changed rows again while a transaction elsewhere runs, want 0", n)
	}
}

// TestReadPoolPlansOnce checks that the per-search read runs on
// connections that keep one generic plan, while every other query keeps
// the server's default (custom plans where they pay).
func TestReadPoolPlansOnce(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	show := func(db interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) string {
		t.Helper()
		var v string
		if err := db.QueryRowContext(ctx, `SHOW plan_cache_mode`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := show(st.readDB); got != "force_generic_plan" {
		t.Errorf("read pool plan_cache_mode = %q, want force_generic_plan", got)
	}
	if got := show(st.db); got != "auto" {
		t.Errorf("main pool plan_cache_mode = %q, want auto", got)
	}
}

// TestLocalIndexRefreshesUsage: another process's touches reach a row b
// cached once search.RowTTL has passed, and b then reads only the row's usage
// counters again, not the whole row; a row deleted meanwhile is dropped.
func TestLocalIndexRefreshesUsage(t *testing.T) {
	a, b := replicas(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	m := &memory.Memory{Tier: memory.TierSemantic, Text: "plays the cello", Embedding: []float32{1, 0, 0, 0, 0, 0, 0, 0}}
	other := &memory.Memory{Tier: memory.TierSemantic, Text: "plays the oboe", Embedding: []float32{0.9, 0.1, 0, 0, 0, 0, 0, 0}}
	if err := a.Insert(ctx, sc, m, other); err != nil {
		t.Fatal(err)
	}
	var clock time.Duration
	b.local.SetClock(func() time.Time { return time.Now().Add(clock) })
	find := func() map[string]*memory.Memory {
		t.Helper()
		vs, err := b.VectorSearch(ctx, sc, m.Embedding, memory.SearchOptions{Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*memory.Memory{}
		for _, c := range vs {
			out[c.Memory.ID] = c.Memory
		}
		return out
	}
	find() // b caches both rows
	used := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	for range 2 {
		if err := a.Touch(ctx, sc, []string{m.ID}, used); err != nil {
			t.Fatal(err)
		}
	}
	if got := find()[m.ID]; got.Hits != 0 {
		t.Fatalf("within search.RowTTL: hits %d, want the cached 0", got.Hits)
	}
	clock = search.RowTTL + time.Second
	changed, refreshed := b.local.Counters.Changed.Load(), b.local.Counters.Refreshed.Load()
	got := find()
	if g := got[m.ID]; g == nil || g.Hits != 2 || !g.LastUsedAt.Equal(used) || g.Text != m.Text || len(g.Embedding) != 8 {
		t.Fatalf("after search.RowTTL: %+v, want hits 2, last used %v, the row whole", g, used)
	}
	if n := b.local.Counters.Refreshed.Load() - refreshed; n != 2 {
		t.Errorf("after search.RowTTL: %d rows refreshed, want both", n)
	}
	if n := b.local.Counters.Changed.Load() - changed; n != 0 {
		t.Errorf("after search.RowTTL: %d rows read as changed, want none", n)
	}
	// Within search.RowTTL again: served from the cache.
	refreshed = b.local.Counters.Refreshed.Load()
	find()
	if n := b.local.Counters.Refreshed.Load() - refreshed; n != 0 {
		t.Errorf("right after the refresh: %d rows refreshed again", n)
	}
	// A row deleted while cached is dropped, whatever its age.
	if err := a.Delete(ctx, sc, other.ID); err != nil {
		t.Fatal(err)
	}
	clock = 2 * (search.RowTTL + time.Second)
	if got := find(); got[other.ID] != nil || got[m.ID] == nil {
		t.Errorf("after a deletion and search.RowTTL: %v, want %s alone", got, m.ID)
	}
}

// TestLocalIndexCachesSmallScopeAtLoad: a small scope's load keeps its
// rows whole, so its first searches read no candidate rows; past
// loadCacheBytes, a load reads what the index needs alone and searches
// read their candidates. Both give the same results.
func TestLocalIndexCachesSmallScopeAtLoad(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	r := rand.New(rand.NewPCG(5, 6))
	var ms []*memory.Memory
	for i := range 40 {
		ms = append(ms, &memory.Memory{Tier: memory.TierSemantic, Text: fmt.Sprintf("note %d about tea", i), Embedding: randVec(r, 8)})
	}
	if err := st.Insert(ctx, sc, ms...); err != nil {
		t.Fatal(err)
	}
	search := func() ([]string, int64) {
		t.Helper()
		st.local.ForgetUser(sc.User, sc.Namespace)
		before := st.local.Counters.Fetched.Load()
		v, l, err := st.HybridSearch(ctx, sc, ms[0].Embedding, "tea", memory.SearchOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(v) != 10 || len(l) != 10 || v[0].Memory.ID != ms[0].ID || v[0].Memory.Text != ms[0].Text || len(v[0].Memory.Embedding) != 8 {
			t.Fatalf("search: %d vector, %d lexical candidates, top %+v", len(v), len(l), v[0].Memory)
		}
		return append(candIDs(v), candIDs(l)...), st.local.Counters.Fetched.Load() - before
	}
	whole, fetched := search()
	if fetched != 0 {
		t.Errorf("a small scope's first search read %d rows, want none", fetched)
	}
	st.local.LoadCacheBytes = 1
	indexOnly, fetched := search()
	if fetched == 0 {
		t.Error("past loadCacheBytes, the first search read no rows: the load cached them")
	}
	if !slices.Equal(whole, indexOnly) {
		t.Errorf("results differ: cached at load %v, index only %v", whole, indexOnly)
	}
}

// TestSearchReadPlanUsesIndexes: the per-search read is planned once per
// connection (force_generic_plan), so its plan must hold whatever the
// tables held when it was made. Planned on a new database (memory_usage
// empty), the usage lookup of memory_rows was a sequential scan, which
// read the whole partition for every row a search brought once touches
// filled it. Every branch must read through an index.
func TestSearchReadPlanUsesIndexes(t *testing.T) {
	s := openTest(t, 8)
	ctx := context.Background()
	c, err := s.readDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `PREPARE plan_check(text, text, text, text[], text[], text[]) AS `+s.readQuery()); err != nil {
		t.Fatal(err)
	}
	rows, err := c.QueryContext(ctx, `EXPLAIN EXECUTE plan_check('u', 'default', '100', '{}', '{a}', '{b}')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, line := range plan {
		if strings.Contains(line, "Seq Scan") {
			t.Fatalf("the search read's generic plan scans a table whole:\n%s", strings.Join(plan, "\n"))
		}
	}
}
