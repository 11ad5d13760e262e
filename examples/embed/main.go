// Command embed is a Go host of luatool; "embed serve" serves its tools over MCP on stdio.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/luatool/luatool"
)

type person struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

func main() {
	ctx := context.Background()
	rt, err := luatool.New(luatool.Options{Roots: []string{"."}, ToolDirs: []string{"tools"}, // beside the standard tools
		Ask: func(_ context.Context, req luatool.PermissionRequest) luatool.Answer {
			log.Println("allowed:", req.Description) // a host with a user asks it here
			return luatool.Allow
		}})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close()
	luatool.AddTool(rt, luatool.Tool[person, string]{Name: "Greet", Prompt: "Greets someone.", // not ReadOnly: it asks
		Call: func(_ context.Context, p person, _ *luatool.CallContext) (string, error) {
			return "Hello, " + p.Name, nil
		}})
	go rt.Watch(ctx) // tools/ reloads as its files change
	if len(os.Args) < 2 || os.Args[1] != "serve" {
		for _, c := range [][2]string{{"Glob", `{"pattern": "*.txt"}`}, {"Count", `{"file_path": "notes.txt"}`}, {"Greet", `{"name": "Ada"}`}} {
			fmt.Println(c[0]+":", rt.Call(ctx, c[0], c[1]).Block.Content)
		}
	} else if err := rt.ServeStdio(ctx); err != nil {
		log.Fatal(err)
	}
}
