package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
)

// GET /admin/v1/users
func (a *API) listUsers(c echo.Context) error {
	limit, err := limitParam(c, 100, 1000)
	if err != nil {
		return err
	}
	cursor, err := cursorParam(c)
	if err != nil {
		return err
	}
	page, err := a.st.Users(c.Request().Context(), limit, cursor)
	if err != nil {
		return fmt.Errorf("list users: %w", storeCursorErr(err, cursor))
	}
	data := page.Data
	if data == nil {
		data = []memory.UserInfo{}
	}
	return c.JSON(http.StatusOK, listResponse[memory.UserInfo]{Data: data, Next: encodeCursor(page.Next)})
}

// forgetCounts is what a user deletion removed.
type forgetCounts struct {
	memory.DeleteCounts
	Jobs int `json:"jobs"`
	// Keys is how many client keys bound to the user were revoked.
	Keys int `json:"keys_revoked"`
}

// revokeUserKeys revokes every live client key bound to user (a key that
// may name users belongs to an app, not to one user, and stays).
func (a *API) revokeUserKeys(ctx context.Context, user string) (int, error) {
	if a.cfg.Keys == nil {
		return 0, nil
	}
	ks, err := a.cfg.Keys.ListKeys(ctx)
	if err != nil {
		return 0, fmt.Errorf("list keys: %w", err)
	}
	now, n := a.now().UTC(), 0
	for _, k := range ks {
		if k.User != user || k.RevokedAt != nil {
			continue
		}
		if err := a.cfg.Keys.RevokeKey(ctx, k.ID, now); err != nil {
			return n, fmt.Errorf("revoke key %s: %w", k.ID, err)
		}
		n++
	}
	if a.auth != nil {
		a.auth.forget()
	}
	return n, nil
}

// forgetWait bounds how long forget-user waits for the user's running jobs.
const forgetWait = 30 * time.Second

// DELETE /admin/v1/users/{user}[?namespace=]: everything of the user goes —
// queued jobs first, so no pending ingest re-creates memories after the
// store is cleared, then memories of every tier, turns, recall and audit
// content and gate state. A job already running cannot be deleted: the
// API waits for the queue to go idle and sweeps jobs and store again, so
// what a running job wrote (or enqueued) goes too. Only an audit record of
// the deletion itself remains, with counts and no content.
func (a *API) forgetUser(c echo.Context) error {
	user, err := userParam(c)
	if err != nil {
		return err
	}
	ns, err := optionalNamespace(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var out forgetCounts
	if ns == "" {
		// The whole user: first stop what could write for them again — the
		// requests in flight on this replica and their client keys.
		if a.cfg.Fence != nil {
			a.cfg.Fence.FenceUser(user)
		}
		n, err := a.revokeUserKeys(ctx, user)
		if err != nil {
			return err
		}
		out.Keys = n
		// And on every replica: the store drops the late writes of work
		// that began before now.
		if err := a.tombstone(ctx, user); err != nil {
			return err
		}
	}
	for pass := 0; pass < 3; pass++ {
		running := 0
		if a.cfg.Queue != nil {
			n, r, err := a.cfg.Queue.DeleteUserJobs(ctx, user, ns)
			if err != nil {
				return fmt.Errorf("delete user jobs: %w", err)
			}
			out.Jobs += n
			running = r
		}
		dc, err := a.st.DeleteUser(ctx, user, ns)
		if err != nil {
			return fmt.Errorf("delete user: %w", err)
		}
		out.Memories += dc.Memories
		out.Turns += dc.Turns
		out.Audit += dc.Audit
		out.Recall += dc.Recall
		out.Other += dc.Other
		if running == 0 {
			break
		}
		wctx, cancel := context.WithTimeout(ctx, forgetWait)
		err = a.cfg.Queue.WaitIdle(wctx)
		cancel()
		if err != nil {
			return fmt.Errorf("delete user: wait for running jobs: %w", err)
		}
	}
	detail, _ := json.Marshal(out)
	s := memory.Scope{User: user, Namespace: ns}
	if ns == "" {
		s.Namespace = "*"
	}
	a.audit(ctx, s, "forget_user", "", "", "", string(detail))
	return c.JSON(http.StatusOK, map[string]any{"user": user, "namespace": ns, "deleted": out})
}
