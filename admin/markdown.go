package admin

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// markdown renders an export as one Obsidian-friendly note: YAML front
// matter, then the live memories grouped by tier, then the superseded and
// archived ones as history. The turn log is left out: it is raw chat, and
// the JSON export carries it.
func (a *API) markdown(ex *Export) string {
	var b strings.Builder
	at := ex.ExportedAt
	counts := map[memory.Tier]int{}
	for _, m := range ex.Memories {
		counts[m.Tier]++
	}
	b.WriteString("---\n")
	fmt.Fprintf(&b, "title: %s\n", yamlString("Memories of "+ex.User))
	fmt.Fprintf(&b, "user: %s\n", yamlString(ex.User))
	if ex.Namespace != "" {
		fmt.Fprintf(&b, "namespace: %s\n", yamlString(ex.Namespace))
	}
	fmt.Fprintf(&b, "exported: %s\n", at.Format(time.RFC3339))
	fmt.Fprintf(&b, "memories: %d\n", len(ex.Memories))
	fmt.Fprintf(&b, "turns: %d\n", len(ex.Turns))
	b.WriteString("tags:\n  - memproxy\n  - memory-export\n")
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# Memories of %s\n", mdText(ex.User))

	var history []*memory.Memory
	for _, tier := range memory.Tiers {
		var live []*memory.Memory
		for _, m := range ex.Memories {
			if m.Tier != tier {
				continue
			}
			if stateOf(m, at) == memory.StateLive {
				live = append(live, m)
			} else {
				history = append(history, m)
			}
		}
		fmt.Fprintf(&b, "\n## %s\n\n", tierTitle(tier))
		if len(live) == 0 {
			b.WriteString("_None._\n")
			continue
		}
		for _, m := range live {
			a.mdItem(&b, m, at)
		}
	}
	if len(history) > 0 {
		b.WriteString("\n## History\n\nSuperseded, archived and expired memories, kept for reference.\n\n")
		for _, m := range history {
			a.mdItem(&b, m, at)
		}
	}
	return b.String()
}

func (a *API) mdItem(b *strings.Builder, m *memory.Memory, at time.Time) {
	fmt.Fprintf(b, "- %s ^m-%s\n", mdText(m.Text), m.ID)
	meta := []string{
		"created " + m.CreatedAt.Format("2006-01-02"),
		"source " + string(m.Source),
		"value " + strconv.FormatFloat(m.Value, 'f', 2, 64),
		"retention " + strconv.FormatFloat(a.retention(m, at), 'f', 2, 64),
	}
	if m.Scope.Namespace != memory.DefaultNamespace {
		meta = append(meta, "namespace "+m.Scope.Namespace)
	}
	if m.Key != "" {
		meta = append(meta, "key `"+strings.ReplaceAll(m.Key, "`", "'")+"`")
	}
	if st := stateOf(m, at); st != memory.StateLive {
		meta = append(meta, string(st))
	}
	if m.SupersededBy != "" {
		meta = append(meta, "superseded by [[#^m-"+m.SupersededBy+"]]")
	}
	fmt.Fprintf(b, "  - %s\n", strings.Join(meta, " · "))
}

func tierTitle(t memory.Tier) string {
	switch t {
	case memory.TierProfile:
		return "Profile"
	case memory.TierSemantic:
		return "Facts"
	case memory.TierEpisodic:
		return "Episodes"
	case memory.TierEvent:
		return "Events"
	}
	return string(t)
}

// mdText keeps a memory on one list line and stops it from opening
// Markdown structure (headings, front matter, links to other notes).
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer("[[", `\[\[`, "]]", `\]\]`, "<", "&lt;", ">", "&gt;")
	s = r.Replace(s)
	if strings.HasPrefix(s, "#") || strings.HasPrefix(s, "---") {
		s = `\` + s
	}
	return s
}

// yamlString quotes s as a YAML double-quoted scalar.
func yamlString(s string) string {
	return strconv.Quote(s)
}
