package lifecycle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/memory"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var pol = Policy{DupThreshold: 0.9, SupersedeThreshold: 0.5}

// store is a slot store for the tests: the memories written so far.
type store struct{ ms []*memory.Memory }

// say extracts the facts of s and applies each decision, returning the
// decisions' ops.
func (st *store) say(t *testing.T, s string, at time.Time) []Op {
	t.Helper()
	var ops []Op
	for i, f := range facts.Extract(s, facts.Options{At: at}) {
		m := &memory.Memory{ID: fmt.Sprintf("%s/%d", s, i), Tier: memory.TierSemantic, Text: f.Text, Key: f.Key(),
			CreatedAt: at, ValidFrom: f.ValidFrom}
		if !f.Expires.IsZero() {
			e := f.Expires
			m.ExpiresAt = &e
		}
		tr := f.Triple
		m.Provenance.Fact = &tr
		var slot []*memory.Memory
		for _, o := range st.ms {
			if facts.NormKey(o.Key) == m.Key {
				slot = append(slot, o)
			}
		}
		ff := f
		ws := Decide(Candidate{Memory: m, Fact: &ff, Change: f.Change}, slot, nil, pol, at)
		for _, w := range ws {
			ops = append(ops, w.Op)
			switch w.Op {
			case Insert:
				st.ms = append(st.ms, w.Memory)
			case Supersede:
				vt := w.At
				w.Memory.ValidTo, w.Memory.SupersededBy = &vt, w.By
			}
		}
	}
	return ops
}

func (st *store) live() []string {
	var out []string
	for _, m := range st.ms {
		if m.Live(t0.AddDate(1, 0, 0)) {
			out = append(out, m.Text)
		}
	}
	return out
}

func has(ops []Op, op Op) bool {
	for _, o := range ops {
		if o == op {
			return true
		}
	}
	return false
}

// contradictions: the second statement replaces the first.
var contradictions = [][2]string{
	{"I use Python for everything", "I switched to Rust"},
	{"I live in Berlin", "I moved to Paris"},
	{"I live in Berlin", "I moved from Berlin to Lisbon last month."},
	{"I live in Berlin", "I live in Lisbon"},
	{"I work at Google", "I now work at Microsoft"},
	{"I work at Acme", "I quit Acme last week and joined Globex."},
	{"My name is Bob", "Call me Robert"},
	{"I'm a teacher", "I'm now a software engineer"},
	{"I'm vegetarian", "I'm vegan now."},
	{"My favorite color is blue", "My favorite color is green now"},
	{"I live in New York", "I relocated to Boston"},
	{"I use Vim", "I switched to Emacs"},
	{"I'm 30 years old", "I'm 31 years old"},
	{"I work as a nurse", "I work as a doctor now"},
	{"我住在上海", "我搬到北京了"},
	{"我住在北京", "我上个月从北京搬到上海了"},
	{"我叫小明", "我的名字是大明"},
	{"我在腾讯工作", "我现在在阿里巴巴工作"},
	{"我用Java", "我改用Go了"},
	{"我今年28岁", "我今年29岁"},
	{"我最喜欢的颜色是蓝色", "我最喜欢的颜色是绿色"},
	{"我住在广州", "我已经搬到深圳了"},
	{"My sister lives in Rome", "My sister moved to Berlin"},
	{"I use Python", "I no longer use Python"},
	{"My dentist is Dr. Okafor", "My dentist is now Dr. Lee"},
	{"I drive a Honda Civic", "Sold the Civic and bought a Tesla Model 3"},
	{"My phone is a Pixel 7", "Just got an iPhone 16 to replace the Pixel"},
	{"I'm on Pacific time", "I'm on Eastern time now"},
	{"I'm studying law at Edinburgh", "I switched to architecture this semester"},
	{"My favourite cuisine is Thai", "Ethiopian food is my new favourite"},
	{"I go to the gym on Mondays", "I moved my gym days to Thursdays"},
	{"I work at Acme", "First week at Globex as a designer"},
	{"My son is 7", "My son is 8 now"},
	{"我用的是华为手机", "我换了iPhone"},
	{"我在美团做产品经理", "我又换工作了，现在在小米"},
	{"我吃素", "我现在不吃素了，开始吃肉了"},
	{"I drink about four coffees a day.", "I quit caffeine entirely, it's only herbal tea for me now."},
	{"I code in vim.", "Nope, back to VS Code."},
	{"I use Slack at work.", "I don't use that anymore, now I use Discord."},
	{"I drink green tea every morning.", "These days it's matcha."},
}

