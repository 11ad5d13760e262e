// Package env holds the values a host hands its tools explicitly (a Set, the
// engine's Options.Env), and keeps the secrets among them out of what the engine
// hands on (a Redactor). Tools never see the process's environment: a Lua tool reads
// its values with env.get, and only those given to it (Var.Tools). A secret is
// readable by a tool's call only, and replaced with [redacted:NAME] in results, logs,
// progress, errors, renderings, prompts and the messages of permission asks.
package env
