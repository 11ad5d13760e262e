package feature

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/yosida95/uritemplate/v3"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/diag"
	"github.com/luatool/luatool/internal/spell"
)

// A ResourceDef is a resource as a loader reads it from a file: what MCP calls a
// resource, content a client reads by URI (Claude Code: an @-mention). It has either
// a URI, for one resource, or a URITemplate (RFC 6570, "notes://{name}"), for every
// URI the template matches. NewResource makes it a Resource.
type ResourceDef struct {
	// URI is the resource's absolute URI ("docs://readme"); or
	URI string
	// URITemplate is the template of the URIs it serves.
	URITemplate string
	// Name names the resource for people; Description says what it holds; MIMEType
	// is the type of its content, when every read has the same.
	Name, Description, MIMEType string
	// Read returns the content at uri, one the definition serves; params are the
	// template's variables as uri fills them in (nil for a plain URI); cc is as for
	// PromptDef.Get.
	Read func(ctx context.Context, uri string, params map[string]string, cc *engine.CallContext) (ResourceContents, error)
	// Complete says, for a template, how to complete the values of its variables
	// (CompleteResource), by variable name; variables it leaves out offer nothing.
	Complete map[string]*Completion
	// Source says where the resource was defined: the file, for a loaded one.
	Source string
}

// ResourceContents is what a read of a resource returns: Text, or Blob for binary
// content, with its MIME type (the resource's MIMEType when the read gives none).
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
}

// ErrUnknownResource is the error ReadResource wraps for a URI that no resource
// serves.
var ErrUnknownResource = errors.New("no such resource")

// A Resource is a resource definition as the engine serves it: the engine.Feature of
// a resource file (ToolDef.Feature), served once Check finds nothing wrong. It is
// safe for concurrent use.
type Resource struct {
	def  ResourceDef
	tmpl *uritemplate.Template // for a template
	// problems are what is wrong with def, as Check says.
	problems error
}

// NewResource returns the resource of a definition, for a loader to hand the engine.
func NewResource(def ResourceDef) *Resource {
	var errs []error
	fail := func(member, format string, args ...any) {
		errs = append(errs, &diag.MemberError{Member: member, Err: fmt.Errorf(format, args...)})
	}
	r := &Resource{def: def}
	switch {
	case def.URI == "" && def.URITemplate == "":
		fail("uri", "a resource must have a uri or a uriTemplate")
	case def.URI != "" && def.URITemplate != "":
		fail("uriTemplate", "a resource has a uri or a uriTemplate, not both")
	case def.URI != "":
		if u, err := url.Parse(def.URI); err != nil {
			fail("uri", "uri %q does not parse: %v", def.URI, err)
		} else if u.Scheme == "" {
			fail("uri", "uri %q must be absolute, with a scheme (docs://readme)", def.URI)
		}
	default:
		t, err := uritemplate.New(def.URITemplate)
		switch {
		case err != nil:
			fail("uriTemplate", "uriTemplate %q is not an RFC 6570 template: %v", def.URITemplate, err)
		case len(t.Varnames()) == 0:
			fail("uriTemplate", "uriTemplate %q has no {variable}: give it as uri", def.URITemplate)
		case !hasScheme(def.URITemplate):
			fail("uriTemplate", "uriTemplate %q must be absolute, with a scheme (notes://{name})", def.URITemplate)
		}
		r.tmpl = t
	}
	r.checkCompletions(fail)
	if def.Name == "" {
		fail("name", "a resource must have a name")
	}
	if def.Read == nil {
		fail("read", "a resource must have a read function")
	}
	r.problems = errors.Join(errs...)
	return r
}

// checkCompletions reports, with fail, the completions of def.Complete that name no
// variable of the template or declare neither values nor a function.
func (r *Resource) checkCompletions(fail func(member, format string, args ...any)) {
	if len(r.def.Complete) > 0 && r.def.URITemplate == "" {
		fail("complete", "complete is for the variables of a uriTemplate; a uri has none")
		return
	}
	var vars []string
	if r.tmpl != nil {
		vars = r.tmpl.Varnames()
	}
	for _, name := range slices.Sorted(maps.Keys(r.def.Complete)) {
		switch {
		case r.tmpl == nil: // the template's own problem is reported
		case !slices.Contains(vars, name):
			msg := fmt.Sprintf("complete: uriTemplate %q has no variable %q", r.def.URITemplate, name)
			if s := spell.Suggest(name, vars); s != "" {
				msg += fmt.Sprintf(" (did you mean %s?)", s)
			}
			fail("complete", "%s", msg)
		default:
			if err := r.def.Complete[name].check(); err != nil {
				fail("complete", "complete: variable %q: %v", name, err)
			}
		}
	}
}

// Kind is "resource": resources have URIs of their own.
func (r *Resource) Kind() string { return kindResource }

