package memory

import "testing"

// BenchmarkMatchTexts matches a long message's terms against candidate
// texts, with the query indexed (as recall runs it) and without.
func BenchmarkMatchTexts(b *testing.B) {
	q := "Yesterday I finally finished painting the sunset over the lake that my sister Melanie suggested, and I am thinking about joining a local art class with friends from the support group next month because it helps me relax after long shifts at the hospital"
	texts := []string{
		"Melanie has been painting landscapes since she joined an art class at the community centre in the spring",
		"The user went camping by the lake with her kids and roasted marshmallows; they saw a meteor shower",
		"Caroline attended an LGBTQ support group meeting and found it powerful to hear other people's stories",
		"John works long shifts as a nurse at the city hospital and relaxes by running along the river",
		"She is planning a trip to Spain next month with two friends from her pottery class",
	}
	for _, indexed := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "indexed"}[indexed], func(b *testing.B) {
			qt := newQueryTerms(q)
			if indexed {
				qt.index()
			}
			n := 0.0
			for b.Loop() {
				for _, t := range texts {
					c, _, _ := qt.matchTexts(t, "")
					n += c
				}
			}
			if n == 0 {
				b.Fatal("nothing matched")
			}
		})
	}
}

// An indexed query matches every text as the plain one does.
func TestMatchTextsIndexed(t *testing.T) {
	queries := []string{
		"What sports does John like?",
		"Yesterday I finally finished painting the sunset over the lake my sister suggested",
		"What kind of art did Melanie make? Paintings of sunsets, maybe",
		"我的狗喜欢吃什么 and what does Rex eat?",
		"a I o x-ray e-mail naïve café support-group",
	}
	texts := []string{
		"Melanie has been painting landscapes since she joined an art class",
		"John plays basketball and tennis; he also loves karate and soccer",
		"I paint sunsets over lakes. My sisters suggested it.",
		"我的狗很喜欢吃肉, Rex eats beef",
		"An X-ray, an e-mail, a naïve CAFÉ, the Support Group",
		"",
	}
	for _, q := range queries {
		plain := newQueryTerms(q)
		plain.expand()
		indexed := plain
		indexed.index()
		for _, a := range texts {
			for _, b := range texts {
				c1, p1, m1 := plain.matchTexts(a, b)
				c2, p2, m2 := indexed.matchTexts(a, b)
				if c1 != c2 || p1 != p2 || m1 != m2 {
					t.Errorf("%q vs %q+%q: plain %v %d %b, indexed %v %d %b", q, a, b, c1, p1, m1, c2, p2, m2)
				}
			}
		}
	}
}
