package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

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
	n := 0
	err := s.write(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, id := range requestIDs {
			if id == "" {
				continue
			}
			type row struct {
				seq  int64
				data string
			}
			rows, err := tx.QueryContext(ctx, `SELECT seq, data FROM turns WHERE user = ? AND namespace = ? AND request_id = ?`, sc.User, sc.Namespace, id)
			rs, err := sqlkit.Collect(rows, err, func(r sqlkit.Scanner) (row, error) {
				var x row
				err := r.Scan(&x.seq, &x.data)
				return x, err
			})
			if err != nil {
				return err
			}
			for _, r := range rs {
				var t memory.Turn
				if err := json.Unmarshal([]byte(r.data), &t); err != nil {
					return err
				}
				t.User, t.Assistant, t.Context = memory.ErasedText, memory.ErasedText, ""
				b, err := json.Marshal(&t)
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `UPDATE turns SET data = ? WHERE seq = ?`, string(b), r.seq); err != nil {
					return err
				}
				n++
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("erase turns: %w", err)
	}
	return n, nil
}
