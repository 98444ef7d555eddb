package background

import (
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/redact"
)

// Redactor scrubs secrets per policy ingest.redact (package redact):
// Enqueue applies it to every turn before the spool row is written.
type Redactor = redact.Redactor

// NewRedactor returns the redactor for a policy.
func NewRedactor(p policy.Redact) Redactor { return redact.New(p) }
