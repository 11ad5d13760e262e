package mcpserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/internal/nameshape"
)

// MinTokenLength is the shortest bearer token Tokens accepts, in bytes: a token is a
// password that is sent with every request, and a short one can be guessed.
const MinTokenLength = 16

// A Credential is a bearer token and the principal it authenticates.
type Credential struct {
	// Name is the principal's name: letters, digits and ._@- (up to 64), unique
	// among the credentials.
	Name string
	// Token is the bearer token, at least MinTokenLength bytes, unique among the
	// credentials.
	Token string
	// Profile adds the principal's rules and mode to the server's (engine.NewProfile);
	// nil adds none.
	Profile *engine.Profile
	// Source says where the credential was read, for messages ("tokens.txt:3"); ""
	// names it by its position.
	Source string
}

// Tokens authenticates HTTP requests by bearer token against a fixed table of
// credentials (HTTPOptions.Tokens). Only hashes of the tokens are kept, and a token
// is compared with every one of them in constant time, so that neither the time an
// answer takes nor which entry matched tells anything about the tokens. Tokens is
// safe for concurrent use, Replace included.
type Tokens struct {
	entries atomic.Pointer[[]tokenEntry]
}

type tokenEntry struct {
	name    string
	hash    [sha256.Size]byte
	profile *engine.Profile
}

// principalName is what a principal may be called: it appears in logs and in the
// keys of the session store, so it is kept to characters that need no quoting.
var principalName = nameshape.MustParse(`^[A-Za-z0-9._@-]{1,64}$`)

// NewTokens checks the credentials and returns the table that authenticates them.
// A name that is not one, a token shorter than MinTokenLength, and a name or token
// given twice are errors naming the credentials (by Source), all of them joined.
func NewTokens(creds []Credential) (*Tokens, error) {
	var (
		entries []tokenEntry
		errs    []error
	)
	names := map[string]string{}
	tokens := map[[sha256.Size]byte]string{}
	for i, c := range creds {
		where := c.Source
		if where == "" {
			where = fmt.Sprintf("credential %d", i+1)
		}
		hash := sha256.Sum256([]byte(c.Token))
		switch {
		case !principalName.MatchString(c.Name):
			errs = append(errs, fmt.Errorf("%s: %q is not a principal name (letters, digits and ._@-, up to 64)", where, c.Name))
		case len(c.Token) < MinTokenLength:
			errs = append(errs, fmt.Errorf("%s: the token of %s is %d bytes long; a token must have at least %d (random ones: openssl rand -hex 32)", where, c.Name, len(c.Token), MinTokenLength))
		case names[c.Name] != "":
			errs = append(errs, fmt.Errorf("%s: %s is named already, at %s", where, c.Name, names[c.Name]))
		case tokens[hash] != "":
			errs = append(errs, fmt.Errorf("%s: the token of %s is the token of %s already: each principal needs its own", where, c.Name, tokens[hash]))
		default:
			names[c.Name] = where
			tokens[hash] = c.Name + " (" + where + ")"
			entries = append(entries, tokenEntry{name: c.Name, hash: hash, profile: c.Profile})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return newTokens(entries), nil
}

func newTokens(entries []tokenEntry) *Tokens {
	t := &Tokens{}
	t.entries.Store(&entries)
	return t
}

// Replace makes t authenticate by the credentials of n from its next request on:
// a principal n does not list is refused there, while its requests already
// authenticated go on; one n adds is served. A principal new to t, or whose
// profile changed, has its tool list made at its first request.
func (t *Tokens) Replace(n *Tokens) {
	t.entries.Store(n.entries.Load())
}

// LocalUserTokens returns the table of one token that authenticates the local user
// (the principal of stdio, whose calls share one session): for a server that makes
// a token of its own rather than serve anyone who reaches it, as luatool serve --http
// on loopback without a token file does. The token must have MinTokenLength bytes.
func LocalUserTokens(token string) (*Tokens, error) {
	if len(token) < MinTokenLength {
		return nil, fmt.Errorf("the token is %d bytes long; a token must have at least %d", len(token), MinTokenLength)
	}
	return newTokens([]tokenEntry{{hash: sha256.Sum256([]byte(token))}}), nil
}

// profileKey is the key of a principal's profile in auth.TokenInfo.Extra.
const profileKey = "luatool/profile"

// verify is the auth.TokenVerifier of the table. Every entry is compared, whatever
// matched before: the time taken does not depend on which one matches.
func (t *Tokens) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	hash := sha256.Sum256([]byte(token))
	found := -1
	entries := *t.entries.Load()
	for i, e := range entries {
		found = subtle.ConstantTimeSelect(subtle.ConstantTimeCompare(hash[:], e.hash[:]), i, found)
	}
	if found < 0 {
		return nil, fmt.Errorf("%w: no principal has this token", auth.ErrInvalidToken)
	}
	e := entries[found]
	// The tokens do not expire: they are valid as long as the table lists them.
	return &auth.TokenInfo{UserID: e.name, Extra: map[string]any{profileKey: e.profile}}, nil
}

// profiles returns the distinct profiles of the table.
func (t *Tokens) profiles() []*engine.Profile {
	var out []*engine.Profile
	seen := map[*engine.Profile]bool{}
	for _, e := range *t.entries.Load() {
		if e.profile != nil && !seen[e.profile] {
			seen[e.profile] = true
			out = append(out, e.profile)
		}
	}
	return out
}

// profileOf returns the profile an authenticated request carries: nil for the local
// user and for principals without one.
func profileOf(ti *auth.TokenInfo) *engine.Profile {
	if ti == nil {
		return nil
	}
	p, _ := ti.Extra[profileKey].(*engine.Profile)
	return p
}

// principal returns who a request runs for: the principal its bearer token names
// (TokenInfo.UserID, with its profile), or the local user for a request without
// one (stdio, or HTTP without authentication); in the client's session when the
// transport keeps one. The stateless HTTP transport keeps none, so each principal
// has one session there, shared by all its clients.
func principal(extra *mcp.RequestExtra, ss *mcp.ServerSession) engine.Principal {
	var p engine.Principal
	if ss != nil {
		p.Session = ss.ID()
	}
	if extra != nil && extra.TokenInfo != nil {
		p.Name = extra.TokenInfo.UserID
		p.Profile = profileOf(extra.TokenInfo)
	}
	return p
}
