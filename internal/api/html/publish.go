package html

import (
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/agora-registry/registry/internal/api/problem"
	"github.com/agora-registry/registry/internal/apperr"
	"github.com/agora-registry/registry/internal/auth"
	"github.com/agora-registry/registry/internal/entity"
	"github.com/agora-registry/registry/internal/plural"
	"github.com/agora-registry/registry/internal/protocol"
	"github.com/agora-registry/registry/internal/registry"
	"github.com/agora-registry/registry/internal/store"
)

// maxTagsField caps the free-text tags field of the form.
const maxTagsField = 2000

type publishPage struct {
	base
	CSRF        string
	OpenPublish bool
	Content     string // always echoed back, so an error never loses text
	TagsField   string
	// NeedsConfirm asks for "publish anyway": the document has notes and
	// publishing is permanent.
	NeedsConfirm bool
	// Focus names what the page moves focus to: "preview" or "confirm".
	Focus      string
	Error      string
	ErrorField string // which field Error is about: "content", "token" or ""
	Preview    *preview
	// SignIn offers signing in (a registry with an identity provider);
	// User is the signed-in user, who publishes as Publisher, one of
	// User.Publishers, instead of pasting a token.
	SignIn    bool
	User      *auth.User
	Publisher string
}

type preview struct {
	Hex, Base64 string
	Size        int
	Metadata    protocol.Metadata
	Lints       []protocol.Lint
	Rendered    template.HTML
}