// additions: the second statement adds to the first.
var additions = [][2]string{
	{"I use Python for everything", "I also use Go"},
	{"I live in Berlin", "My sister moved to Berlin"},
	{"I like jazz", "I like hiking"},
	{"I work at Google", "My brother works at Apple"},
	{"我住在上海", "我妹妹搬到北京了"},
	{"我喜欢爬山", "我喜欢游泳"},
	{"我用Python", "我也用Go"},
	{"I live in Tokyo", "I like ramen"},
	{"My dentist is Dr. Okafor", "Please remember that my dentist appointment is now on Friday"},
	{"My dentist is Dr. Okafor", "My dentist is Dr. Lee"}, // open attribute, no change cue
	{"I have a cat named Luna", "I have a dog named Rex"},
	{"I live in Lyon", "I'm in Tokyo this week for a conference"},
	{"我住在杭州", "我这周在东京出差，住在新宿"},
	{"We have two kids, Sofia and Leo", "Our third baby, Lina, was born yesterday"},
	{"I use Go for our backend", "I also use TypeScript for the dashboard"},
	{"我养了一只猫，叫咪咪", "我们又领养了一只狗，叫旺财"},
	{"I code in vim.", "I switched to Rust for the backend."}, // another kind of thing
	{"I drink coffee.", "It's raining now."},
	{"I use Python for everything", "Back to work tomorrow."},
}

func TestDecideSupersedes(t *testing.T) {
	for _, p := range contradictions {
		st := &store{}
		st.say(t, p[0], t0)
		first := st.live()
		if len(first) == 0 {
			t.Errorf("%q: no fact", p[0])
			continue
		}
		ops := st.say(t, p[1], t0.AddDate(0, 1, 0))
		if !has(ops, Supersede) {
			t.Errorf("%q → %q: want supersede, ops %v, live %q", p[0], p[1], ops, st.live())
		}
		for _, l := range st.live() {
			if l == first[0] {
				t.Errorf("%q → %q: %q still live", p[0], p[1], l)
			}
		}
	}
}

func TestDecideAccumulates(t *testing.T) {
	for _, p := range additions {
		st := &store{}
		st.say(t, p[0], t0)
		ops := st.say(t, p[1], t0.AddDate(0, 1, 0))
		if has(ops, Supersede) {
			t.Errorf("%q → %q: must not supersede (ops %v)", p[0], p[1], ops)
		}
	}
}

func TestDecideReinforcesRepeats(t *testing.T) {
	st := &store{}
	for i, s := range []string{"I live in Lisbon.", "I live in Lisbon", "I'm living in Lisbon now", "I live in Lisbon!"} {
		ops := st.say(t, s, t0.AddDate(0, 0, i))
		if i > 0 && (len(ops) != 1 || ops[0] != Reinforce) {
			t.Errorf("repeat %q: ops %v", s, ops)
		}
	}
	if n := len(st.live()); n != 1 {
		t.Errorf("live %q", st.live())
	}
}

// One pet told of in other words ("a golden retriever named Max", "my dog
// Max") is one pet: the repeat reinforces it.
// TestDecideDatedRestatement: the same value said again with when it
// began replaces the undated memory (its date was lost to a reinforce);
// said again without one, or with a later start, it reinforces.
func TestDecideDatedRestatement(t *testing.T) {
	st := &store{}
	st.say(t, "I live in Lisbon.", t0)
	ops := st.say(t, "I've lived in Lisbon since 2019.", t0.AddDate(0, 1, 0))
	if !has(ops, Supersede) || !has(ops, Insert) {
		t.Errorf("dated restatement: ops %v, want insert and supersede", ops)
	}
	if l := st.live(); len(l) != 1 || !strings.Contains(l[0], "2019") {
		t.Errorf("live %q, want the dated memory alone", l)
	}
	ops = st.say(t, "I live in Lisbon!", t0.AddDate(0, 2, 0))
	if len(ops) != 1 || ops[0] != Reinforce {
		t.Errorf("undated repeat: ops %v, want reinforce", ops)
	}
	if l := st.live(); len(l) != 1 || !strings.Contains(l[0], "2019") {
		t.Errorf("after the repeat: live %q", l)
	}
}

