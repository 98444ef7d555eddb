package eval

import (
	"math"
	"testing"
)

func TestAnswerScore(t *testing.T) {
	cases := []struct {
		cat          int
		answer, gold string
		want         float64
	}{
		{4, "The adoption agencies", "Adoption agencies", 1},
		{4, "painting", "painted a sunset", 2 * 0.5 / 1.5}, // stems meet; "a" is dropped: P 1, R 1/2
		{4, "hiking", "camping", 0},
		{2, "7 May 2023", "7 May, 2023", 1},
		{5, "No information available.", "Tom", 1},
		{5, "It is Tom", "Tom", 0},
		{5, "That was not mentioned", "", 1},
		{1, "psychology, counseling", "Psychology, counseling certification", (1 + 2*(1*0.5)/(1+0.5)) / 2},
		{3, "likely yes", "Likely yes; she likes art", 1},
	}
	for _, c := range cases {
		if got := AnswerScore(c.cat, c.answer, c.gold); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("AnswerScore(%d, %q, %q) = %v, want %v", c.cat, c.answer, c.gold, got, c.want)
		}
	}
}
