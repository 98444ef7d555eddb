package postgres

import (
	"context"
	"fmt"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

var _ memory.Erasing = (*Store)(nil)

// Eraser hands out the store's memory.Eraser.
func (s *Store) Eraser() memory.Eraser { return sqlkit.Eraser{Conn: s.Store.Conn, Turns: s.eraseTurns} }

// eraseTurns is the Eraser's EraseTurns.
func (s *logs) eraseTurns(ctx context.Context, sc memory.Scope, requestIDs []string) (int, error) {
	if err := s.check(sc); err != nil {
		return 0, err
	}
	res, err := s.db.ExecContext(ctx, `UPDATE turns SET user_text = $1, assistant = $1
		WHERE user_id = $2 AND namespace = $3 AND request_id = ANY($4) AND request_id <> ''`,
		memory.ErasedText, sc.User, sc.Namespace, pq.Array(requestIDs))
	if err != nil {
		return 0, fmt.Errorf("erase turns: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
