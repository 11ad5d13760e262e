package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/luatool/luatool/engine/client"
)

// noModel says why luatool call and run cannot sample.
const noModel = "luatool call and run have no model to sample (a Go host gives its own as engine.Options.Client; under luatool serve the client's model is asked)"

// terminalClient is the client of luatool call and run (engine.Options.Client):
// the person at the terminal answers a tool's forms (ctx:elicit), one property at
// a time; without a terminal (stdin piped, or --no-prompt) every form is declined,
// as a user who is not there would. There is no model to sample. Log messages are
// in the call's log, which the command prints: the client drops them.
type terminalClient struct {
	in  func() *bufio.Reader // nil: no terminal
	out io.Writer
	// mu is held while a form is on the terminal: one at a time, shared with the
	// permission prompt, when a turn runs calls side by side.
	mu *sync.Mutex
	// pause stops the progress display while the person types.
	pause func() (resume func())
}

func (c *terminalClient) Log(context.Context, client.LogMessage) {}

func (c *terminalClient) Sample(context.Context, *client.SamplingRequest) (*client.SamplingResult, error) {
	return nil, client.Unavailable(noModel)
}

// errCancelled is the end of the terminal's input (Ctrl-D) in a form.
var errCancelled = errors.New("cancelled")

func (c *terminalClient) Elicit(_ context.Context, r *client.ElicitRequest) (*client.ElicitResult, error) {
	if c.in == nil {
		return &client.ElicitResult{Action: "decline"}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.pause()()
	in := c.in()
	fmt.Fprintf(c.out, "%s\n", terminalText(r.Message))
	if r.URLMode() {
		fmt.Fprintf(c.out, "  Open %s\n  Press Enter when done (Ctrl-D cancels)\n> ", printable(r.URL))
		if _, err := in.ReadString('\n'); err != nil {
			return &client.ElicitResult{Action: "cancel"}, nil
		}
		return &client.ElicitResult{Action: "accept"}, nil
	}
	fmt.Fprintf(c.out, "  (Enter takes the default in brackets; Ctrl-D cancels)\n")
	content := map[string]any{}
	for _, name := range formOrder(r.RequestedSchema) {
		v, ok, err := c.askField(in, r.RequestedSchema, name)
		if err != nil {
			fmt.Fprintln(c.out)
			return &client.ElicitResult{Action: "cancel"}, nil
		}
		if ok {
			content[name] = v
		}
	}
	return &client.ElicitResult{Action: "accept", Content: content}, nil
}

// formOrder is the order the properties are asked in: the required ones first,
// each group by name (a Lua table keeps no order).
func formOrder(schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	isRequired := func(n string) bool { return slices.Contains(required, any(n)) }
	sort.Slice(names, func(i, j int) bool {
		if isRequired(names[i]) != isRequired(names[j]) {
			return isRequired(names[i])
		}
		return names[i] < names[j]
	})
	return names
}

// askField asks one property until its answer is valid: the value and true, or
// false when left empty where the form allows it (the default, if any, is the
// form's to fill in).
func (c *terminalClient) askField(in *bufio.Reader, schema map[string]any, name string) (any, bool, error) {
	p := schema["properties"].(map[string]any)[name].(map[string]any)
	required, _ := schema["required"].([]any)
	label := name
	if t, ok := p["title"].(string); ok {
		label = t
	}
	if d, ok := p["description"].(string); ok {
		label += " (" + d + ")"
	}
	choices, titles := fieldChoices(p)
	for {
		fmt.Fprintf(c.out, "%s", printable(label))
		for i := range choices {
			fmt.Fprintf(c.out, "\n  [%d] %s", i+1, printable(titles[i]))
		}
		switch {
		case p["type"] == "array":
			fmt.Fprint(c.out, "\n  (numbers or values, separated by commas)")
		case p["type"] == "boolean":
			fmt.Fprint(c.out, " (y/n)")
		}
		if d, ok := p["default"]; ok {
			fmt.Fprintf(c.out, " [%s]", printable(fmt.Sprint(d)))
		}
		fmt.Fprint(c.out, "\n> ")
		line, err := in.ReadString('\n')
		if err != nil {
			return nil, false, errCancelled
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if _, hasDefault := p["default"]; hasDefault || !slices.Contains(required, any(name)) {
				return nil, false, nil
			}
			fmt.Fprintln(c.out, "  an answer is required")
			continue
		}
		v, err := parseField(p, line, choices)
		if err == nil {
			err = client.CheckField(schema, name, v)
		}
		if err != nil {
			fmt.Fprintf(c.out, "  %s\n", printable(err.Error()))
			continue
		}
		return v, true, nil
	}
}

// fieldChoices returns the values a choice allows and how each is shown.
func fieldChoices(p map[string]any) (values, titles []string) {
	from := p
	if items, ok := p["items"].(map[string]any); ok {
		from = items
	}
	names, _ := from["enumNames"].([]any)
	if enum, ok := from["enum"].([]any); ok {
		for i, e := range enum {
			values = append(values, e.(string))
			if i < len(names) {
				titles = append(titles, fmt.Sprintf("%s (%s)", names[i], e))
			} else {
				titles = append(titles, e.(string))
			}
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		list, _ := from[k].([]any)
		for _, e := range list {
			m := e.(map[string]any)
			values = append(values, m["const"].(string))
			titles = append(titles, fmt.Sprintf("%s (%s)", m["title"], m["const"]))
		}
	}
	return values, titles
}

// parseField reads a typed value from what the person typed; a choice may be
// given by its number.
func parseField(p map[string]any, line string, choices []string) (any, error) {
	pick := func(s string) string {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(choices) {
			return choices[n-1]
		}
		return s
	}
	switch p["type"] {
	case "number", "integer":
		n, err := strconv.ParseFloat(line, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", line)
		}
		return n, nil
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, nil
		case "n", "no", "false":
			return false, nil
		}
		return nil, fmt.Errorf("answer y or n")
	case "array":
		var out []any
		for _, part := range strings.Split(line, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, pick(part))
			}
		}
		return out, nil
	}
	if len(choices) > 0 {
		return pick(line), nil
	}
	return line, nil
}
