//go:build unix

package sqlite

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockJournal takes the journal's lock file (base + "-journal.lock") for
// this process, so a second process opening the same spool fails at once
// instead of moving and removing the segments the first still appends to.
// The kernel releases it when the process ends, however it ends.
func lockJournal(base string) (*os.File, error) {
	f, err := os.OpenFile(base+"-journal.lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is in use by another memproxy process (one process serves a SQLite database)", base)
		}
		return nil, err
	}
	return f, nil
}
