package srcpos

import "testing"

func TestString(t *testing.T) {
	for _, tt := range []struct {
		p            Pos
		want, prefix string
	}{
		{Pos{}, "", ""},
		{Pos{File: "a.lua"}, "a.lua", "a.lua: "},
		{Pos{File: "a.lua", Line: 3}, "a.lua:3", "a.lua:3: "},
		{Pos{File: "a.lua", Line: 3, Column: 7}, "a.lua:3:7", "a.lua:3:7: "},
		{Pos{File: "a.lua", Column: 7}, "a.lua", "a.lua: "},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.p, got, tt.want)
		}
		if got := tt.p.Prefix(); got != tt.prefix {
			t.Errorf("%#v.Prefix() = %q, want %q", tt.p, got, tt.prefix)
		}
	}
}
