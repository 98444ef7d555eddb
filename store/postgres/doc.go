// Package postgres is the PostgreSQL + pgvector memory store, the backend
// memproxy uses when several replicas share one database.
//
//   - Every table leads with the scope columns (user_id, namespace), and so
//     does every B-tree index, so a scoped query never reads another scope's
//     index pages; memories is hash-partitioned by user_id.
//   - Searches run in this process (package search): each scope's vectors
//     and BM25 index are loaded on its first search, and a search reads
//     back only the rows it returns, in one statement that also brings
//     every row of the scope another writer changed or deleted since
//     (feed.go: the change stamps of migrations 7 and 8), so every
//     replica sees every committed write.
//   - Connections start with jit off and random_page_cost 1.1 and send each
//     query's parameters with it (one round trip): see sessionDefaults.
//   - Models above 2,000 dimensions are stored as halfvec.
//
// Migrations are versioned in schema_migrations and run under a
// transaction-scoped advisory lock, so replicas starting together apply
// them once.
package postgres
