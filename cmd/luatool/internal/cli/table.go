package cli

import (
	"io"
	"text/tabwriter"
)

// table writes aligned columns.
type table struct{ w *tabwriter.Writer }

func newTable(w io.Writer) *table { return &table{tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)} }

func (t *table) row(cells ...string) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(t.w, "\t")
		}
		io.WriteString(t.w, c)
	}
	io.WriteString(t.w, "\n")
}

func (t *table) flush() { t.w.Flush() }
