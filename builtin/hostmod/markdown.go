package hostmod

import (
	"context"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
)

// A markdownConverter turns HTML into Markdown (CommonMark, with tables and
// strikethrough), with github.com/JohannesKaufmann/html-to-markdown: head, script
// and style elements are dropped, links made absolute against a base URL when one
// is given. It is safe for concurrent use.
type markdownConverter struct {
	conv *htmltomarkdown.Converter
}

func newMarkdownConverter() *markdownConverter {
	return &markdownConverter{conv: htmltomarkdown.NewConverter(htmltomarkdown.WithPlugins(
		base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin(), strikethrough.NewStrikethroughPlugin(),
	))}
}

// convert converts html, giving up when ctx ends: the conversion runs aside, since
// a large page takes a while and the library does not stop midway.
func (m *markdownConverter) convert(ctx context.Context, html, baseURL string) (string, error) {
	type result struct {
		md  string
		err error
	}
	done := make(chan result, 1)
	go func() {
		md, err := m.conv.ConvertString(html, htmltomarkdown.WithContext(ctx), htmltomarkdown.WithDomain(baseURL))
		done <- result{md, err}
	}()
	select {
	case r := <-done:
		return r.md, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// http.markdown(html [, {baseUrl=}]) returns html as Markdown, or nil, message,
// code ("cancelled" when the call ended first).
func (s *httpState) luaMarkdown(L *lua.LState) int {
	a := bindings.NewArgs(L, "http.markdown")
	html := a.String(1)
	baseURL := a.Options(2, "baseUrl").String("baseUrl", "")
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	md, err := s.markdown.convert(ctx, html, baseURL)
	if err != nil {
		code := codeIO
		if ctx.Err() != nil {
			code = codeCancelled
		}
		return push(L, newOpError(code, "http.markdown: %v", err))
	}
	L.Push(lua.LString(md))
	return 1
}
