//go:build !unix

package sqlite

import "os"

// lockJournal is a no-op where flock(2) is missing: one process per
// SQLite database is the operator's to keep.
func lockJournal(string) (*os.File, error) { return nil, nil }
