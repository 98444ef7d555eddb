package proxy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/inject"
)

// messagesWire is the Anthropic Messages API adapter (/v1/messages). The
// section is a text block at the end of "system" (after its last
// cache_control breakpoint, so the cached prefix stays), or a text block
// before the user's own blocks in the last user message.
type messagesWire struct{}

func (messagesWire) api() string { return APIMessages }

func (messagesWire) parse(body []byte) (*convo, error) {
	root, base, err := parseRoot(body)
	if err != nil {
		return nil, err
	}
	cv := &convo{raw: body}
	sys, msgs := span{-1, -1}, span{-1, -1}
	var sysV, msgsV gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "model":
			err = stringField(v, &cv.Model, "model")
		case "stream":
			err = boolField(v, &cv.Stream, "stream")
		case "metadata":
			if u := member(v, "user_id"); u.Exists() {
				err = stringField(u, &cv.User, "metadata.user_id")
			}
		case "system":
			sys, sysV = spanOf(base, v), v
		case "messages":
			msgs, msgsV = spanOf(base, v), v
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if sys.ok() {
		if sysV.Type != gjson.String && sysV.Type != gjson.Null && !sysV.IsArray() {
			return nil, badRequest("system", "invalid_type", "system: expected a string or an array of text blocks")
		}
		if t := partsText(sysV, "text"); t != "" {
			cv.Messages = append(cv.Messages, Message{Role: "system", Text: t, Raw: body[sys.start:sys.end:sys.end]})
		}
	}
	if !msgs.ok() {
		return nil, badRequest("messages", "missing_required_parameter", "messages: field required")
	}
	if !msgsV.IsArray() {
		return nil, badRequest("messages", "invalid_type", "messages: expected an array of message objects")
	}
	// lastUser is the content value of the last message of the user's
	// own words (not one carrying only tool results).
	lastUser := span{-1, -1}
	var lastUserV gjson.Result
	i := 0
	msgsV.ForEach(func(_, m gjson.Result) bool {
		param := "messages." + strconv.Itoa(i)
		i++
		if !m.IsObject() {
			err = badRequest(param, "invalid_type", param+": expected an object")
			return false
		}
		role, c := members2(m, "role", "content")
		if role.Type != gjson.String {
			err = badRequest(param+".role", "invalid_type", param+".role: expected 'user' or 'assistant'")
			return false
		}
		msg := Message{Role: strings.Clone(role.Str), Text: partsText(c, "text"),
			Raw: body[base+m.Index : base+m.Index+len(m.Raw) : base+m.Index+len(m.Raw)]}
		var tools, texts int
		c.ForEach(func(_, b gjson.Result) bool {
			typ, cc := members2(b, "type", "cache_control")
			switch typ.Str {
			case "tool_use", "tool_result", "server_tool_use", "web_search_tool_result", "mcp_tool_use", "mcp_tool_result":
				tools++
			case "text":
				texts++
			}
			if cc.Exists() {
				cv.Breakpoints++
			}
			return true
		})
		msg.Tool = tools > 0
		if msg.Role == "user" && tools > 0 && texts == 0 {
			msg.Role = "tool"
		}
		if msg.Role == "user" && c.Exists() {
			lastUser, lastUserV = spanOf(base, c), c
		}
		cv.Messages = append(cv.Messages, msg)
		return true
	})
	if err != nil {
		return nil, err
	}
	cv.place = func(section, placement string) ([]byte, error) {
		switch placement {
		case inject.PlacementSystem:
		case inject.PlacementBeforeLastUser:
			switch {
			case lastUser.ok() && lastUserV.Type == gjson.String:
				// A string content becomes blocks only now that it must.
				user := append(append([]byte(`{"type":"text","text":`), body[lastUser.start:lastUser.end]...), '}')
				return splice(body, lastUser, []byte("["), textBlock("text", section), []byte(","), user, []byte("]")), nil
			case lastUser.ok() && lastUserV.IsArray():
				// Ahead of the user's own blocks, but after the tool
				// results the message opens with: Anthropic refuses a
				// user message whose tool_result blocks do not come first
				// (400), so a section before them broke the tool round.
				at, results, n := lastUser.start+1, 0, 0 // just after "["
				lastUserV.ForEach(func(_, b gjson.Result) bool {
					n++
					if member(b, "type").Str != "tool_result" {
						return false
					}
					at, results = spanOf(base, b).end, results+1
					return true
				})
				switch {
				case n == 0:
					return splice(body, span{at, at}, textBlock("text", section)), nil
				case results == 0:
					return splice(body, span{at, at}, textBlock("text", section), []byte(",")), nil
				}
				return splice(body, span{at, at}, []byte(","), textBlock("text", section)), nil
			}
		default:
			return nil, fmt.Errorf("%w %q", inject.ErrPlacement, placement)
		}
		switch {
		case !sys.ok() || sysV.Type == gjson.Null:
			if !sys.ok() {
				return addMember(body, "system", inject.JSONString(section)), nil
			}
			return splice(body, sys, inject.JSONString(section)), nil
		case sysV.Type == gjson.String:
			return splice(body, sys, appendText(sysV.Str, section)), nil
		}
		// Blocks: a new last block, after every cache_control breakpoint.
		end := sys.end - 1
		for end > sys.start && body[end] != ']' {
			end--
		}
		var sep []byte
		if len(sysV.Array()) > 0 {
			sep = []byte(",")
		}
		return splice(body, span{end, end}, sep, textBlock("text", section)), nil
	}
	return cv, nil
}

