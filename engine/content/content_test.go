package content

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestDecodedLen(t *testing.T) {
	for n := range 10 {
		data := base64.StdEncoding.EncodeToString(make([]byte, n))
		if got := DecodedLen(data); got != n {
			t.Errorf("DecodedLen(%q) = %d, want %d", data, got, n)
		}
	}
}

func TestCheckMIME(t *testing.T) {
	for _, tc := range []struct{ mime, major, want string }{
		{"text/plain; charset=utf-8", "", ""},
		{"image/svg+xml", "image", ""},
		{"audio/wav", "image", `"audio/wav" is not an image type (image/png)`},
		{"wav", "audio", `"wav" is not a MIME type (type/subtype, such as audio/wav)`},
		{"/plain", "", "is not a MIME type"},
		{"text/", "", "is not a MIME type"},
	} {
		err := CheckMIME(tc.mime, tc.major)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckMIME(%q, %q) = %v, want %q", tc.mime, tc.major, err, tc.want)
		}
	}
}
