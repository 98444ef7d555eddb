package background

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
)

// Environment of the durability child process.
const (
	childEnv     = "MEMPROXY_BG_DURABILITY_CHILD"
	childBackend = "MEMPROXY_BG_BACKEND"
	childTarget  = "MEMPROXY_BG_TARGET"
	childN       = "MEMPROXY_BG_N"
)

// TestDurabilityChild is the child half of TestDurability: it enqueues N
// turns concurrently (as N finished requests would), reports each
// acknowledged one on stdout, then blocks until it is killed.
func TestDurabilityChild(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("child process of TestDurability")
	}
	n, _ := strconv.Atoi(os.Getenv(childN))
	e := openEnv(t, os.Getenv(childBackend), os.Getenv(childTarget), envOpts{insertOnly: true})
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range n {
		wg.Go(func() {
			tu := &memory.Turn{
				RequestID: fmt.Sprintf("dur-%d", i), Scope: scope("dur"), Time: e.clock.Now().Add(time.Duration(i) * time.Second),
				User: fmt.Sprintf("Durable statement number %d about the Zephyr %d project budget", i, i), Assistant: "Got it.",
			}
			if err := e.q.Enqueue(context.Background(), tu); err != nil {
				fmt.Printf("ERR %v\n", err)
				return
			}
			mu.Lock()
			fmt.Printf("ACK %s\n", tu.RequestID)
			mu.Unlock()
		})
	}
	wg.Wait()
	fmt.Println("DONE")
	select {} // wait for SIGKILL
}

// TestDurability: a process acknowledges N turns and is SIGKILLed before
// any worker runs; a fresh queue on the same database ingests every
// acknowledged turn exactly once.
func TestDurability(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		const n = 50
		target := ""
		if backend == "sqlite" {
			target = t.TempDir() + "/memproxy.db"
		} else {
			target = newPGTarget(t)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDurabilityChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), childEnv+"=1", childBackend+"="+backend, childTarget+"="+target, childN+"="+strconv.Itoa(n))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acked []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if id, ok := strings.CutPrefix(line, "ACK "); ok {
				acked = append(acked, id)
			}
			if line == "DONE" || strings.HasPrefix(line, "ERR") {
				if line != "DONE" {
					t.Errorf("child: %s", line)
				}
				break
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		if len(acked) != n {
			t.Fatalf("child acknowledged %d of %d turns", len(acked), n)
		}

		e := openEnv(t, backend, target, envOpts{})
		e.wait()
		evs := e.list(scope("dur"), memory.StateAny, memory.TierEvent)
		seen := map[string]int{}
		for _, m := range evs {
			for _, r := range m.Provenance.RequestIDs {
				seen[r]++
			}
		}
		for _, id := range acked {
			if seen[id] != 1 {
				t.Errorf("turn %s stored %d times", id, seen[id])
			}
		}
		if len(evs) != n {
			t.Errorf("%d events for %d turns", len(evs), n)
		}
		turns, err := e.st.Turns(context.Background(), scope("dur"), memory.TurnFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(turns.Data) != n {
			t.Errorf("turn log has %d turns, want %d", len(turns.Data), n)
		}
		if e.q.IngestedTurns() != n {
			t.Errorf("ingested %d, want %d", e.q.IngestedTurns(), n)
		}
	})
}

