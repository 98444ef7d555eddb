//go:build !unix

package storebench

import "time"

func cpuTime() time.Duration { return 0 }
