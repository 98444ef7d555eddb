package fault

import (
	"io"
	"net"
	"sync"
	"testing"
)

// relay is a TCP relay in front of PostgreSQL that a test can make hang
// (accept and stop forwarding, as a stuck server or a black-holed network
// does) or refuse (close every connection), and then heal.
type relay struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	mode   string        // "", "hang" or "refuse"
	resume chan struct{} // closed when a hang ends
	conns  map[net.Conn]bool
}

func newRelay(t *testing.T, target string) *relay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln, target: target, resume: make(chan struct{}), conns: map[net.Conn]bool{}}
	go r.serve()
	t.Cleanup(func() { ln.Close(); r.set(""); r.closeAll() })
	return r
}

func (r *relay) addr() string { return r.ln.Addr().String() }

// set switches the mode; leaving "hang" releases the held bytes.
func (r *relay) set(mode string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mode == "hang" && mode != "hang" {
		close(r.resume)
		r.resume = make(chan struct{})
	}
	r.mode = mode
	if mode == "refuse" {
		for c := range r.conns {
			c.Close()
		}
	}
}

func (r *relay) state() (string, chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.mode, r.resume
}

// gate blocks while the relay hangs; false means the connection must go.
func (r *relay) gate() bool {
	for {
		mode, resume := r.state()
		switch mode {
		case "hang":
			<-resume
		case "refuse":
			return false
		default:
			return true
		}
	}
}

func (r *relay) track(c net.Conn, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.conns[c] = true
	} else {
		delete(r.conns, c)
	}
}

func (r *relay) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for c := range r.conns {
		c.Close()
	}
}

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		go r.handle(c)
	}
}

func (r *relay) handle(c net.Conn) {
	r.track(c, true)
	defer func() { r.track(c, false); c.Close() }()
	if !r.gate() {
		return
	}
	up, err := net.Dial("tcp", r.target)
	if err != nil {
		return
	}
	r.track(up, true)
	defer func() { r.track(up, false); up.Close() }()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if !r.gate() {
					break
				}
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				if err != io.EOF {
					break
				}
				break
			}
		}
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
}
