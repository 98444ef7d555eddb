// Command research compares memory designs on a LoCoMo-format file offline:
// evidence recall@k and injected tokens per design, as a Markdown table.
//
//	go run ./eval/cmd/research --data ../shared/bench/locomo-dev.json [--only REGEXP]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"

	"github.com/memproxy/memproxy/eval/locomo"
	"github.com/memproxy/memproxy/eval/research"
)

func main() {
	data := flag.String("data", "../shared/bench/locomo-dev.json", "LoCoMo-format JSON file")
	only := flag.String("only", "", "run only designs whose name matches this regexp")
	flag.Parse()
	if err := run(*data, *only); err != nil {
		fmt.Fprintln(os.Stderr, "research:", err)
		os.Exit(1)
	}
}

func run(data, only string) error {
	samples, err := locomo.Load(data)
	if err != nil {
		return err
	}
	re, err := regexp.Compile(only)
	if err != nil {
		return fmt.Errorf("--only: %w", err)
	}
	fmt.Println("| design | units/sample | R@5 | R@10 | R@25 | R@5 cat1-4 | c1 | c2 | c3 | c4 | c5 | tokens mean | p95 | ms |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, d := range research.Designs() {
		if !re.MatchString(d.Name) {
			continue
		}
		r, err := research.Run(context.Background(), samples, d)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
		s := r.Summary
		c := func(k string) float64 { return s.ByCategory[k].EvidenceRecall["5"] }
		fmt.Printf("| %s | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f | %.0f | %d |\n",
			d.Name, r.Units, s.EvidenceRecall["5"], s.EvidenceRecall["10"], s.EvidenceRecall["25"], s.EvidenceRecallCat1_4["5"],
			c("1"), c("2"), c("3"), c("4"), c("5"), s.MeanInjectedTokens, s.P95InjectedTokens, r.Elapsed.Milliseconds())
	}
	return nil
}
