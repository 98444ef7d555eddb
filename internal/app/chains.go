package app

import (
	"context"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/proxy"
)

// chains links Responses ids to sessions for previous_response_id chains:
// this replica's recent links in memory, else the turn spool, which every
// replica shares (a captured turn carries its response id there). The
// context of a chained turn comes from the turn log, so with the turn log
// off a chained request has no earlier context.
type chains struct {
	mem   *proxy.MemChains
	spool memory.TurnSpool
	log   memory.TurnLog // nil: turn log off
}

// maxContextPages bounds the turn-log pages read for a chain's last
// exchange.
const maxContextPages = 5

func (c *chains) LinkResponse(ctx context.Context, s memory.Scope, id string, l proxy.ChainLink) error {
	if c.log == nil {
		l.Context = ""
	}
	return c.mem.LinkResponse(ctx, s, id, l)
}

// ForgetUser drops this replica's links of a deleted user (the spool
// and turn log they fall back to are deleted with the user).
func (c *chains) ForgetUser(user string) { c.mem.ForgetUser(user) }

// ForgetScope drops this replica's links of a scope after a forget there.
func (c *chains) ForgetScope(s memory.Scope) { c.mem.ForgetScope(s) }

func (c *chains) ResolveResponse(ctx context.Context, s memory.Scope, id string) (proxy.ChainLink, bool, error) {
	if l, ok, _ := c.mem.ResolveResponse(ctx, s, id); ok {
		return l, true, nil
	}
	if c.spool == nil {
		return proxy.ChainLink{}, false, nil
	}
	sess, ok, err := c.spool.SessionByResponse(ctx, s, id)
	if err != nil || !ok {
		return proxy.ChainLink{}, false, err
	}
	l := proxy.ChainLink{Session: sess}
	if c.log == nil || sess == "" {
		return l, true, nil
	}
	var last *memory.Turn
	f := memory.TurnFilter{Session: sess, Limit: 200}
	for range maxContextPages {
		page, err := c.log.Turns(ctx, s, f)
		if err != nil {
			return l, true, nil // the session alone still helps
		}
		if n := len(page.Data); n > 0 {
			last = page.Data[n-1]
		}
		if page.Next == "" {
			break
		}
		f.Cursor = page.Next
	}
	if last != nil {
		l.Context = memory.ExchangeContext(last.User, last.Assistant)
	}
	return l, true, nil
}
