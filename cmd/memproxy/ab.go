package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"
)

const abUsage = `usage: memproxy ab report [--proxy URL] [--since DURATION|RFC3339] [--json]

Prints the A/B report of a running memproxy (the admin API's /admin/v1/ab):
per arm, requests, recall rate, injected tokens, added latency and app
feedback. The admin token comes from --admin-token or MEMPROXY_ADMIN_TOKEN.`

// abArm is one arm of the admin A/B report.
type abArm struct {
	Arm          string         `json:"arm"`
	Requests     int            `json:"requests"`
	Statuses     map[string]int `json:"statuses"`
	RecallRate   float64        `json:"recall_rate"`
	TokensPerReq float64        `json:"injected_tokens_per_request"`
	OverheadP50  float64        `json:"overhead_ms_p50"`
	OverheadP95  float64        `json:"overhead_ms_p95"`
	Feedback     int            `json:"feedback_count"`
	FeedbackMean *float64       `json:"feedback_mean"`
}

type abReport struct {
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	Arms  []abArm   `json:"arms"`
}

// abCmd runs `memproxy ab report`.
func abCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "report" {
		return fmt.Errorf("ab: unknown or missing action\n%s", abUsage)
	}
	fs := flag.NewFlagSet("ab report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	proxyURL := fs.String("proxy", envOr(os.Getenv, "MEMPROXY_URL", "http://localhost:8080"), "memproxy base URL (MEMPROXY_URL)")
	token := fs.String("admin-token", os.Getenv("MEMPROXY_ADMIN_TOKEN"), "admin token (MEMPROXY_ADMIN_TOKEN)")
	since := fs.String("since", "", "report window start: a duration back from now (24h) or an RFC 3339 time; default the last 7 days")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *token == "" {
		return errors.New("ab report: the admin token is required (--admin-token or MEMPROXY_ADMIN_TOKEN)")
	}
	q := url.Values{}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			return err
		}
		q.Set("since", t.UTC().Format(time.RFC3339))
	}
	body, err := fetchAB(ctx, strings.TrimRight(*proxyURL, "/")+"/admin/v1/ab?"+q.Encode(), *token)
	if err != nil {
		return err
	}
	if *asJSON {
		_, err := stdout.Write(append(body, '\n'))
		return err
	}
	var rep abReport
	if err := json.Unmarshal(body, &rep); err != nil {
		return fmt.Errorf("ab report: decode: %w", err)
	}
	return writeAB(stdout, &rep)
}

// parseSince reads "24h"-style durations (back from now) or RFC 3339.
func parseSince(s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("ab report: --since %q is neither a duration (24h) nor an RFC 3339 time", s)
	}
	return t, nil
}

func fetchAB(ctx context.Context, u, token string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("ab report: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("ab report: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ab report: status %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return body, nil
}

func writeAB(w io.Writer, rep *abReport) error {
	fmt.Fprintf(w, "A/B report %s – %s\n\n", rep.Since.Format(time.RFC3339), rep.Until.Format(time.RFC3339))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "arm\trequests\trecall rate\ttokens/request\toverhead p50 ms\toverhead p95 ms\tfeedback\tfeedback mean")
	for _, a := range rep.Arms {
		fb := "-"
		if a.FeedbackMean != nil {
			fb = fmt.Sprintf("%.2f", *a.FeedbackMean)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.1f\t%.2f\t%.2f\t%d\t%s\n", a.Arm, a.Requests, a.RecallRate, a.TokensPerReq, a.OverheadP50, a.OverheadP95, a.Feedback, fb)
	}
	return tw.Flush()
}
