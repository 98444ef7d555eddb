// Package storetest is the conformance suite every memory.Store backend
// must pass unchanged. A backend's test calls Run inside a subtest named
// after the backend, so failures read TestStore/sqlite/Insert/defaults or
// TestStore/postgres/Insert/defaults:
//
//	func TestStore(t *testing.T) {
//		t.Run("sqlite", func(t *testing.T) {
//			storetest.Run(t, func(t *testing.T, dim int) storetest.Backend { ... })
//		})
//	}
//
// open must return a fresh, empty, migrated store that no other test sees
// (its own file, schema or database) and close it in t.Cleanup.
//
// Semantics the suite pins down beyond the interface comments:
//   - Times round-trip to the microsecond and come back in UTC.
//   - Insert fills ID, CreatedAt (now), LastUsedAt and ValidFrom (both
//     CreatedAt) when zero, and sets Scope when empty; a memory whose Scope
//     differs from the scope argument is ErrInvalidScope.
//   - Mutations of one id (Get, Update, Delete, Supersede) report
//     ErrNotFound when the id is not in the scope; batch mutations (Touch,
//     Archive, Restore, MarkConsolidated) ignore ids not in the scope.
//   - Vector search scores are cosine similarity; memories without an
//     embedding never match. Lexical scores are positive, higher is better;
//     a query with no terms returns no candidates and no error.
//   - Live at t: valid_to unset, archived_at unset, expires_at unset or
//     after t. Expired state: expires_at at or before t.
//   - List orders newest first (created_at desc, id desc); Since and Until
//     are both inclusive; a garbage cursor is ErrInvalid; limit 0 means 100.
//   - Search limit 0 means 50; filters apply before the limit, so dead
//     memories never crowd live ones out of a page of candidates.
//   - Turn, audit and recall reads are oldest first; a limit of 0 means 100.
//   - DeleteUser removes every memory, turn, audit entry, recall row and
//     gate threshold of the user (in one namespace when ns is given).
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// Backend is what a store must provide to be tested: both interfaces.
// (Its migrations are each store's own tests: re-running them, and
// upgrading an old schema with its rows.)
type Backend interface {
	memory.Store
	memory.Admin
}

// Opener returns a fresh, isolated, migrated store for embeddings of dim
// dimensions and arranges for it to be closed when t ends.
type Opener func(t *testing.T, dim int) Backend

// Dim is the embedding dimension most tests use.
const Dim = 8

// Run runs the whole suite against the backend open creates.
func Run(t *testing.T, open Opener) {
	s := &suite{open: open}
	t.Run("Open", s.testOpen)
	t.Run("Insert", s.testInsert)
	t.Run("TurnLogKeyed", s.testTurnLogKeyed)
	t.Run("Erase", s.testErase)
	t.Run("BadInput", s.testBadInput)
	t.Run("Update", s.testUpdate)
	t.Run("GetMany", s.testGetMany)
	t.Run("Delete", s.testDelete)
	t.Run("List", s.testList)
	t.Run("ListTier", s.testListTier)
	t.Run("ListPaging", s.testListPaging)
	t.Run("Supersede", s.testSupersede)
	t.Run("History", s.testHistory)
	t.Run("Touch", s.testTouch)
	t.Run("TouchConcurrent", s.testTouchConcurrent)
	t.Run("TouchThenUpdateDelete", s.testTouchThenUpdateDelete)
	t.Run("MarkConsolidated", s.testMarkConsolidated)
	t.Run("ArchiveRestorePurge", s.testArchiveRestorePurge)
	t.Run("TTL", s.testTTL)
	t.Run("VectorSearch", s.testVectorSearch)
	t.Run("VectorSearchFilters", s.testVectorSearchFilters)
	t.Run("VectorSearchCoherence", s.testVectorSearchCoherence)
	t.Run("LexicalSearch", s.testLexicalSearch)
	t.Run("LexicalSearchCJK", s.testLexicalSearchCJK)
	t.Run("LexicalSearchFilters", s.testLexicalSearchFilters)
	t.Run("LexicalScopeStats", s.testLexicalScopeStats)
	t.Run("LexicalBM25", s.testLexicalBM25)
	t.Run("SearchReadOnly", s.testSearchReadOnly)
	t.Run("HybridSearch", s.testHybridSearch)
	t.Run("Batch", s.testBatch)
	t.Run("BatchWrites", s.testBatchWrites)
	t.Run("Context", s.testContext)
	t.Run("Turns", s.testTurns)
	t.Run("Audit", s.testAudit)
	t.Run("Recall", s.testRecall)
	t.Run("Recalls", s.testRecalls)
	t.Run("Gate", s.testGate)
	t.Run("Users", s.testUsers)
	t.Run("Scopes", s.testScopes)
	t.Run("DeleteUser", s.testDeleteUser)
	t.Run("Meta", s.testMeta)
	t.Run("Closed", s.testClosed)
	t.Run("ZeroQuery", s.testZeroQuery)
	t.Run("Isolation", s.testIsolation)
}

type suite struct {
	open Opener
}

func (s *suite) store(t *testing.T) Backend {
	t.Helper()
	return s.open(t, Dim)
}

// t0 is the suite's reference clock, far from time.Now so defaults are
// told apart from explicit values.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ptr[T any](v T) *T { return &v }

var (
	alice   = memory.Scope{User: "alice", Namespace: "default"}
	aliceW  = memory.Scope{User: "alice", Namespace: "work"}
	bob     = memory.Scope{User: "bob", Namespace: "default"}
	nobody  = memory.Scope{User: "nobody", Namespace: "default"}
	invalid = []memory.Scope{
		{User: "", Namespace: "default"},
		{User: "alice", Namespace: ""},
		{User: "a\x00b", Namespace: "default"},
		{User: string(make([]byte, memory.MaxScopePart+1)), Namespace: "default"},
	}
)

// unit returns a unit vector along axis i (mod Dim) tilted by eps towards
// axis i+1, so tests can order results by construction.
func unit(i int, eps float32) []float32 {
	v := make([]float32, Dim)
	v[i%Dim] = 1
	v[(i+1)%Dim] = eps
	return v
}

// newMem is a valid memory with explicit times.
func newMem(text string, tier memory.Tier, vec []float32) *memory.Memory {
	return &memory.Memory{
		Tier:       tier,
		Text:       text,
		Embedding:  vec,
		Value:      0.5,
		Confidence: 0.9,
		Source:     memory.SourceExtracted,
		CreatedAt:  t0,
		LastUsedAt: t0,
		ValidFrom:  t0,
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, target error, what string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want %v", what, err, target)
	}
}

func insert(t *testing.T, st Backend, sc memory.Scope, ms ...*memory.Memory) {
	t.Helper()
	if err := st.Insert(context.Background(), sc, ms...); err != nil {
		t.Fatalf("insert: %v", err)
	}
}

func get(t *testing.T, st Backend, sc memory.Scope, id string) *memory.Memory {
	t.Helper()
	m, err := st.Get(context.Background(), sc, id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return m
}

func ids(cs []memory.Candidate) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Memory.ID
	}
	return out
}

func memIDs(ms []*memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func timeEq(a, b time.Time) bool { return a.Equal(b) }

func ptrTimeEq(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}