func TestDecideSameNamedPet(t *testing.T) {
	st := &store{}
	st.say(t, "I have a golden retriever named Max.", t0)
	ops := st.say(t, "My dog Max is a golden retriever.", t0.AddDate(0, 1, 0))
	if len(ops) != 1 || ops[0] != Reinforce {
		t.Errorf("ops %v", ops)
	}
	st.say(t, "We also got a cat named Miso.", t0.AddDate(0, 2, 0))
	if n := len(st.live()); n != 2 {
		t.Errorf("live %q", st.live())
	}
}

// A switch stated several times each way leaves one live value.
func TestDecideSwitchBackAndForth(t *testing.T) {
	st := &store{}
	say := []string{"I use Python for everything at work", "I mostly use Python", "I use Python daily",
		"I switched to Rust", "I switched to Rust for all my work projects", "I switched back to Python", "I switched to Rust again"}
	for i, s := range say {
		st.say(t, s, t0.AddDate(0, 0, i))
	}
	live := st.live()
	if len(live) != 1 || live[0] != "The user uses Rust." {
		t.Errorf("live %q", live)
	}
}

// An ended value closes the live one and is history itself: nothing live
// names the old employer.
func TestDecideEndedIsHistory(t *testing.T) {
	st := &store{}
	st.say(t, "I'm a consultant at Deloitte.", t0)
	ops := st.say(t, "I no longer work at Deloitte; I've gone freelance.", t0.AddDate(0, 1, 0))
	if !has(ops, Supersede) {
		t.Fatalf("ops %v", ops)
	}
	for _, l := range st.live() {
		if strings.Contains(l, "Deloitte") {
			t.Errorf("%q live", l)
		}
	}
	var hist int
	for _, m := range st.ms {
		if strings.Contains(m.Text, "Deloitte") && m.ValidTo != nil {
			hist++
		}
	}
	if hist != 2 {
		t.Errorf("%d Deloitte memories in history, want the old value and its end", hist)
	}
}

// An ending that names a value by its first words ends it: "Sold the
// Mazda." ends "Mazda 3"; a value it does not lead stays.
func TestDecideEndedByMake(t *testing.T) {
	st := &store{}
	st.say(t, "I drive a Mazda 3.", t0)
	st.say(t, "Sold the Mazda.", t0.AddDate(0, 1, 0))
	for _, l := range st.live() {
		if strings.Contains(l, "Mazda") {
			t.Errorf("%q live", l)
		}
	}
	st = &store{}
	st.say(t, "I drive a Mazda 3.", t0)
	st.say(t, "I sold the Civic.", t0.AddDate(0, 1, 0))
	if !slices.ContainsFunc(st.live(), func(l string) bool { return strings.Contains(l, "Mazda 3") }) {
		t.Errorf("a Civic sold ended the Mazda: %q", st.live())
	}
}

// A temporary state expires and leaves the lasting fact live.
func TestDecideTemporaryState(t *testing.T) {
	st := &store{}
	st.say(t, "I live in Lyon.", t0)
	st.say(t, "I'm in Tokyo this week for a conference.", t0.AddDate(0, 1, 0))
	var tokyo *memory.Memory
	for _, m := range st.ms {
		if strings.Contains(m.Text, "Tokyo") {
			tokyo = m
		}
	}
	if tokyo == nil || tokyo.ExpiresAt == nil || !tokyo.Live(t0.AddDate(0, 1, 1)) || tokyo.Live(t0.AddDate(0, 1, 8)) {
		t.Fatalf("Tokyo memory %+v: want one that holds this week only", tokyo)
	}
	if live := st.live(); len(live) != 1 || !strings.Contains(live[0], "Lyon") {
		t.Errorf("live %q, want Lyon only", live)
	}
}

