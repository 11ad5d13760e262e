package luatest

import "github.com/luatool/luatool/engine"

// contentValue is a result's content as a test reads it (t:call's content): a list
// of blocks in MCP's shape, as a client gets them ({type = "audio", data =,
// mimeType =}, {type = "resource", resource = {uri =, text =}}, ...), whatever shape
// the tool wrote them in.
func contentValue(c engine.Content) []any {
	out := make([]any, 0, len(c))
	for _, b := range c {
		m := map[string]any{"type": b.Type}
		switch b.Type {
		case "text":
			m["text"] = b.Text
		case "image", "audio":
			m["data"], m["mimeType"] = b.Source["data"], b.Source["media_type"]
		case "resource":
			if r := b.Resource; r != nil {
				res := map[string]any{"uri": r.URI}
				set(res, "mimeType", r.MIMEType)
				if r.Blob != "" {
					res["blob"] = r.Blob
				} else {
					res["text"] = r.Text
				}
				m["resource"] = res
			}
		case "resource_link":
			if l := b.Link; l != nil {
				m["uri"], m["name"] = l.URI, l.Name
				set(m, "title", l.Title)
				set(m, "description", l.Description)
				set(m, "mimeType", l.MIMEType)
				if l.Size != nil {
					m["size"] = float64(*l.Size)
				}
			}
		}
		if a := b.Annotations; a != nil {
			ann := map[string]any{}
			if len(a.Audience) > 0 {
				aud := make([]any, len(a.Audience))
				for i, r := range a.Audience {
					aud[i] = r
				}
				ann["audience"] = aud
			}
			if a.Priority != nil {
				ann["priority"] = *a.Priority
			}
			set(ann, "lastModified", a.LastModified)
			m["annotations"] = ann
		}
		out = append(out, m)
	}
	return out
}

// set sets m[k] to a string that is not empty.
func set(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}
