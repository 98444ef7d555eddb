package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memproxy/memproxy/proxy"
)

// benchAPI is one of the APIs memproxy serves: its route and how an app
// sends a system prompt, history and a new user message on it.
type benchAPI struct {
	Name string
	Path string
	Body func(system string, history []string, msg string, stream bool) []byte
	// Header adds what the API's SDK sends besides the body.
	Header func(h http.Header)
}

const benchSystem = "You are a helpful assistant."

var benchAPIs = []benchAPI{
	{
		Name: "chat", Path: "/v1/chat/completions",
		Body: func(system string, history []string, msg string, stream bool) []byte {
			type m struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			msgs := []m{{"system", system}}
			for i, h := range history {
				msgs = append(msgs, m{[]string{"user", "assistant"}[(len(history)-i)%2], h})
			}
			msgs = append(msgs, m{"user", msg})
			return mustJSON(struct {
				Model    string `json:"model"`
				Messages []m    `json:"messages"`
				Stream   bool   `json:"stream"`
			}{"gpt-4o-mini", msgs, stream})
		},
		Header: func(h http.Header) { h.Set("Authorization", "Bearer sk-bench") },
	},
	{
		Name: "responses", Path: "/v1/responses",
		Body: func(system string, history []string, msg string, stream bool) []byte {
			type item struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			var input []item
			for i, h := range history {
				input = append(input, item{[]string{"user", "assistant"}[(len(history)-i)%2], h})
			}
			input = append(input, item{"user", msg})
			return mustJSON(struct {
				Model        string `json:"model"`
				Instructions string `json:"instructions"`
				Input        []item `json:"input"`
				Stream       bool   `json:"stream"`
			}{"gpt-4o-mini", system, input, stream})
		},
		Header: func(h http.Header) { h.Set("Authorization", "Bearer sk-bench") },
	},
	{
		Name: "messages", Path: "/v1/messages",
		Body: func(system string, history []string, msg string, stream bool) []byte {
			type m struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			}
			var msgs []m
			for i, h := range history {
				msgs = append(msgs, m{[]string{"user", "assistant"}[(len(history)-i)%2], h})
			}
			// Anthropic wants the first message from the user.
			if len(msgs) > 0 && msgs[0].Role == "assistant" {
				msgs = msgs[1:]
			}
			msgs = append(msgs, m{"user", msg})
			return mustJSON(struct {
				Model     string `json:"model"`
				MaxTokens int    `json:"max_tokens"`
				System    string `json:"system"`
				Messages  []m    `json:"messages"`
				Stream    bool   `json:"stream"`
			}{"claude-sonnet-4-5", 1024, system, msgs, stream})
		},
		Header: func(h http.Header) {
			h.Set("X-Api-Key", "sk-ant-bench")
			h.Set("Anthropic-Version", "2023-06-01")
		},
	},
}