// Supersede dates the old value's end by when the new one became true.
func TestDecideSupersedeDate(t *testing.T) {
	st := &store{}
	st.say(t, "I live in Berlin", t0)
	st.say(t, "I moved from Berlin to Lisbon last month.", time.Date(2026, 5, 20, 0, 0, 0, 0, time.UTC))
	old := st.ms[0]
	if old.ValidTo == nil || old.ValidTo.Format("2006-01-02") != "2026-04-01" {
		t.Errorf("valid_to %v", old.ValidTo)
	}
}

func TestDecideFreeText(t *testing.T) {
	note := &memory.Memory{ID: "n1", Text: "The user's dentist is Dr. Okafor.", Key: "user.dentist", Source: memory.SourceExplicit, CreatedAt: t0}
	plain := &memory.Memory{ID: "n2", Text: "Standup is at 9.", Source: memory.SourceExtracted, CreatedAt: t0}
	near := []Neighbour{{note, 0.8}, {plain, 0.7}}
	m := &memory.Memory{ID: "new", Text: "Standup is now at 10.", CreatedAt: t0.AddDate(0, 0, 1)}
	ws := Decide(Candidate{Memory: m, Change: true}, nil, near, pol, m.CreatedAt)
	if len(ws) != 2 || ws[1].Op != Supersede || ws[1].Memory.ID != "n2" {
		t.Errorf("free text with a change cue: %+v", ws)
	}
	// Without a change cue, or against a keyed or explicit memory, a note
	// supersedes nothing.
	ws = Decide(Candidate{Memory: m}, nil, near, pol, m.CreatedAt)
	if len(ws) != 1 || ws[0].Op != Insert {
		t.Errorf("no cue: %+v", ws)
	}
	ws = Decide(Candidate{Memory: m, Change: true}, nil, near[:1], pol, m.CreatedAt)
	if len(ws) != 1 || ws[0].Op != Insert {
		t.Errorf("explicit neighbour: %+v", ws)
	}
	ws = Decide(Candidate{Memory: m}, nil, []Neighbour{{plain, 0.95}}, pol, m.CreatedAt)
	if len(ws) != 1 || ws[0].Op != Reinforce {
		t.Errorf("near duplicate: %+v", ws)
	}
}

func TestDecideOpposites(t *testing.T) {
	st := &store{}
	st.say(t, "I like coffee", t0)
	ms := st.ms
	// The worker hands in the opposite slot too; the test store matches
	// by key, so load both by hand.
	f := facts.Extract("I no longer like coffee, I like tea instead", facts.Options{At: t0})
	var dis *facts.Fact
	for i := range f {
		if f[i].Attribute == "dislikes" {
			dis = &f[i]
		}
	}
	if dis == nil {
		t.Fatalf("no dislikes fact: %+v", f)
	}
	m := &memory.Memory{ID: "d", Text: dis.Text, Key: dis.Key(), CreatedAt: t0.AddDate(0, 0, 1)}
	ws := Decide(Candidate{Memory: m, Fact: dis, Change: true}, ms, nil, pol, m.CreatedAt)
	if !has([]Op{ws[len(ws)-1].Op}, Supersede) {
		t.Errorf("dislikes coffee after likes coffee: %+v", ws)
	}
}

func TestDecideEvent(t *testing.T) {
	ev := &memory.Memory{ID: "e"}
	for _, tc := range []struct {
		t    Turn
		want Op
	}{
		{Turn{Event: ev, OnlyAsks: true}, Drop},
		{Turn{Event: ev, OnlyAsks: true, ReplyInformative: true}, Insert},
		{Turn{Event: ev, OnlyAsks: true, Imported: true}, Insert},
		{Turn{Event: ev, OnlyAsks: true, Stated: 1}, Insert},
		{Turn{Event: ev}, Insert},
	} {
		if w := DecideEvent(tc.t); w.Op != tc.want || (w.Op == Insert && w.Memory != ev) || w.Reason == "" {
			t.Errorf("%+v: %+v, want %s", tc.t, w, tc.want)
		}
	}
}

