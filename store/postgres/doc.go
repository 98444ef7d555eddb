// Package postgres is the PostgreSQL + pgvector memory store, the backend
// memproxy uses when several replicas share one database.
//
// Layout choices, and why:
//
//   - Every table leads with the scope columns (user_id, namespace), and so
//     does every B-tree index, so a scoped query never reads another scope's
//     index pages.
//   - memories is hash-partitioned by user_id. pgvector's HNSW index cannot
//     be filtered by scope; partitioning shrinks the share of foreign rows
//     an index scan has to step over, so filtered HNSW searches stay cheap
//     when one database holds millions of other users' memories.
//   - Searches run in this process by default (localindex.go): each scope's
//     vectors (int8) and lexical index are loaded on its first search, and
//     a search reads back only the rows it returns, in one statement that
//     also brings every row of the scope another writer changed since
//     (change stamps of migration 7: the writing transaction's id and a
//     row version), so every replica sees every committed write. The
//     server then spends well under a millisecond per search, where an
//     exact scan of 10k vectors cost it 8 ms and a filtered HNSW walk at
//     100k 150 ms. Options.SQLSearch keeps the searches in PostgreSQL, as
//     below.
//   - In SQL, vector search counts the scope's rows (bounded) first: small scopes get
//     an exact scan of memory_vectors, a narrow copy of each embedding (as
//     halfvec) and of the filtered columns that a trigger on memories keeps
//     in step, re-ranked by the full vector; large ones use the HNSW index
//     with pgvector 0.8 iterative scans (relaxed order, re-sorted) so the
//     scope filter cannot starve the result.
//   - Lexical search indexes memory.LexicalForm (words plus CJK bigrams) as
//     a 'simple' tsvector, ranked with ts_rank. Its GIN index holds the
//     lexemes prefixed by a hash of the scope (memory_scoped_lex), so a
//     term's posting list is the scope's own.
//   - Connections start with jit off, random_page_cost 1.1 and the HNSW
//     scan settings, and send each query's parameters with it (one round
//     trip): see sessionDefaults.
//   - Models above 2,000 dimensions are stored as halfvec, which HNSW can
//     index up to 4,000 dimensions.
//
// Migrations are versioned in schema_migrations and run under a
// transaction-scoped advisory lock, so replicas starting together apply
// them once.
package postgres