// TestTwoReplicas: two queues on one PostgreSQL schema share the work: a
// cluster fed through both is consolidated once, and the periodic decay
// runs on one leader only.
func TestTwoReplicas(t *testing.T) {
	target := newPGTarget(t)
	a := openEnv(t, "postgres", target, envOpts{id: "replica-a"})
	b := openEnv(t, "postgres", target, envOpts{id: "replica-b"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := scope("kim")
	for i, m := range kyoto {
		e := a
		if i%2 == 1 {
			e = b
		}
		e.say(s, m)
		a.wait()
		b.wait()
	}
	// Both replicas see the third event's cluster; a retried trigger from
	// either must not consolidate twice.
	for _, e := range []*env{a, b} {
		evs := e.list(s, memory.StateAny, memory.TierEvent)
		slices.SortFunc(evs, func(x, y *memory.Memory) int { return x.CreatedAt.Compare(y.CreatedAt) })
		if err := e.q.ing.clu.clusterBatch(ctx, evs[len(evs)-1:]); err != nil {
			t.Fatal(err)
		}
	}
	a.wait()
	b.wait()
	if got := a.q.Consolidations() + b.q.Consolidations(); got != 1 {
		t.Errorf("cluster consolidated %d times across replicas", got)
	}
	if eps := a.list(s, memory.StateLive, memory.TierEpisodic); len(eps) != 1 {
		t.Errorf("episodic %s", texts(eps))
	}
	// Decay: RunOnStart inserts one job from the elected leader.
	waitDecayAny(ctx, t, a.q, b.q)
	a.wait()
	b.wait()
	if got := a.q.DecayRuns() + b.q.DecayRuns(); got != 1 {
		t.Errorf("decay ran %d times across replicas, want 1 (leader only)", got)
	}
}

// waitDecay waits until q finished a decay job.
func waitDecay(ctx context.Context, t *testing.T, q *Queue) { waitDecayAny(ctx, t, q) }

func waitDecayAny(ctx context.Context, t *testing.T, qs ...*Queue) {
	t.Helper()
	ch := make(chan struct{}, len(qs))
	for _, q := range qs {
		sub, cancel := q.Client().Subscribe(river.EventKindJobCompleted)
		defer cancel()
		go func() {
			for {
				select {
				case ev, ok := <-sub:
					if !ok {
						return
					}
					if ev.Job.Kind == kindDecay {
						ch <- struct{}{}
						return
					}
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	total := func() int64 {
		var n int64
		for _, q := range qs {
			n += q.DecayRuns()
		}
		return n
	}
	if total() > 0 {
		return
	}
	select {
	case <-ch:
	case <-ctx.Done():
		if total() == 0 {
			t.Fatal("no decay job ran")
		}
	}
}

// blockingEmbedder embeds like the local one until armed; then each call
// reports on busy and blocks until release is closed (or forever).
type blockingEmbedder struct {
	Embedder
	busy    chan struct{}
	release chan struct{}
}

func (b *blockingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case b.busy <- struct{}{}:
	default:
	}
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return b.Embedder.Embed(ctx, texts)
}

// TestDurabilityMidJobChild is the child of TestDurabilityMidJob: it runs
// workers whose embedder blocks, so the turns' leases are held when it
// is killed; it reports BUSY once a worker holds them.
func TestDurabilityMidJobChild(t *testing.T) {
	if os.Getenv(childEnv) != "2" {
		t.Skip("child process of TestDurabilityMidJob")
	}
	n, _ := strconv.Atoi(os.Getenv(childN))
	emb := &blockingEmbedder{Embedder: newEmbedder(), busy: make(chan struct{}, 1), release: make(chan struct{})}
	e := openEnv(t, os.Getenv(childBackend), os.Getenv(childTarget), envOpts{emb: emb, lease: midJobLease, sweep: midJobSweep})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tu := &memory.Turn{
				RequestID: fmt.Sprintf("mid-%d", i), Scope: scope("mid"), Time: e.clock.Now().Add(time.Duration(i) * time.Second),
				User: fmt.Sprintf("Durable statement number %d about the Orion %d launch window", i, i), Assistant: "Noted.",
			}
			if err := e.q.Enqueue(context.Background(), tu); err != nil {
				fmt.Printf("ERR %v\n", err)
			}
		})
	}
	wg.Wait()
	fmt.Println("DONE")
	<-emb.busy
	fmt.Println("BUSY")
	select {} // wait for SIGKILL
}

// The lease and sweep of TestDurabilityMidJob: production's are 20 s and
// 5 s (the test pins the mechanism, the defaults the 60 s bound).
const (
	midJobLease = 2 * time.Second
	midJobSweep = 500 * time.Millisecond
)

// TestDurabilityMidJob: a process acknowledges N turns, a worker claims
// them and is SIGKILLed mid-job (its leases held); a fresh queue on the
// same database ingests every turn exactly once, with one turn-log row
// each, once the dead worker's lease has run out — not after River's
// rescuer (10 minutes).
func TestDurabilityMidJob(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		const n = 40
		target := t.TempDir() + "/memproxy.db"
		if backend == "postgres" {
			target = newPGTarget(t)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDurabilityMidJobChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), childEnv+"=2", childBackend+"="+backend, childTarget+"="+target, childN+"="+strconv.Itoa(n))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "ERR") {
				t.Errorf("child: %s", line)
			}
			if line == "BUSY" {
				break
			}
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()

		restart := time.Now()
		e := openEnv(t, backend, target, envOpts{lease: midJobLease, sweep: midJobSweep})
		e.wait()
		t.Logf("%s: restart to all %d turns processed: %v", backend, n, time.Since(restart).Round(time.Millisecond))
		evs := e.list(scope("mid"), memory.StateAny, memory.TierEvent)
		seen := map[string]int{}
		for _, m := range evs {
			for _, r := range m.Provenance.RequestIDs {
				seen[r]++
			}
		}
		for i := range n {
			if id := fmt.Sprintf("mid-%d", i); seen[id] != 1 {
				t.Errorf("turn %s stored %d times", id, seen[id])
			}
		}
		turns, err := e.st.Turns(context.Background(), scope("mid"), memory.TurnFilter{Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if len(turns.Data) != n {
			t.Errorf("turn log has %d rows, want %d", len(turns.Data), n)
		}
		if pending, _, _ := e.q.spool.SpoolStats(context.Background()); pending != 0 {
			t.Errorf("%d turns still pending", pending)
		}
	})
}