func TestDecideForget(t *testing.T) {
	fact := func(id, text, attr, value string) *memory.Memory {
		return &memory.Memory{ID: id, Tier: memory.TierSemantic, Text: text,
			Provenance: memory.Provenance{Fact: &memory.Triple{Subject: "user", Attribute: attr, Value: value}}}
	}
	ev := func(id, text string) *memory.Memory {
		return &memory.Memory{ID: id, Tier: memory.TierEvent, Text: text}
	}
	ms := []*memory.Memory{
		fact("home", "The user's home address is 42 Harbour Lane.", "home_address", "42 Harbour Lane"),
		fact("email", "The user's email is jane@example.com.", "email", "jane@example.com"),
		fact("job", "The user works at Initech.", "works_at", "Initech"),
		ev("therapist", "I'm seeing a therapist on Thursdays for my anxiety."),
		ev("swim", "I go swimming on Thursdays."),
		ev("router", "How do I find the IP address of my router?"),
		ev("summary", "The user shared their home address, 42 Harbour Lane, to get directions."),
		ev("zh", "我每周四去看心理医生。"),
		ev("zh-swim", "我每周四去游泳。"),
		ev("parcel", "Could the parcel go to 221B Baker Street? That's my flat.\nAssistant: Sure."),
		ev("reach", "You can reach me on 07700 900123 after five.\nAssistant: Noted."),
		ev("reply-address", "Where should I stay?\nAssistant: Try the hotel at 10 Downing Street."),
	}
	var near []Neighbour
	for _, m := range ms {
		near = append(near, Neighbour{Memory: m})
	}
	for _, tc := range []struct {
		payload string
		want    []string
	}{
		{"my address, I shouldn't have shared it", []string{"home", "summary", "parcel"}},
		{"my phone number", []string{"reach"}},
		{"I said about the therapist, I'd rather you didn't keep that", []string{"therapist"}},
		{"my email", []string{"email"}},
		{"that I work at Initech", []string{"job"}},
		{"我说的看心理医生的事吧", []string{"zh"}},
		{"my dentist", nil},
	} {
		topic := facts.ForgetTopic(tc.payload)
		ws := DecideForget(topic, near, nil, pol, t0)
		if vals := SpecificValues(ws); len(vals) > 0 {
			ws = append(ws, DecideForget(facts.Topic{}, near, vals, Policy{}, t0)...)
		}
		var got []string
		for _, w := range ws {
			if w.Op != Forget || w.Reason == "" {
				t.Errorf("%q: %+v", tc.payload, w)
			}
			if !slicesContains(got, w.Memory.ID) {
				got = append(got, w.Memory.ID)
			}
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q forgets %q, want %q", tc.payload, got, tc.want)
		}
	}
}

func slicesContains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestStaleEvents: the event of a superseded fact's turn that says its
// value is superseded with it; one that does not say it, another turn's,
// or an ended fact's, stays.
func TestStaleEvents(t *testing.T) {
	prov := func(r string) memory.Provenance { return memory.Provenance{RequestIDs: []string{r}} }
	old := &memory.Memory{ID: "f", Key: "user.lives_in", Text: "The user lives in Berlin.", Provenance: prov("r1")}
	old.Provenance.Fact = &memory.Triple{Subject: "user", Attribute: "lives_in", Value: "Berlin"}
	evs := []*memory.Memory{
		{ID: "e1", Tier: memory.TierEvent, Text: "I live in Berlin. The winters are brutal.\nAssistant: Stay warm!", Provenance: prov("r1")},
		{ID: "e2", Tier: memory.TierEvent, Text: "Winter here is brutal.\nAssistant: Berlin winters are.", Provenance: prov("r1")},
		{ID: "e3", Tier: memory.TierEvent, Text: "Berlin has great techno.", Provenance: prov("r2")},
	}
	ws := StaleEvents([]Write{{Op: Supersede, Memory: old, By: "n", At: t0}}, evs, t0)
	if len(ws) != 1 || ws[0].Memory.ID != "e1" || ws[0].Op != Supersede || ws[0].By != "n" || ws[0].Reason == "" {
		t.Fatalf("got %+v, want e1 superseded by n", ws)
	}
	if ws := StaleEvents([]Write{{Op: Reinforce, Memory: old}}, evs, t0); len(ws) != 0 {
		t.Errorf("a reinforce supersedes no event: %+v", ws)
	}
	// Berlin said again with its date: the value holds, its events too.
	dated := &memory.Memory{ID: "n", Key: "user.lives_in", Text: "The user lives in Berlin (since 2019).", Provenance: prov("r3")}
	dated.Provenance.Fact = old.Provenance.Fact
	if ws := StaleEvents([]Write{{Op: Insert, Memory: dated}, {Op: Supersede, Memory: old, By: "n", At: t0}}, evs, t0); len(ws) != 0 {
		t.Errorf("a value dated again supersedes no event: %+v", ws)
	}
}