func apiByName(name string) (benchAPI, bool) {
	for _, a := range benchAPIs {
		if a.Name == name {
			return a, true
		}
	}
	return benchAPI{}, false
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// benchPath is one measured path: where requests go, which messages they
// carry and with which arm.
type benchPath struct {
	Name  string // "direct", "floor", "memproxy"
	Kind  string // "ordinary" or "gate-skip"
	Arm   string // memproxy only
	Base  string
	Label string
}

// recalls reports whether the path's arm runs recall (so the injected share
// means something).
func (p benchPath) recalls() bool {
	return p.Name == "memproxy" && p.Kind == "ordinary" && (p.Arm == proxy.ArmOn || p.Arm == proxy.ArmReadonly)
}

// messages hands out the run's messages: ordinary ones are never repeated
// within a run, on any path, so none hits a cache another request warmed.
type messages struct {
	c        *benchCorpus
	ordinary atomic.Int64
	skip     atomic.Int64
	users    int
}

func (m *messages) next(kind string) (user string, history []string, msg string) {
	if kind == "gate-skip" {
		n := int(m.skip.Add(1) - 1)
		return benchUser(n % m.users), nil, gateSkips[n%len(gateSkips)]
	}
	n := int(m.ordinary.Add(1) - 1)
	history, msg = m.c.ordinary(n)
	return benchUser(n % m.users), history, msg
}

// segment is what one closed-loop run of a path measured.
type segment struct {
	Lat []time.Duration
	// Before is, for memproxy's paths, the time each request spent in the
	// proxy before it was forwarded (its X-Memproxy-Overhead header):
	// recall, for ordinary messages on recalling arms. Sorted.
	Before   []time.Duration
	Injected int
	Elapsed  time.Duration
	// CPU is the process's CPU time over the segment: clients, servers,
	// fake upstream and the background, all in this process.
	CPU time.Duration
	// Machine is the machine's busy CPU time over the segment (every
	// process, the database server's included); MachineOK is false where
	// it cannot be read (machineCPU).
	Machine   time.Duration
	MachineOK bool
}

// cpuPerReq is the segment's process CPU per request, in ms.
func (s *segment) cpuPerReq() float64 {
	if len(s.Lat) == 0 {
		return 0
	}
	return float64(s.CPU) / float64(time.Millisecond) / float64(len(s.Lat))
}

// machinePerReq is the segment's machine CPU per request, in ms (nil
// where it cannot be read).
func (s *segment) machinePerReq() *float64 {
	if !s.MachineOK || len(s.Lat) == 0 {
		return nil
	}
	v := float64(s.Machine) / float64(time.Millisecond) / float64(len(s.Lat))
	return &v
}

// runSegment drives p with a closed loop of clients for d: each client
// sends its next request as soon as the previous reply's last byte is read.
func runSegment(ctx context.Context, hc *http.Client, api benchAPI, p benchPath, msgs *messages, clients int, d time.Duration, stream bool) (*segment, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		seg      = &segment{}
		firstErr error
		wg       sync.WaitGroup
	)
	cpu0 := processCPU()
	mach0, machOK := machineCPU()
	start := time.Now()
	deadline := start.Add(d)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat, before []time.Duration
			injected := 0
			// Every client sends at least one request, however late it
			// starts on a loaded machine, so no segment is empty.
			for first := true; first || time.Now().Before(deadline) && ctx.Err() == nil; first = false {
				user, history, msg := msgs.next(p.Kind)
				took, recall, pre, err := benchRequest(ctx, hc, api, p, user, history, msg, stream)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
				lat = append(lat, took)
				if pre >= 0 {
					before = append(before, pre)
				}
				if recall == proxy.RecallInjected {
					injected++
				}
			}
			mu.Lock()
			seg.Lat = append(seg.Lat, lat...)
			seg.Before = append(seg.Before, before...)
			seg.Injected += injected
			mu.Unlock()
		}()
	}
	wg.Wait()
	seg.Elapsed, seg.CPU = time.Since(start), processCPU()-cpu0
	if mach1, ok := machineCPU(); ok && machOK && mach1 >= mach0 {
		seg.Machine, seg.MachineOK = mach1-mach0, true
	}
	if firstErr != nil {
		return nil, firstErr
	}
	slices.Sort(seg.Lat)
	slices.Sort(seg.Before)
	return seg, nil
}

// benchRequest sends one request and reads the whole reply; it returns the
// time to the reply's last byte, the X-Memproxy-Recall header and the
// X-Memproxy-Overhead header (the time before forwarding; -1 without one).
func benchRequest(ctx context.Context, hc *http.Client, api benchAPI, p benchPath, user string, history []string, msg string, stream bool) (took time.Duration, recall string, before time.Duration, err error) {
	body := api.Body(benchSystem, history, msg, stream)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.Base+api.Path, bytes.NewReader(body))
	if err != nil {
		return 0, "", -1, err
	}
	req.Header.Set("Content-Type", "application/json")
	api.Header(req.Header)
	req.Header.Set(proxy.HeaderUser, user)
	if p.Arm != "" {
		req.Header.Set(proxy.HeaderMemory, p.Arm)
	}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", -1, fmt.Errorf("%s %s: %w", p.Label, api.Name, err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		resp.Body.Close()
		return 0, "", -1, fmt.Errorf("%s %s: status %d: %s", p.Label, api.Name, resp.StatusCode, b)
	}
	// Read to the last byte without keeping it: the client's garbage
	// would be collected on memproxy's time (one process).
	_, err = io.Copy(io.Discard, resp.Body) // io.Discard reads into a pooled buffer
	resp.Body.Close()
	took = time.Since(start)
	if err != nil {
		return 0, "", -1, fmt.Errorf("%s %s: read reply: %w", p.Label, api.Name, err)
	}
	before = -1
	if v, perr := strconv.ParseFloat(resp.Header.Get(proxy.HeaderOverhead), 64); perr == nil {
		before = time.Duration(v * float64(time.Millisecond))
	}
	return took, resp.Header.Get(proxy.HeaderRecall), before, nil
}

// pct is the nearest-rank percentile of sorted latencies, in ms.
func pct(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return float64(sorted[max(i, 0)]) / float64(time.Millisecond)
}

// median of xs (NaN when empty); xs is reordered.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	if n := len(xs); n%2 == 1 {
		return xs[n/2]
	} else {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
}
