package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// Checkpoints. SQLite copies the WAL back into the database file when a
// commit finds the WAL longer than wal_autocheckpoint pages, and that
// commit pays for the copy and its fsync before it returns. On the spool
// file the commit is as often as not a capture, which a reply waits for;
// on the store's, a recall row or an ingest round. So each file has a
// checkpointer instead: every checkpointInterval a PASSIVE checkpoint on
// a connection of its own copies what the WAL holds while writers go on,
// and a page written many times in the interval (an index's, the spool's)
// is copied once. The automatic checkpoint stays, at
// autoCheckpointPages, as the backstop should the checkpointer fall behind.
const (
	checkpointInterval  = time.Second
	autoCheckpointPages = 8000
)

// checkpointer runs a conn's periodic checkpoints, on a connection of
// its own: a checkpoint (a copy and an fsync) never holds one of the
// pool's, which reads and the capture's commits use.
type checkpointer struct {
	db   *sql.DB
	stop func()
	done chan struct{}
	once sync.Once
}

// startCheckpoints starts the checkpointer of c, the pool of the file at
// path; close stops it.
func (c *conn) startCheckpoints(path string) error {
	db, err := openPool(path, 1)
	if err != nil {
		return fmt.Errorf("open checkpointer: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.ckpt = &checkpointer{db: db, stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.ckpt.done)
		t := time.NewTicker(checkpointInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// A failed checkpoint is retried at the next tick; the
				// automatic one is the backstop meanwhile.
				_, _, _ = c.checkpoint(ctx)
			}
		}
	}()
	return nil
}

// stopCheckpoints stops c's checkpointer, if it has one, waits for it and
// closes its connection.
func (c *conn) stopCheckpoints() {
	if c.ckpt == nil {
		return
	}
	c.ckpt.once.Do(func() {
		c.ckpt.stop()
		<-c.ckpt.done
		_ = c.ckpt.db.Close()
	})
}

// checkpoint runs one passive checkpoint: it copies what it can of the
// WAL into the database file without waiting for readers or writers and
// reports the WAL's frames and how many of them are copied.
func (c *conn) checkpoint(ctx context.Context) (frames, copied int, err error) {
	var busy int
	err = c.ckpt.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
	return frames, copied, err
}