// TestDecideEndedAlreadyClosed: an ending of a value the slot already
// closed (the same turn's successor did) is history, not a live "no
// longer" fact.
func TestDecideEndedAlreadyClosed(t *testing.T) {
	end := t0.Add(-time.Hour)
	acme := &memory.Memory{ID: "a", Key: "user.works_at", Text: "The user works at Acme.", ValidTo: &end, SupersededBy: "g"}
	acme.Provenance.Fact = &memory.Triple{Subject: "user", Attribute: "works_at", Value: "Acme"}
	f := &facts.Fact{Triple: memory.Triple{Subject: "user", Attribute: "works_at", Value: "Acme", Ended: true}, Text: "The user no longer works at Acme."}
	m := &memory.Memory{ID: "n", Key: "user.works_at", Text: f.Text}
	ws := Decide(Candidate{Memory: m, Fact: f}, []*memory.Memory{acme}, nil, pol, t0)
	if len(ws) != 1 || ws[0].Op != Insert || ws[0].Memory.ValidTo == nil {
		t.Fatalf("got %+v, want one insert with valid_to set", ws)
	}
}

// TestDecideSwitchStatedAgain: a switch to a value the slot already holds
// reinforces it and still replaces the others ("I only play piano now"
// after "I play guitar and piano").
func TestDecideSwitchStatedAgain(t *testing.T) {
	mk := func(id, v string) *memory.Memory {
		m := &memory.Memory{ID: id, Key: "user.plays", Text: "The user plays " + v + " as a hobby."}
		m.Provenance.Fact = &memory.Triple{Subject: "user", Attribute: "plays", Value: v, Multi: true}
		return m
	}
	guitar, piano := mk("g", "guitar"), mk("p", "piano")
	f := &facts.Fact{Triple: memory.Triple{Subject: "user", Attribute: "plays", Value: "piano", Multi: true}, Replace: true, Text: piano.Text}
	m := &memory.Memory{ID: "n", Key: "user.plays", Text: piano.Text}
	ws := Decide(Candidate{Memory: m, Fact: f}, []*memory.Memory{guitar, piano}, []Neighbour{{Memory: piano, Score: 1}}, pol, t0)
	if len(ws) != 2 || ws[0].Op != Reinforce || ws[0].Memory.ID != "p" || ws[1].Op != Supersede || ws[1].Memory.ID != "g" || ws[1].By != "p" {
		t.Fatalf("got %+v, want piano reinforced and guitar superseded by it", ws)
	}
	f.Replace = false
	if ws := Decide(Candidate{Memory: m, Fact: f}, []*memory.Memory{guitar, piano}, nil, pol, t0); len(ws) != 1 || ws[0].Op != Reinforce {
		t.Errorf("without a switch only the reinforce: %+v", ws)
	}
}