func (messagesWire) bodyReply(body []byte) reply {
	if !validJSON(body) {
		return reply{}
	}
	m := gjson.ParseBytes(body)
	if m.Get("type").Str != "message" {
		return reply{}
	}
	rep := reply{ID: m.Get("id").Str, Model: m.Get("model").Str, Finish: m.Get("stop_reason").Str, OK: true}
	var texts []string
	var calls []toolCall
	m.Get("content").ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").Str {
		case "text":
			texts = append(texts, b.Get("text").Str)
		case "tool_use":
			calls = append(calls, toolCall{ID: b.Get("id").Str, Name: b.Get("name").Str, Arguments: b.Get("input").Raw})
		}
		return true
	})
	rep.Text = strings.Join(texts, "")
	if rep.Text == "" && len(calls) > 0 {
		rep.Text = summariseCalls(calls)
	}
	return rep
}

func (messagesWire) stream() streamReply { return &messagesStream{} }

// messagesStream rebuilds a streamed Anthropic message: text_delta and
// input_json_delta per content block, the stop reason of message_delta;
// message_stop ends it, an error event fails it.
type messagesStream struct {
	id, model, stop string
	blocks          map[int]*msgBlock
	stopped, failed bool
	done            bool
}

type msgBlock struct {
	typ, name string
	text      strings.Builder
}

func (s *messagesStream) block(i int) *msgBlock {
	if s.blocks == nil {
		s.blocks = map[int]*msgBlock{}
	}
	b := s.blocks[i]
	if b == nil {
		b = &msgBlock{typ: "text"}
		s.blocks[i] = b
	}
	return b
}

func (s *messagesStream) Add(data []byte) {
	ev, ok := jsonData(data)
	if !ok {
		return
	}
	s.done = false
	switch ev.Get("type").Str {
	case "message_start":
		s.id, s.model = ev.Get("message.id").Str, ev.Get("message.model").Str
	case "content_block_start":
		b := s.block(int(ev.Get("index").Int()))
		cb := ev.Get("content_block")
		b.typ, b.name = cb.Get("type").Str, cb.Get("name").Str
		if t := cb.Get("text"); t.Type == gjson.String {
			b.text.WriteString(t.Str)
		}
	case "content_block_delta":
		b := s.block(int(ev.Get("index").Int()))
		d := ev.Get("delta")
		switch d.Get("type").Str {
		case "text_delta":
			b.text.WriteString(d.Get("text").Str)
		case "input_json_delta":
			b.text.WriteString(d.Get("partial_json").Str)
		}
	case "message_delta":
		if r := ev.Get("delta.stop_reason"); r.Type == gjson.String {
			s.stop = r.Str
		}
	case "message_stop":
		s.stopped, s.done = true, true
	case "error":
		s.failed, s.done = true, true
	}
}

func (s *messagesStream) Done() bool { return s.done }

func (s *messagesStream) Reply() reply {
	rep := reply{ID: s.id, Model: s.model, Finish: s.stop, OK: s.stopped && !s.failed}
	var text strings.Builder
	var calls []toolCall
	for _, i := range sortedKeys(s.blocks) {
		b := s.blocks[i]
		switch b.typ {
		case "text":
			text.WriteString(b.text.String())
		case "tool_use":
			calls = append(calls, toolCall{Name: b.name, Arguments: b.text.String()})
		}
	}
	rep.Text = text.String()
	if rep.Text == "" && len(calls) > 0 {
		rep.Text = summariseCalls(calls)
	}
	return rep
}
