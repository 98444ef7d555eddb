package sqlite

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// The spool's journal. A capture's commit is what a reply waits for, and
// on the spool's table it was a SQLite transaction per group of captures:
// begin (the WAL index's locks), an insert touching the table and three
// indexes, and a commit writing each changed page to the WAL. Under a
// closed loop of a few clients a group is one or two turns, so every turn
// paid for a whole transaction, a quarter of an ordinary request's CPU.
//
// So a capture appends its turns to a journal file instead, one write(2)
// a group, and the journal's turns move into the table later in large
// transactions: after applyDelay, once applyBatch are waiting, or at once
// when anything reads or changes the spool (every TurnSpool method but
// SpoolTurns applies the journal first, so none can tell the difference).
//
// Durability is the table's: its commits write the WAL without an fsync
// (synchronous NORMAL), and an appended turn is likewise in the operating
// system's hands once write returns, so it survives the process being
// killed, and the next open moves what the journal holds into the table.
// A record carries a checksum and a group's last record a mark: a torn
// tail (a power loss mid-write) is cut at the last whole group, so a group
// is spooled all or none, as its transaction was. A turn moved twice
// (a crash between the move's commit and the segment's removal) is
// skipped by its ID, as a turn spooled twice always was.
//
// The journal is a series of segment files beside the spool's (SpoolPath
// + "-journal-N"); appends go to the newest, a segment past segmentBytes
// is closed and a new one begun, and a segment is removed once all its
// turns are in the table. A forget (RedactSpooled, DeleteSpoolUser)
// begins a new segment and moves everything first, so the segments
// holding the forgotten text are gone before the table is changed.

const (
	// applyDelay is how long appended turns may wait before they move
	// into the table when nothing reads the spool.
	applyDelay = 20 * time.Millisecond
	// applyBatch turns waiting move at once.
	applyBatch = 512
	// segmentBytes is the size at which appends begin a new segment.
	segmentBytes = 4 << 20
	// maxJournalBytes bounds the turns waiting in memory for the table:
	// past it a capture fails (the request goes on, uncaptured) rather
	// than memory growing while the table refuses its writes.
	maxJournalBytes = 64 << 20
)

// journalMagic begins every segment.
const journalMagic = "MPJ1"

// ErrJournalFull is returned by a capture while the turns waiting for the
// spool's table exceed maxJournalBytes.
var ErrJournalFull = errors.New("spool journal full: its turns are not reaching the table")

// journaled is one turn in the journal, as the table's insert takes it.
type journaled struct {
	tid, user, namespace, request, response, session, data string
	time                                                   int64 // unix µs
	seg                                                    int   // segment holding it
}

func (r *journaled) size() int {
	return len(r.tid) + len(r.user) + len(r.namespace) + len(r.request) + len(r.response) + len(r.session) + len(r.data) + 64
}