// Key is the URI or URI template the resource is served by (URI).
func (r *Resource) Key() string { return r.URI() }

// String names the resource in messages: resource URI "docs://readme".
func (r *Resource) String() string { return fmt.Sprintf("%s URI %q", kindResource, r.URI()) }

// Check says what is wrong with the definition: exactly one of URI and URITemplate,
// absolute (with a scheme), the template well formed; a name; a Read function;
// completions of the template's variables only. Its problems are diag.MemberErrors
// (members "uri", "uriTemplate", "name", "read", "complete"), joined.
func (r *Resource) Check() error { return r.problems }

// hasScheme reports whether a URI template starts with a scheme before its first
// expression.
func hasScheme(tmpl string) bool {
	head, _, _ := strings.Cut(tmpl, "{")
	scheme, _, ok := strings.Cut(head, ":")
	if !ok || scheme == "" {
		return false
	}
	u, err := url.Parse(scheme + ":")
	return err == nil && u.Scheme != ""
}

// URI returns the resource's URI, or its URI template for a template.
func (r *Resource) URI() string {
	if r.tmpl != nil {
		return r.def.URITemplate
	}
	return r.def.URI
}

// IsTemplate reports whether the resource is a URI template.
func (r *Resource) IsTemplate() bool { return r.tmpl != nil }

// Name returns the resource's name.
func (r *Resource) Name() string { return r.def.Name }

// Description returns the resource's description.
func (r *Resource) Description() string { return r.def.Description }

// MIMEType returns the resource's MIME type, or "".
func (r *Resource) MIMEType() string { return r.def.MIMEType }

// Source says where the resource was defined.
func (r *Resource) Source() string { return r.def.Source }

// match reports whether the template r matches uri, with its variables.
func (r *Resource) match(uri string) (map[string]string, bool) {
	if !r.tmpl.Regexp().MatchString(uri) {
		return nil, false
	}
	vals := r.tmpl.Match(uri)
	params := map[string]string{}
	for _, name := range r.tmpl.Varnames() {
		if v := vals.Get(name); v.Valid() {
			params[name] = v.String()
		}
	}
	return params, true
}

// ReadResource reads the resource at uri in e's current snapshot: the resource of
// that URI, or else the first template (in URI template order) that matches it. A
// URI nothing serves is an error wrapping ErrUnknownResource. The resource's code
// runs as a prompt's does (see GetPrompt): under the engine's Options.Timeout,
// without touching the world. The contents' URI is uri and its MIME type, when the
// read gives none, the resource's.
func ReadResource(ctx context.Context, e *engine.Engine, uri string) (*ResourceContents, error) {
	reg := e.Registry()
	resources := Resources(reg)
	r, params, ok := matchResource(resources, uri)
	if !ok {
		return nil, unknownResource(uri, resources)
	}
	ctx, cancel := context.WithTimeout(ctx, e.Options().Timeout)
	defer cancel()
	c, err := r.def.Read(ctx, uri, params, e.FeatureContext(reg, kindResource, uri))
	if err != nil {
		return nil, fmt.Errorf("resource %s: %w", uri, err)
	}
	c.URI = uri
	if c.MIMEType == "" {
		c.MIMEType = r.def.MIMEType
	}
	return &c, nil
}

// matchResource finds the resource that serves uri: the one of that URI, or else the
// first template that matches it, with the template's variables.
func matchResource(resources []*Resource, uri string) (*Resource, map[string]string, bool) {
	for _, res := range resources {
		if !res.IsTemplate() && res.URI() == uri {
			return res, nil, true
		}
	}
	for _, res := range resources {
		if !res.IsTemplate() {
			continue
		}
		if params, ok := res.match(uri); ok {
			return res, params, true
		}
	}
	return nil, nil, false
}

// FindResource returns the resource of reg that serves uri, as ReadResource finds
// it: the resource of that URI, or else the first template that matches it. A URI
// nothing serves is an error wrapping ErrUnknownResource, with the closest URI.
func FindResource(reg *engine.Registry, uri string) (*Resource, error) {
	resources := Resources(reg)
	r, _, ok := matchResource(resources, uri)
	if !ok {
		return nil, unknownResource(uri, resources)
	}
	return r, nil
}

// unknownResource is the error of a URI none of resources serves, with the closest
// of their URIs.
func unknownResource(uri string, resources []*Resource) error {
	hint := ""
	if s := spell.Suggest(uri, resourceURIs(resources)); s != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", s)
	}
	return fmt.Errorf("%w: %s%s", ErrUnknownResource, uri, hint)
}

func resourceURIs(rs []*Resource) []string {
	uris := make([]string, len(rs))
	for i, r := range rs {
		uris[i] = r.URI()
	}
	return uris
}
