//go:build !unix

package main

import "time"

func processCPU() time.Duration { return 0 }

func machineCPU() (time.Duration, bool) { return 0, false }