type journal struct {
	base string   // segment names are base + "-journal-" + N
	lock *os.File // lockJournal's, held while open

	mu      sync.Mutex
	f       *os.File // the newest segment; nil once closed
	seg     int      // its number
	segSize int64
	pending []journaled // appended, not yet in the table, in order
	bytes   int         // size() of pending
	buf     []byte
	err     error // a failed write: the segment's tail is unknown, appends stop

	// applyMu makes one move into the table at a time, so turns enter it
	// in the order they were appended.
	applyMu  sync.Mutex
	kick     chan struct{} // applyBatch turns wait
	appended chan struct{} // turns were appended
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

func (j *journal) segPath(n int) string { return j.base + "-journal-" + strconv.Itoa(n) }

// segments lists the journal's segment numbers, oldest first.
func (j *journal) segments() ([]int, error) {
	names, err := filepath.Glob(j.base + "-journal-*")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, name := range names {
		n, err := strconv.Atoi(strings.TrimPrefix(name, j.base+"-journal-"))
		if err == nil && n >= 0 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// openJournal opens the journal of the spool at base and returns the
// turns its segments hold (the whole groups), which the caller moves into
// the table before calling begin.
func openJournal(base string) (*journal, []journaled, error) {
	lock, err := lockJournal(base)
	if err != nil {
		return nil, nil, err
	}
	j := &journal{base: base, lock: lock, kick: make(chan struct{}, 1), appended: make(chan struct{}, 1)}
	segs, err := j.segments()
	if err != nil {
		j.unlock()
		return nil, nil, err
	}
	var recs []journaled
	for _, n := range segs {
		got, err := readSegment(j.segPath(n), n)
		if err != nil {
			j.unlock()
			return nil, nil, err
		}
		recs = append(recs, got...)
		j.seg = n
	}
	return j, recs, nil
}

// begin removes the old segments (their turns are in the table) and
// starts a new one.
func (j *journal) begin() error {
	if err := j.removeSegments(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rotate()
}

// removeSegments removes every segment file.
func (j *journal) removeSegments() error {
	segs, err := j.segments()
	if err != nil {
		return err
	}
	for _, n := range segs {
		if err := os.Remove(j.segPath(n)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// rotate starts segment seg+1 (the caller holds mu).
func (j *journal) rotate() error {
	if j.f != nil {
		// After a failed write the old segment's state is unknown
		// already; its close may fail too.
		if err := j.f.Close(); err != nil && j.err == nil {
			return err
		}
		j.f = nil
	}
	f, err := os.OpenFile(j.segPath(j.seg+1), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(journalMagic)); err != nil {
		f.Close()
		return err
	}
	j.f, j.seg, j.segSize = f, j.seg+1, int64(len(journalMagic))
	return nil
}

// readSegment returns the whole groups of turns the segment at path holds.
func readSegment(path string, n int) ([]journaled, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	magic := make([]byte, len(journalMagic))
	if _, err := io.ReadFull(r, magic); err != nil {
		return nil, nil // created, never written: nothing in it
	}
	if string(magic) != journalMagic {
		return nil, fmt.Errorf("spool journal %s: not a journal segment", path)
	}
	var out []journaled
	whole := 0 // records up to the last group's end
	var head [8]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			break // end, or a torn header
		}
		size, sum := binary.LittleEndian.Uint32(head[:4]), binary.LittleEndian.Uint32(head[4:])
		if size > maxJournalBytes {
			break
		}
		payload := make([]byte, size)
		if _, err := io.ReadFull(r, payload); err != nil || crc32.Checksum(payload, crcTable) != sum {
			break
		}
		rec, last, ok := decodeJournaled(payload)
		if !ok {
			break
		}
		rec.seg = n
		out = append(out, rec)
		if last {
			whole = len(out)
		}
	}
	return out[:whole], nil
}

// appendTurns writes one group of turns (data is each turn's JSON) to the
// journal and returns once the write returned.
func (j *journal) appendTurns(turns []*memory.Turn, data []string) error {
	recs := make([]journaled, len(turns))
	size := 0
	for i, t := range turns {
		recs[i] = journaled{tid: t.ID, user: t.Scope.User, namespace: t.Scope.Namespace, request: t.RequestID,
			response: t.ResponseID, session: t.Session, data: data[i], time: t.Time.UnixMicro()}
		size += recs[i].size()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.f == nil:
		return memory.ErrClosed
	case j.err != nil:
		return j.err
	case j.bytes+size > maxJournalBytes:
		return ErrJournalFull
	}
	if j.segSize >= segmentBytes {
		if err := j.rotate(); err != nil {
			return fmt.Errorf("spool journal: %w", err)
		}
	}
	b := j.buf[:0]
	for i := range recs {
		recs[i].seg = j.seg
		b = appendJournaled(b, &recs[i], i == len(recs)-1)
	}
	if cap(b) <= 1<<20 {
		j.buf = b
	}
	if _, err := j.f.Write(b); err != nil {
		// Part of the group may be in the file; a later group would
		// follow a torn one. Appends stop until the spool reopens.
		j.err = fmt.Errorf("spool journal: %w", err)
		return j.err
	}
	j.segSize += int64(len(b))
	j.pending = append(j.pending, recs...)
	j.bytes += size
	ch := j.appended
	if len(j.pending) >= applyBatch {
		ch = j.kick
	}
	select {
	case ch <- struct{}{}:
	default:
	}
	return nil
}

// take returns the turns waiting for the table, and whether a failed
// write stopped the appends (moved then begins a new segment); with purge
// it first starts a new segment, so every turn appended before is in an
// older one.
func (j *journal) take(purge bool) ([]journaled, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if purge && j.f != nil && j.segSize > int64(len(journalMagic)) {
		if err := j.rotate(); err != nil {
			return nil, false, fmt.Errorf("spool journal: %w", err)
		}
	}
	return j.pending, j.err != nil, nil
}

// moved drops the first n waiting turns, now in the table, and removes
// the segments none of the waiting turns are in.
func (j *journal) moved(n int) error {
	j.mu.Lock()
	for _, r := range j.pending[:n] {
		j.bytes -= r.size()
	}
	j.pending = slices.Clone(j.pending[n:])
	if j.err != nil && len(j.pending) == 0 && j.f != nil {
		// A failed write (a full disk) stopped the appends: its segment's
		// tail is unknown, but every turn it acknowledged is in the table
		// now, so a new segment can begin and the old one go.
		if err := j.rotate(); err == nil {
			j.err = nil
		}
	}
	keep := j.seg
	if len(j.pending) > 0 {
		keep = j.pending[0].seg
	}
	j.mu.Unlock()
	segs, err := j.segments()
	if err != nil {
		return err
	}
	for _, s := range segs {
		if s >= keep {
			break
		}
		if err := os.Remove(j.segPath(s)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// session returns the session of the newest waiting turn of sc with the
// response id.
func (j *journal) session(sc memory.Scope, responseID string) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.pending) - 1; i >= 0; i-- {
		if r := &j.pending[i]; r.response == responseID && r.user == sc.User && r.namespace == sc.Namespace {
			return r.session, true
		}
	}
	return "", false
}

// waiting reports whether turns wait for the table.
func (j *journal) waiting() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.pending) > 0
}

// close closes the newest segment; segments still holding waiting turns
// stay for the next open. The lock is kept until unlock.
func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// unlock releases the journal's lock (after close, and after the last
// segment removal).
func (j *journal) unlock() {
	if j.lock != nil {
		j.lock.Close()
		j.lock = nil
	}
}

// A record: payload length and CRC-32C (little endian, 4 bytes each), then
// the payload: a flags byte (1: the group's last record), the time as a
// varint, and the seven strings, each a uvarint length and its bytes.
func appendJournaled(b []byte, r *journaled, last bool) []byte {
	at := len(b)
	b = append(b, make([]byte, 8)...)
	var flags byte
	if last {
		flags = 1
	}
	b = append(b, flags)
	b = binary.AppendVarint(b, r.time)
	for _, s := range [...]string{r.tid, r.user, r.namespace, r.request, r.response, r.session, r.data} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	payload := b[at+8:]
	binary.LittleEndian.PutUint32(b[at:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[at+4:], crc32.Checksum(payload, crcTable))
	return b
}

func decodeJournaled(p []byte) (r journaled, last bool, ok bool) {
	if len(p) < 1 {
		return r, false, false
	}
	last = p[0]&1 != 0
	p = p[1:]
	t, n := binary.Varint(p)
	if n <= 0 {
		return r, false, false
	}
	r.time, p = t, p[n:]
	for _, s := range [...]*string{&r.tid, &r.user, &r.namespace, &r.request, &r.response, &r.session, &r.data} {
		l, n := binary.Uvarint(p)
		if n <= 0 || l > uint64(len(p)-n) {
			return r, false, false
		}
		*s, p = string(p[n:n+int(l)]), p[n+int(l):]
	}
	return r, last, len(p) == 0
}
