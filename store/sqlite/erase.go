package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

var _ memory.Eraser = (*Store)(nil)

// EraseTurns implements memory.Eraser.
func (s *logs) EraseTurns(ctx context.Context, sc memory.Scope, requestIDs []string) (int, error) {
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
			rows, err := tx.QueryContext(ctx, `SELECT seq, data FROM turns WHERE user = ? AND namespace = ? AND request_id = ?`, sc.User, sc.Namespace, id)
			if err != nil {
				return err
			}
			type row struct {
				seq  int64
				data string
			}
			var rs []row
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.seq, &r.data); err != nil {
					rows.Close()
					return err
				}
				rs = append(rs, r)
			}
			if err := rows.Close(); err != nil {
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

// EraseAudit implements memory.Eraser.
func (s *logs) EraseAudit(ctx context.Context, sc memory.Scope, memoryIDs []string) (int, error) {
	if err := s.check(sc); err != nil {
		return 0, err
	}
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, id := range memoryIDs {
			res, err := tx.ExecContext(ctx, `UPDATE audit SET before = '', after = '' WHERE user = ? AND namespace = ? AND memory_id = ?
				AND (before != '' OR after != '')`, sc.User, sc.Namespace, id)
			if err != nil {
				return err
			}
			k, _ := res.RowsAffected()
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("erase audit: %w", err)
	}
	return int(n), nil
}