// TestKeptBeside: a forgotten turn's fact of another slot that holds none
// of the forgotten values stays; its event, its notes, the forgotten
// slot and a fact naming a forgotten value go.
func TestKeptBeside(t *testing.T) {
	fact := func(key, text, attr, value string) *memory.Memory {
		m := &memory.Memory{Key: key, Tier: memory.TierSemantic, Text: text}
		m.Provenance.Fact = &memory.Triple{Subject: "user", Attribute: attr, Value: value}
		return m
	}
	addr := fact("user.address", "The user's address is 14 Baker Street.", "address", "14 Baker Street")
	forgotten := []*memory.Memory{addr}
	for _, tc := range []struct {
		m    *memory.Memory
		kept bool
	}{
		{fact("user.works_at", "The user works at Acme.", "works_at", "Acme"), true},
		{fact("user.address", "The user's address is 2 Elm Road.", "address", "2 Elm Road"), false},
		{fact("user.delivery", "The user's parcels go to 14 Baker Street.", "delivery", "14 Baker Street"), false},
		{&memory.Memory{Tier: memory.TierEvent, Text: "I live at 14 Baker Street and I work at Acme.\nAssistant: Noted."}, false},
	} {
		if got := KeptBeside(tc.m, forgotten); got != tc.kept {
			t.Errorf("%q: kept %v, want %v", tc.m.Text, got, tc.kept)
		}
	}
	// "Forget that I speak Russian" keeps the other languages said with it.
	russian := []*memory.Memory{fact("user.speaks", "The user speaks Russian.", "speaks", "Russian")}
	if !KeptBeside(fact("user.speaks", "The user speaks English.", "speaks", "English"), russian) {
		t.Error("a multi-valued slot's other value was not kept")
	}
	if KeptBeside(fact("user.speaks", "The user speaks Russian.", "speaks", "Russian"), russian) {
		t.Error("the forgotten value was kept")
	}
}

// TestDecideDescribedValue: a workplace said without its name ("a
// hospital") replaces the named one when said as a change, and is the
// named one in other words when not; with nothing named before, it is
// the fact.
func TestDecideDescribedValue(t *testing.T) {
	for _, change := range []string{"I work at a hospital now.", "I'm working at a bank these days.",
		"I moved to Lisbon last month, I work at a hospital there now.", "I started a new job at a law firm."} {
		st := &store{}
		st.say(t, "I work at Siemens.", t0)
		ops := st.say(t, change, t0.AddDate(0, 1, 0))
		if !has(ops, Supersede) || slices.Contains(st.live(), "The user works at Siemens.") {
			t.Errorf("%q after Siemens: ops %v, live %q", change, ops, st.live())
		}
	}
	st := &store{}
	st.say(t, "I work at Siemens.", t0)
	if ops := st.say(t, "I work at a big company, so meetings run long.", t0.AddDate(0, 1, 0)); !slices.Equal(ops, []Op{Reinforce}) {
		t.Errorf("a description of Siemens: ops %v, live %q", ops, st.live())
	}
	if live := st.live(); !slices.Equal(live, []string{"The user works at Siemens."}) {
		t.Errorf("live %q, want Siemens alone", live)
	}
	st = &store{}
	st.say(t, "I work for a small startup.", t0)
	if live := st.live(); !slices.Equal(live, []string{"The user works at a small startup."}) {
		t.Errorf("live %q, want the described workplace", live)
	}
}

// TestDecideNamedFriendsApart: what one named friend (colleague, cousin)
// does never supersedes what another did: their facts are keyed by name.
func TestDecideNamedFriendsApart(t *testing.T) {
	for _, p := range [][2]string{
		{"My best friend Omar just moved to Dubai.", "My friend Lena lives in Berlin."},
		{"My colleague Priya works at Google.", "My colleague Ben works at Meta."},
		{"My cousin Marta is a nurse.", "My cousin Jon is a pilot."},
	} {
		st := &store{}
		st.say(t, p[0], t0)
		first := st.live()
		ops := st.say(t, p[1], t0.AddDate(0, 1, 0))
		if has(ops, Supersede) {
			t.Errorf("%q then %q: ops %v, live %q", p[0], p[1], ops, st.live())
		}
		for _, f := range first {
			if !slices.Contains(st.live(), f) {
				t.Errorf("%q then %q: %q no longer live", p[0], p[1], f)
			}
		}
	}
	st := &store{}
	st.say(t, "My friend Omar lives in Dubai.", t0)
	if ops := st.say(t, "My friend Omar moved to Doha.", t0.AddDate(0, 1, 0)); !has(ops, Supersede) {
		t.Errorf("Omar's own move: ops %v, live %q", ops, st.live())
	}
}

