package fault

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// TestSIGKILLUnderLoad: a subprocess memproxy serves concurrent streamed
// chats and is killed with SIGKILL mid-load, then started again on the
// same store. Every turn whose reply the client fully received is
// processed (in the turn log) exactly once, and no turn is logged twice.
// The child's server.sink_timeout is long enough that each reply's last
// bytes wait for its spool commit, which is the promise: a reply that
// reached its end was captured (past sink_timeout the reply goes on
// without that promise; see docs/reliability.md).
func TestSIGKILLUnderLoad(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			fake := fakeupstream.New()
			fake.Record = false
			up := newUpstream(t, fake)
			dir := t.TempDir()
			env := []string{"MEMPROXY_FAULT_CHILD_SINK_TIMEOUT=60s"}
			dsn := ""
			if backend == "postgres" {
				dsn = testpg.New(t)
				env = append(env, "MEMPROXY_FAULT_CHILD_DSN="+dsn)
			}
			c := startChildIn(t, up, dir, env...)

			const total, workers, killAfter, users = 400, 32, 80, 16
			var mu sync.Mutex
			var received []int
			kill := make(chan struct{})
			jobs := make(chan int)
			go func() {
				defer close(jobs)
				for i := range total {
					select {
					case jobs <- i:
					case <-kill:
						return
					}
				}
			}()
			var wg sync.WaitGroup
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
			for range workers {
				wg.Go(func() {
					for i := range jobs {
						if !killChat(client, c.base, i, users) {
							continue
						}
						mu.Lock()
						received = append(received, i)
						if len(received) == killAfter {
							close(kill)
						}
						mu.Unlock()
					}
				})
			}
			<-kill
			if err := c.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = c.cmd.Wait()
			wg.Wait()
			mu.Lock()
			got := append([]int(nil), received...)
			mu.Unlock()

			// Restarted on the same store: it finishes what was spooled,
			// within 60 s. (A consolidation the kill interrupted waits
			// for River's stuck-job rescuer: WaitIdle would wait for it.)
			c2 := startChildIn(t, up, dir, env...)
			c2.ingested()
			c2.in.Close()
			if err := c2.cmd.Wait(); err != nil {
				t.Fatalf("restarted child: %v", err)
			}

			logged := killTurns(t, backend, dir, dsn, users)
			lost, twice := 0, 0
			for _, i := range got {
				switch logged[i] {
				case 0:
					lost++
				case 1:
				default:
					twice++
				}
			}
			dup := 0
			for _, n := range logged {
				if n > 1 {
					dup++
				}
			}
			t.Logf("%s: %d replies fully received before and during the kill, %d turns logged; %d of them not logged, %d turns logged more than once",
				backend, len(got), len(logged), lost, dup)
			if lost != 0 || twice != 0 || dup != 0 {
				t.Errorf("after SIGKILL: %d fully received turns not processed, %d processed twice; %d turns logged more than once", lost, twice, dup)
			}
		})
	}
}

// killChat sends chat i (streamed) and reports whether the whole reply
// arrived.
func killChat(client *http.Client, base string, i, users int) bool {
	body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"kill test turn %d: my locker number is %d"}]}`, i, 1000+i)
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("X-Memproxy-User", "kill"+strconv.Itoa(i%users))
	res, err := client.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	b := new(strings.Builder)
	buf := make([]byte, 32<<10)
	for {
		k, rerr := res.Body.Read(buf)
		b.WriteString(string(buf[:k]))
		if rerr != nil {
			break
		}
	}
	return res.StatusCode == 200 && strings.HasSuffix(b.String(), "data: [DONE]\n\n")
}

var killTurnRE = regexp.MustCompile(`^kill test turn (\d+):`)

// killTurns counts the turn-log rows of each chat of the kill test.
func killTurns(t *testing.T, backend, dir, dsn string, users int) map[int]int {
	t.Helper()
	e, err := embed.FromPolicy(policy.Default().Embedder, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	o := memory.OpenOptions{Model: e.Model(), Dim: e.Dim()}
	var st memory.Store
	if backend == "postgres" {
		s, err := postgres.Open(t.Context(), dsn, o)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st = s
	} else {
		s, err := sqlite.Open(t.Context(), filepath.Join(dir, "m.db"), o)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st = s
	}
	out := map[int]int{}
	for u := range users {
		page, err := st.Turns(t.Context(), memory.Scope{User: "kill" + strconv.Itoa(u), Namespace: memory.DefaultNamespace}, memory.TurnFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range page.Data {
			if m := killTurnRE.FindStringSubmatch(tr.User); m != nil {
				i, _ := strconv.Atoi(m[1])
				out[i]++
			}
		}
	}
	return out
}
