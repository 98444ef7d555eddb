package research

import (
	"strings"
	"unicode"
)

// words splits text into lowercase letter/digit runs (apostrophes inside
// a word are dropped, so "Caroline's" gives "carolines" → stem "caroline").
func words(text string) []string {
	var out []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '’':
			// keep the word together
		default:
			flush()
		}
	}
	flush()
	return out
}

// stopwords is a short English list: function words that carry no topic.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of at by for with about against between into through
during before after above below to from up down in out on off over under again further then once here there when
where why how all any both each few more most other some such no nor not only own same so than too very s t can will
just don should now i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her
hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was
were be been being have has had having do does did doing would could ought im youre hes shes its were theyre ive youve
weve theyve id youd hed shed wed theyd ill youll hell shell well theyll isnt arent wasnt werent hasnt havent hadnt
doesnt dont didnt wont wouldnt shant shouldnt cant cannot couldnt mustnt lets thats whos whats heres theres whens
wheres whys hows as until while also yeah yes oh wow really like get got`) {
		m[w] = true
	}
	return m
}()

// stem is a light English suffix stripper (plural, -ed, -ing, -ly and a
// few derivational endings). It stands in for the Porter stemmer FTS5
// ("porter" tokenizer) and PostgreSQL's english configuration apply, so
// the harness can tell whether stemming is worth switching on.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for _, s := range []struct{ suf, rep string }{
		{"ies", "y"}, {"sses", "ss"}, {"ness", ""}, {"ments", "ment"},
		{"ingly", ""}, {"edly", ""}, {"ings", ""}, {"ing", ""}, {"ed", ""},
		{"ly", ""}, {"es", ""}, {"s", ""},
	} {
		if strings.HasSuffix(w, s.suf) && len(w)-len(s.suf) >= 3 {
			if s.suf == "s" && (strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is")) {
				return w
			}
			b := w[:len(w)-len(s.suf)] + s.rep
			// "running" → "runn" → "run"; "hoped" → "hop" ~ "hope" → "hop".
			if (s.suf == "ing" || s.suf == "ed" || s.suf == "ings") && len(b) >= 3 && b[len(b)-1] == b[len(b)-2] && !strings.ContainsRune("lsz", rune(b[len(b)-1])) {
				b = b[:len(b)-1]
			}
			return trimE(b)
		}
	}
	return trimE(w)
}

// trimE drops a final silent e so "hope", "hoped" and "hoping" meet.
func trimE(w string) string {
	if len(w) > 3 && w[len(w)-1] == 'e' {
		return w[:len(w)-1]
	}
	return w
}

// Analyzer turns text into index terms.
type Analyzer struct {
	Stem      bool
	Stopwords bool
}

// Terms returns the analysed terms of text, in order.
func (a Analyzer) Terms(text string) []string {
	ws := words(text)
	out := ws[:0]
	for _, w := range ws {
		if a.Stopwords && stopwords[w] {
			continue
		}
		if a.Stem {
			w = stem(w)
		}
		out = append(out, w)
	}
	return out
}