// TestDecideDescribedHome: a home said by its kind ("a small village near
// Oxford") replaces a named home when said as a move, and is the named
// one in other words when not.
func TestDecideDescribedHome(t *testing.T) {
	for _, move := range []string{"We moved to a small village near Oxford last month.",
		"We relocated to a farmhouse outside Lyon.", "I moved to the suburbs of Chicago.",
		"I live in a small town in Ohio now."} {
		st := &store{}
		st.say(t, "I live in Berlin.", t0)
		ops := st.say(t, move, t0.AddDate(0, 1, 0))
		if !has(ops, Supersede) || slices.Contains(st.live(), "The user lives in Berlin.") {
			t.Errorf("%q after Berlin: ops %v, live %q", move, ops, st.live())
		}
	}
	st := &store{}
	st.say(t, "I live in Oxford.", t0)
	if ops := st.say(t, "I live in a small village near Oxford, so the commute is long.", t0.AddDate(0, 1, 0)); !slices.Equal(ops, []Op{Reinforce}) {
		t.Errorf("a description of Oxford: ops %v, live %q", ops, st.live())
	}
	st = &store{}
	st.say(t, "I live in Berlin.", t0)
	if ops := st.say(t, "I moved to a new apartment last week.", t0.AddDate(0, 1, 0)); has(ops, Supersede) {
		t.Errorf("a new flat in the same city: ops %v, live %q", ops, st.live())
	}
	st = &store{}
	st.say(t, "I live in a small village near Oxford.", t0)
	if live := st.live(); !slices.Equal(live, []string{"The user lives in a small village near Oxford."}) {
		t.Errorf("live %q, want the described village", live)
	}
}

// TestDecideCorrectedOpenValue: an open attribute corrected in the same
// sentence ("on Wednesdays, not Mondays") replaces the value it names,
// however far apart their vectors are, so the correction that follows
// finds nothing left to correct and no second copy is written.
func TestDecideCorrectedOpenValue(t *testing.T) {
	old := &memory.Memory{ID: "old", Tier: memory.TierSemantic, Text: "The user's gym class is on Mondays.", Key: "user.gym_class",
		CreatedAt: t0, ValidFrom: t0, Embedding: []float32{1, 0}}
	old.Provenance.Fact = &memory.Triple{Subject: "user", Attribute: "gym_class", Value: "on Mondays"}
	fs := facts.Extract("Actually my gym class is on Wednesdays, not Mondays.", facts.Options{At: t0})
	if len(fs) != 1 {
		t.Fatalf("facts %+v", fs)
	}
	f := fs[0]
	m := &memory.Memory{ID: "new", Tier: memory.TierSemantic, Text: f.Text, Key: f.Key(), CreatedAt: t0, ValidFrom: t0, Embedding: []float32{0, 1}}
	tr := f.Triple
	m.Provenance.Fact = &tr
	ws := Decide(Candidate{Memory: m, Fact: &f, Change: f.Change}, []*memory.Memory{old}, nil, pol, t0)
	if !slices.ContainsFunc(ws, func(w Write) bool { return w.Op == Supersede && w.Memory == old }) {
		t.Errorf("writes %+v: Mondays stays live", ws)
	}
}

// TestDecideEndedByHead: a job ended by its head noun ("I'm no longer a
// developer") ends the live job it heads ("software developer").
func TestDecideEndedByHead(t *testing.T) {
	st := &store{}
	st.say(t, "I'm a software developer.", t0)
	st.say(t, "I'm no longer a developer, I've switched to product management.", t0.AddDate(0, 1, 0))
	live := st.live()
	if slices.Contains(live, "The user works as a software developer.") || !slices.Contains(live, "The user works in product management.") {
		t.Errorf("live %q", live)
	}
}

// TestDecideBarePet: a pet said only by its kind ("we have a dog") beside
// a live pet of that kind is that pet; a pet got or adopted is another.
func TestDecideBarePet(t *testing.T) {
	st := &store{}
	st.say(t, "I have a border collie named Pepper.", t0)
	ops := st.say(t, "I'm allergic to cats, which is why we have a dog.", t0.AddDate(0, 1, 0))
	if slices.Contains(st.live(), "The user has a pet dog.") || !has(ops, Reinforce) {
		t.Errorf("the dog said by its kind: ops %v, live %q", ops, st.live())
	}
	if ops := st.say(t, "We got a new puppy.", t0.AddDate(0, 2, 0)); !has(ops, Insert) {
		t.Errorf("a new puppy: ops %v, live %q", ops, st.live())
	}
}
