package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// printOverhead writes the text table: per store, one line per API and path.
func printOverhead(w io.Writer, r *overheadResult) {
	mode := "non-streamed"
	if r.Stream {
		mode = "streamed"
	}
	build := ""
	if r.Build != "" {
		build = "; build " + r.Build
	}
	fmt.Fprintf(w, "memproxy bench overhead: %d users × %d memories, %d clients (closed loop), rounds: %d, %s requests; corpus %s (%d turns, %d facts); policy %s%s\n",
		r.Users, r.Memories, r.Clients, r.Rounds, mode, r.Corpus, r.CorpusTurns, r.CorpusFacts, r.Policy, build)
	for _, s := range r.Stores {
		cached := "loaded"
		if s.FixtureCached {
			cached = "kept fixture copied"
		}
		fmt.Fprintf(w, "\nstore %s (fixture: %s in %.1f s; %.2f s per path and round)\n", s.Store, cached, s.FixtureSeconds, s.SegmentSeconds)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "api\tpath\tadded p50\tadded p99\tp50\tp99\tadded cpu\tmachine\tbefore fwd p50/p99\treq/s\trequests\tinjected\t")
		for _, row := range s.Rows {
			before := "—"
			if row.BeforeP50 != nil {
				before = fmt.Sprintf("%.3f/%.3f", *row.BeforeP50, *row.BeforeP99)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.3f\t%.3f\t%s\t%s\t%s\t%.0f\t%d\t%s\t\n", row.API, row.Path,
				msOrDash(row.AddedP50), msOrDash(row.AddedP99), row.P50, row.P99, msOrDash(row.AddedCPU), msOrDash(row.AddedMachine), before, row.PerSec, row.Requests, shareOrDash(row.InjectedShare))
		}
		tw.Flush()
		fmt.Fprintln(w, "(ms; added = the path's percentile, or process CPU per request, minus the direct path's in the same round; machine = the same for every process's CPU (the database server's too); before fwd = memproxy's own time before forwarding (gate, recall), from its X-Memproxy-Overhead header; medians over rounds)")
		if cmp := gateSkipVsChat(s); cmp != "" {
			fmt.Fprintln(w, cmp)
		}
		empty := fmt.Sprintf("queue empty %.1f s after the last request", s.IngestLagSeconds)
		if !s.QueueEmpty {
			empty = fmt.Sprintf("queue NOT empty %.1f s after the last request (--lag-limit)", s.IngestLagSeconds)
		}
		fmt.Fprintf(w, "ingest: %d turns ingested while the requests ran, %d after; %s\n", s.IngestedDuring, s.IngestedAfter, empty)
		if s.JobErrors > 0 || s.ParkedTurns > 0 {
			fmt.Fprintf(w, "background: %d failed job attempts and %d parked turns during the run (retries back off: the lag above counts them)\n", s.JobErrors, s.ParkedTurns)
			for _, l := range s.FirstErrors {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
		fmt.Fprintf(w, "background: yielded to rewrites in flight %d times, %.2f s in all\n", s.Yields, s.YieldSeconds)
		fmt.Fprintf(w, "background: paced itself while requests ran (ingest.yield) %d times, %.2f s in all\n", s.Paces, s.PaceSeconds)
		fmt.Fprintf(w, "background: %d consolidations (clusters of similar events folded) until the queue was empty\n", s.Consolidations)
		if r := s.Ingest; r != nil {
			fmt.Fprintf(w, "ingest rate: %d distinct turns into the loaded scopes in %.1f s: %.0f turns/s (%.2f CPU ms per turn)\n", r.Turns, r.Seconds, r.TurnsPerSec, r.CPUMsPerTurn)
		}
		if s.LoadBefore != "" {
			fmt.Fprintf(w, "machine load average (1, 5, 15 min): %s before, %s after\n", s.LoadBefore, s.LoadAfter)
		}
		for api, why := range s.Skipped {
			fmt.Fprintf(w, "not measured: %s (this build does not serve it: %s)\n", api, firstLine(why))
		}
	}
}

// gateSkipVsChat compares each API's gate-skip added p50 with chat's (a
// share only when chat's is positive: a difference of noise is no ratio).
func gateSkipVsChat(s *storeResult) string {
	skips := map[string]float64{}
	var apis []string
	for _, row := range s.Rows {
		if row.Kind == "gate-skip" && row.AddedP50 != nil {
			skips[row.API] = *row.AddedP50
			apis = append(apis, row.API)
		}
	}
	chat, ok := skips["chat"]
	if !ok || len(apis) < 2 {
		return ""
	}
	parts := []string{fmt.Sprintf("chat %.3f ms", chat)}
	for _, a := range apis {
		if a == "chat" {
			continue
		}
		p := fmt.Sprintf("%s %.3f ms", a, skips[a])
		if chat > 0 {
			p += fmt.Sprintf(" (%+.0f%%)", 100*(skips[a]-chat)/chat)
		}
		parts = append(parts, p)
	}
	return "gate-skip added p50 by API: " + strings.Join(parts, ", ")
}

func msOrDash(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3f", *v)
}

func shareOrDash(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100**v)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
