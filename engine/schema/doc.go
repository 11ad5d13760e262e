// Package schema is how luatool checks JSON against the JSON Schemas of tools: a
// tool's inputSchema (CompileObject: its root is an object schema) and outputSchema
// (Compile: any schema), compiled once when the tool loads and safe for concurrent
// use.
//
// Prepare makes a model's input ready for a call as the original's schema parse
// does: numeric and boolean strings are coerced where the schema asks for a number,
// an integer or a boolean, absent properties with a default get it, and the result
// is validated. Its problems are a ValidationError worded as the original words
// them ("The required parameter `x` is missing"), one a line, in its order; a tool's
// data is checked with DataProblems, by location in the data. Flat object schemas of
// typed scalars take a fast path that never disagrees with the validator (fast.go).
//
// A schema can reach nothing outside itself: a $ref to a file or a URL is a compile
// error, and only the drafts' metaschemas are known. Lint finds what compiles but is
// most likely a mistake, such as a misspelled keyword that JSON Schema ignores.
package schema