// publishForm answers GET /publish.
func (p *Pages) publishForm(c echo.Context) error {
	page, err := p.newPublishPage(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return p.render(c, http.StatusOK, "publish", page)
}

func (p *Pages) newPublishPage(c echo.Context) (publishPage, error) {
	tok, err := p.csrf.token(c)
	if err != nil {
		return publishPage{}, err
	}
	page := publishPage{base: base{Title: "Publish a protocol", Nav: "publish"}, CSRF: tok, OpenPublish: p.opts.OpenPublish, SignIn: p.opts.Auth != nil}
	u, ok, err := p.user(c)
	if err != nil {
		return publishPage{}, err
	}
	if ok {
		page.User = &u
		page.Publisher = c.FormValue("publisher")
	}
	return page, nil
}

// publish answers POST /publish: action=preview shows what would be
// stored; action=publish stores it and redirects to its page. Every
// failure re-renders the form with the user's text in it.
func (p *Pages) publish(c echo.Context) error {
	page, err := p.newPublishPage(c)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	content, fromFile, err := p.submittedContent(c)
	page.Content = content
	page.TagsField = c.FormValue("tags")
	if len(page.TagsField) > maxTagsField {
		page.TagsField = page.TagsField[:maxTagsField]
	}
	show := func(status int, field, msg string) error {
		page.Error, page.ErrorField = msg, field
		return p.render(c, status, "publish", page)
	}
	fail := func(field string, err error) error {
		status, _, msg := problem.Classify(err)
		if status >= http.StatusInternalServerError {
			p.log.Error("publish form failed", "status", status, "error", err)
		}
		return show(status, field, msg)
	}
	if err != nil {
		return fail("content", err)
	}
	if !p.csrf.valid(c) {
		return show(http.StatusForbidden, "", "This form expired or came from another site. Nothing was published; check the text and submit again.")
	}
	if content == "" {
		return show(http.StatusBadRequest, "content", "Paste a protocol document or choose a file to upload.")
	}
	previewing := c.FormValue("action") != "publish"
	busy := func() error {
		c.Response().Header().Set("Retry-After", "1")
		return show(http.StatusTooManyRequests, "", "A preview from your address is still being prepared. Wait for it to finish, then submit again; your text is kept below.")
	}
	if previewing {
		// One preview per client at a time: reading and rendering a
		// document is the costly part, and previews need no token.
		release, ok := p.previews.take(c.RealIP())
		if !ok {
			return busy()
		}
		defer release()
	}
	doc, err := p.svc.Prepare([]byte(content))
	if err != nil {
		return fail("content", err)
	}
	status := http.StatusOK
	if !previewing && len(doc.Lints) > 0 && c.FormValue("anyway") != "1" {
		// Publishing is permanent: a document with notes is shown again,
		// with them, and goes out only with "publish anyway" ticked.
		release, ok := p.previews.take(c.RealIP())
		if !ok {
			return busy()
		}
		defer release()
		previewing, status = true, http.StatusUnprocessableEntity
		page.NeedsConfirm, page.Focus = true, "confirm"
		page.Error, page.ErrorField = fmt.Sprintf("Not published yet: this document has %s (shown in the preview below). Publishing is permanent; fix them, or tick “Publish anyway” and publish again.", plural.Count(len(doc.Lints), "note", "notes")), ""
	}
	if previewing {
		rendered, err := p.documents.Preview(c.Request().Context(), doc.Content)
		if err != nil {
			return fail("", err)
		}
		page.Preview = &preview{
			Hex: doc.Sums.SHA1.Hex(), Base64: doc.Sums.SHA1.Base64(), Size: len(doc.Content),
			Metadata: doc.Metadata, Lints: append(doc.Lints, rendered.Lints...), Rendered: template.HTML(rendered.HTML),
		}
		page.Preview.Metadata.Tags = mergeTags(doc.Metadata.Tags, splitTags(page.TagsField))
		if fromFile {
			page.Title = "Preview of the uploaded file"
		}
		if page.Focus == "" {
			page.Focus = "preview"
		}
		return p.render(c, status, "publish", page)
	}
	tok, actor, err := p.authorise(c, page)
	if err != nil {
		return fail("token", err)
	}
	res, err := p.svc.PublishRequest(c.Request().Context(), registry.PublishRequest{
		Content: []byte(content), Tags: splitTags(page.TagsField), Publisher: registry.PublisherOfToken(tok),
	})
	if err != nil {
		return fail("content", err)
	}
	p.log.Info("published", "actor", actor, "publisher", registry.PublisherOfToken(tok), "hash", res.Entry.Digest.Hex(), "created", res.Created)
	state := "existing"
	if res.Created {
		state = "new"
	}
	target := "/protocols/" + res.Entry.Digest.Hex()
	p.setPublishedFlash(c, target, state)
	return c.Redirect(http.StatusSeeOther, target)
}

// submittedContent reads the document from the uploaded file when one was
// chosen, else from the text area. Browsers send a text area's line breaks
// as CRLF whatever was pasted, so pasted text is converted back to LF;
// an uploaded file is taken byte for byte.
func (p *Pages) submittedContent(c echo.Context) (content string, fromFile bool, err error) {
	limit := p.svc.Config().MaxDocumentBytes
	if limit <= 0 {
		limit = protocol.DefaultMaxDocumentBytes
	}
	text := strings.ReplaceAll(c.FormValue("content"), "\r\n", "\n")
	fh, ferr := c.FormFile("file")
	if ferr != nil || fh.Size == 0 {
		if ferr != nil && !errors.Is(ferr, http.ErrMissingFile) {
			return text, false, protocol.ErrEmptyDocument.With("the uploaded file could not be read: " + ferr.Error())
		}
		return text, false, nil
	}
	if fh.Size > int64(limit) {
		return text, false, protocol.ErrDocumentTooLarge.With(fmt.Sprintf("the file is %d bytes; the limit is %d", fh.Size, limit))
	}
	f, err := fh.Open()
	if err != nil {
		return text, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return text, false, err
	}
	if err := protocol.Validate(b, limit); err != nil {
		// The bytes cannot be shown in a text area; keep the pasted text.
		return text, false, err
	}
	return string(b), true, nil
}

// authorise checks the form's token, else the signed-in user's right to
// publish as the chosen publisher, unless publishing is open; it returns
// the token acted through (the zero token for a tokenless open publish)
// and who acts, for the log. A token that is given is always checked, so
// a revoked one never silently works.
func (p *Pages) authorise(c echo.Context, page publishPage) (entity.Token, string, error) {
	secret := strings.TrimSpace(c.FormValue("token"))
	if secret == "" && page.User != nil {
		u := *page.User
		if len(u.Publishers) == 0 {
			return entity.Token{}, "", apperr.New(apperr.Forbidden, "no_publisher", "You are signed in as "+u.Name()+", but no rule of this registry gives your account a publisher, so you cannot publish. Ask its operator to add one for a group you belong to or your verified email domain.")
		}
		if !slices.Contains(u.Publishers, page.Publisher) {
			return entity.Token{}, "", apperr.New(apperr.Forbidden, "not_your_publisher", "You may not publish as "+strconv.Quote(page.Publisher)+"; choose one of your publishers.")
		}
		return u.Token(page.Publisher), u.Name(), nil
	}
	if secret == "" {
		if p.opts.OpenPublish {
			return entity.Token{}, "anonymous", nil
		}
		msg := "Publishing on this registry needs an API token with the publish scope."
		if p.opts.Auth != nil {
			msg = "Sign in to publish, or enter an API token with the publish scope."
		}
		return entity.Token{}, "", apperr.New(apperr.Unauthenticated, "missing_token", msg)
	}
	tok, err := p.opts.Authenticate(c.Request().Context(), secret)
	if err != nil {
		if errors.Is(err, store.ErrTokenUnknown) {
			return entity.Token{}, "", store.ErrTokenUnknown.With("This API token is unknown or revoked.")
		}
		return entity.Token{}, "", err
	}
	if !tok.Has(entity.ScopePublish) {
		return entity.Token{}, "", apperr.New(apperr.Forbidden, "insufficient_scope", "This API token lacks the publish scope.")
	}
	return tok, "token:" + tok.Name, nil
}

// splitTags reads the form's tags: words separated by commas or spaces.
func splitTags(field string) []string {
	return protocol.NormaliseTags(strings.FieldsFunc(field, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }))
}

func mergeTags(a, b []string) []string {
	return protocol.NormaliseTags(append(append([]string{}, a...), b...))
}