// TestLiveLeaseNotStolen: while one replica's worker is busy with a
// scope's turns (renewing its lease), the other replica neither claims
// nor ingests them, however many lease periods pass; once the worker
// finishes, each turn is ingested once. Both replicas' embedders block,
// so whichever takes the job holds the lease.
func TestLiveLeaseNotStolen(t *testing.T) {
	target := newPGTarget(t)
	emb := &blockingEmbedder{Embedder: newEmbedder(), busy: make(chan struct{}, 1), release: make(chan struct{})}
	// The lease is short enough for a quick test and long enough that a
	// renewal (every lease/3) delayed by a loaded machine's run queue
	// still lands before it expires: at 300ms the test failed at load
	// average 10 on two cores with a renewal that found its lease gone.
	const lease = 1500 * time.Millisecond
	renewals := make(chan int, 1000)
	var qs []*env
	for _, id := range []string{"replica-a", "replica-b"} {
		e := openEnv(t, "postgres", target, envOpts{id: id, emb: emb, lease: lease, sweep: 50 * time.Millisecond})
		e.q.onRenew = func(n int) {
			select {
			case renewals <- n:
			default:
			}
		}
		qs = append(qs, e)
	}
	a, b := qs[0], qs[1]
	s := scope("lease")
	ctx := context.Background()
	var turns []*memory.Turn
	for i := range 5 {
		turns = append(turns, &memory.Turn{RequestID: fmt.Sprintf("l-%d", i), Scope: s, User: oneOff(i), Assistant: oneOffReply(i)})
	}
	if err := a.q.ImportTurns(ctx, turns); err != nil { // one commit: one claim takes all
		t.Fatal(err)
	}
	<-emb.busy // a worker holds the turns
	// Four renewals span more than a lease: an unrenewed lease would
	// have expired, and the other replica's sweeps (every 50ms) would
	// have taken it.
	for range 4 {
		if n := <-renewals; n != 5 {
			t.Fatalf("renewed %d leases, want 5", n)
		}
	}
	if got, err := b.q.spool.ClaimTurns(ctx, s, "thief", lease, 10); err != nil || len(got) != 0 {
		t.Fatalf("a live lease was taken: %d turns (err %v)", len(got), err)
	}
	if n := a.q.IngestedTurns() + b.q.IngestedTurns(); n != 0 {
		t.Fatalf("%d turns ingested while the holder is blocked", n)
	}
	close(emb.release)
	a.wait()
	b.wait()
	if got := a.q.IngestedTurns() + b.q.IngestedTurns(); got != 5 {
		t.Errorf("ingested %d times, want 5", got)
	}
	if evs := a.list(s, memory.StateAny, memory.TierEvent); len(evs) != 5 {
		t.Errorf("%d events, want 5", len(evs))
	}
}
