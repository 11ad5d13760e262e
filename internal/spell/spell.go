// Package spell suggests the name a person most likely meant: the one helper behind
// every "did you mean ...?" hint of luatool, for tools, members, modules, options,
// commands, settings keys and schema keywords.
package spell

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Suggest returns the candidate closest to name by edit distance, ignoring case, when
// it is close enough to be a likely typo (at most a third of the name's length, and at
// least one edit allowed); otherwise "".
//
// A candidate whose length differs from the name's by more than that is not
// compared at all (the distance is at least the difference), so that a name of
// megabytes sent by a client costs a count of its characters, not a table of
// them.
func Suggest(name string, candidates []string) string {
	best, bestDist := "", -1
	lname := strings.ToLower(name)
	limit := max(1, len(name)/3)
	n := utf8.RuneCountInString(lname)
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if diff := n - utf8.RuneCountInString(lc); diff > limit || -diff > limit {
			continue
		}
		d := editDistance(lname, lc)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions, deletions,
// substitutions and transpositions of neighbours ("Raed" for "Read") cost one each.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Unknown returns the first key of m, in sorted order, that allowed does not name,
// with the allowed name it most likely meant ("" when none is close); two empty
// strings when every key is allowed. It is the check of a table's fields against
// the ones a shape has.
func Unknown[V any](m map[string]V, allowed []string) (key, meant string) {
	for k := range m {
		if !slices.Contains(allowed, k) && (key == "" || k < key) {
			key = k
		}
	}
	if key == "" {
		return "", ""
	}
	return key, Suggest(key, allowed)
}
