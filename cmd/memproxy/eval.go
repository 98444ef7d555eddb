package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/memproxy/memproxy/eval"
	"github.com/memproxy/memproxy/eval/locomo"
	mpapp "github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
)

const evalUsage = `usage: memproxy eval locomo --data FILE [--proxy URL] [--json] [--out DIR]
  [--policy FILE] [--samples N] [--concurrency N] [--budget TOKENS] [--api chat|responses|messages]
  [--answer-model M [--judge-model M] [--model-url URL]]

Without --proxy an in-process memproxy runs on a temporary embedded store in
front of a built-in scripted upstream; with --proxy a running memproxy is
driven over HTTP (its admin token from --admin-token or MEMPROXY_ADMIN_TOKEN).
With --answer-model each question is answered by that model in both arms
(in-process: --model-url becomes the upstream) and scored by LoCoMo's token
F1; --judge-model adds LLM-judge accuracy. The model API key is read from
MEMPROXY_EVAL_API_KEY (or OPENAI_API_KEY). --api asks the questions through
/v1/chat/completions (chat, the default), /v1/responses or /v1/messages
(Anthropic; with --answer-model the model server must speak it).`

// evalCmd runs `memproxy eval <benchmark>`.
func evalCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "locomo" {
		return fmt.Errorf("eval: name a benchmark\n%s", evalUsage)
	}
	fs := flag.NewFlagSet("eval locomo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "LoCoMo-format JSON file (required)")
	proxyURL := fs.String("proxy", "", "drive a running memproxy at this URL instead of an in-process one")
	adminToken := fs.String("admin-token", os.Getenv("MEMPROXY_ADMIN_TOKEN"), "admin token of --proxy (MEMPROXY_ADMIN_TOKEN)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	out := fs.String("out", "", "write report.json, report.md, questions.jsonl and SVG charts to this directory")
	policyFile := fs.String("policy", "", "policy file of the in-process memproxy (default: built-in defaults)")
	limit := fs.Int("samples", 0, "use only the first N samples (0: all)")
	conc := fs.Int("concurrency", 4, "questions in flight")
	budget := fs.Int("budget", 0, "token budget the BM25 baseline fills (0: the policy's inject.budget_tokens in-process, 500 with --proxy)")
	answerModel := fs.String("answer-model", "", "model that answers each question (enables token F1)")
	judgeModel := fs.String("judge-model", "", "model that judges each answer (enables judge accuracy)")
	modelURL := fs.String("model-url", "https://api.openai.com/v1", "OpenAI-compatible base URL of the answer and judge models")
	api := fs.String("api", eval.APIChat, "API the questions are asked through: chat, responses or messages")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *data == "" {
		return fmt.Errorf("eval locomo: --data is required\n%s", evalUsage)
	}
	if !eval.ValidAPI(*api) {
		return fmt.Errorf("eval locomo: --api %q is not chat, responses or messages", *api)
	}
	samples, err := locomo.Load(*data)
	if err != nil {
		return err
	}
	if *limit > 0 && *limit < len(samples) {
		samples = samples[:*limit]
	}
	rp := &eval.Replayer{BaseURL: *proxyURL, AdminToken: *adminToken, Concurrency: *conc, API: *api}
	if !*asJSON {
		rp.Progress = stderr
	}
	upstream := ""
	if *answerModel != "" {
		key := os.Getenv("MEMPROXY_EVAL_API_KEY")
		if key == "" {
			key = os.Getenv("OPENAI_API_KEY")
		}
		rp.AnswerModel, rp.APIKey, upstream = *answerModel, key, *modelURL
		if *judgeModel != "" {
			rp.Judge = &eval.Judge{BaseURL: *modelURL, Model: *judgeModel, APIKey: key, HTTP: &http.Client{Timeout: 2 * time.Minute}}
		}
	} else if *judgeModel != "" {
		return errors.New("eval locomo: --judge-model needs --answer-model")
	}
	if *proxyURL == "" {
		stop, err := startInProcess(ctx, rp, *policyFile, upstream)
		if err != nil {
			return err
		}
		defer stop()
	} else if *adminToken == "" {
		return errors.New("eval locomo: --proxy needs the admin token (--admin-token or MEMPROXY_ADMIN_TOKEN)")
	}
	if *budget > 0 {
		rp.BudgetTokens = *budget
	}
	rep, err := rp.Run(ctx, samples)
	if err != nil {
		return err
	}
	rep.Data = *data
	if *out != "" {
		if err := rep.WriteDir(*out); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	_, err = io.WriteString(stdout, rep.Markdown())
	return err
}

// startInProcess runs memproxy on a temporary SQLite file in front of
// upstream (the built-in fake upstream when ""), on a loopback port, and
// points rp at it. stop tears everything down and removes the files.
func startInProcess(ctx context.Context, rp *eval.Replayer, policyFile, upstream string) (stop func(), err error) {
	pol, err := loadPolicy(policyFile)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "memproxy-eval-")
	if err != nil {
		return nil, err
	}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
		os.RemoveAll(dir)
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	if upstream == "" {
		fake := fakeupstream.New()
		upURL, closeUp, err := serveLoopback(fake.Handler())
		if err != nil {
			return nil, err
		}
		stops = append(stops, closeUp)
		upstream = upURL + "/v1"
	}
	token := randomToken()
	blocks := &eval.BlockRecorder{}
	a, err := mpapp.New(ctx, mpapp.Options{
		Upstream:   upstream,
		Transport:  blocks,
		Policy:     pol,
		DB:         filepath.Join(dir, "memproxy.db"),
		AdminToken: token,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Getenv:     func(string) string { return "" },
	})
	if err != nil {
		return nil, fmt.Errorf("start in-process memproxy: %w", err)
	}
	stops = append(stops, func() { a.Close() })
	base, closeApp, err := serveLoopback(a.Handler())
	if err != nil {
		return nil, err
	}
	stops = append(stops, closeApp)
	rp.BaseURL, rp.AdminToken, rp.WaitIdle, rp.Flush = base, token, a.Queue.WaitIdle, a.Hook.Flush
	rp.Blocks, rp.BudgetTokens, rp.Guard = blocks, pol.Inject.BudgetTokens, pol.Inject.Guard
	rp.HTTP = &http.Client{Timeout: 2 * time.Minute}
	return stop, nil
}

// serveLoopback serves h on a fresh 127.0.0.1 port until the returned
// close function is called.
func serveLoopback(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return "http://" + ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

func randomToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
