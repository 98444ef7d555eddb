package facts

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestProbe(t *testing.T) {
	in := os.Getenv("PROBE")
	if in == "" {
		t.Skip()
	}
	for _, s := range strings.Split(in, "|") {
		fmt.Printf("== %s\n", s)
		for _, f := range extract(s) {
			fmt.Printf("   %s=%q note=%v ended=%v multi=%v open=%v exp=%v text=%q\n", f.Key(), f.Value, f.Note, f.Ended, f.Multi, f.Open, f.Expires.Format("2006-01-02"), f.Text)
		}
		if os.Getenv("TAGS") != "" {
			for _, tk := range tagEN(s) {
				fmt.Printf("%s/%s ", tk.w, tk.tag)
			}
			fmt.Println()
		}
	}
}
