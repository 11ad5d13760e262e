package apischema

import "github.com/luatool/luatool/engine"

// A Refusal is what a model API refuses of one tool's definition, found before a
// request is sent: luatool check, watch and serve report each as a warning.
type Refusal struct {
	// API names the model API that refuses: "Anthropic", "Gemini".
	API string
	// Member is the member of the Tool contract refused: "inputSchema" or "name".
	Member string
	// Err says what is refused, naming the API, and what to change.
	Err error
}

// Refusals returns what the model APIs refuse of a tool of this name and input
// schema, by the rules Export applies to a whole set: an input schema with anyOf,
// oneOf or allOf at its root (the Anthropic Messages API), a name not starting with
// a letter or an underscore (Gemini). A name no API takes at all (engine.APIName)
// is the engine's own warning, and is not repeated here.
func Refusals(name string, inputSchema map[string]any) []Refusal {
	var out []Refusal
	if inputSchema != nil {
		if err := anthropicRoot(inputSchema); err != nil {
			out = append(out, Refusal{API: "Anthropic", Member: "inputSchema", Err: err})
		}
	}
	if api, err := engine.APIName(name); err == nil {
		if err := geminiName(name, api); err != nil {
			out = append(out, Refusal{API: "Gemini", Member: "name", Err: err})
		}
	}
	return out
}
