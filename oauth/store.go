package oauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcpscope/mcpscope/internal/readfile"
)

// Entry is one stored login: the tokens an issuer gave for a resource, and what is
// needed to refresh them.
type Entry struct {
	Server        string    `json:"server"`   // the MCP endpoint logged in to
	Issuer        string    `json:"issuer"`   // the authorization server's issuer
	Resource      string    `json:"resource"` // the resource indicator the tokens are for
	ClientID      string    `json:"client_id"`
	ClientSecret  string    `json:"client_secret,omitempty"`
	TokenEndpoint string    `json:"token_endpoint"`
	AuthMethod    string    `json:"token_endpoint_auth_method,omitempty"`
	Grant         string    `json:"grant,omitempty"` // authorization_code, client_credentials, the jwt-bearer URN, or id-jag (exchange.go)
	Scopes        []string  `json:"scopes,omitempty"`
	TokenType     string    `json:"token_type,omitempty"`
	AccessToken   string    `json:"access_token"`
	RefreshToken  string    `json:"refresh_token,omitempty"`
	Expiry        time.Time `json:"expiry,omitempty"`
	// Issued is when the access token came (its lifetime is Expiry - Issued: the
	// refresh margin is relative to it).
	Issued time.Time `json:"issued,omitempty"`
	Saved  time.Time `json:"saved"`
	// What the login went through, as fetched or registered (no secret in them),
	// for auth status: nil in a login stored before mcpscope kept them.
	ResourceMeta *ResourceMetadata `json:"resource_metadata,omitempty"`
	IssuerMeta   *IssuerMetadata   `json:"issuer_metadata,omitempty"`
	Client       *ClientMetadata   `json:"client_metadata,omitempty"`
	// DPoPKey is the private key (PKCS#8 PEM) the tokens are bound to when
	// TokenType is DPoP (RFC 9449): a secret kept in this 0600 file, never sent.
	DPoPKey string `json:"dpop_key,omitempty"`
	// scopesGranted: Scopes are what the token response said was granted (not only
	// what was asked for).
	scopesGranted bool
}

// Registration is a client registered with an issuer (dynamic registration), kept
// so that the next login there reuses it.
type Registration struct {
	Issuer       string   `json:"issuer"`
	ClientID     string   `json:"client_id"`
	ClientSecret string   `json:"client_secret,omitempty"`
	AuthMethod   string   `json:"token_endpoint_auth_method,omitempty"`
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// ClientURI and AccessToken are the client's configuration endpoint and the
	// token that reads it (RFC 7592 §3: registration_client_uri and
	// registration_access_token, a secret), when the registration response carried
	// them: a login checks with them that the authorization server still knows the
	// client, without an authorization request.
	ClientURI   string `json:"registration_client_uri,omitempty"`
	AccessToken string `json:"registration_access_token,omitempty"`
	// Unfinished: a login through this client sent the person to the authorization
	// endpoint and has not come back with a token (yet, or ever: a forgotten client
	// gets invalid_client in the browser and no redirect). Only then is a client
	// without ClientURI checked with an authorization request of mcpscope's own.
	Unfinished bool `json:"login_unfinished,omitempty"`
	// Metadata is what the registration answered (no secret in it), shown again
	// when a later login reuses the client.
	Metadata *ClientMetadata `json:"metadata,omitempty"`
}

// Store keeps logins in a directory, one file per issuer and resource, mode 0600,
// written atomically (a temporary file renamed over the old one). A lock file
// (flock) serializes refreshes between processes.
type Store struct {
	Dir string
	// Warn is told about files that cannot be read (and are skipped).
	Warn func(string)
}

// DefaultDir is where logins are kept: $XDG_CONFIG_HOME/mcpscope/oauth (or
// ~/.config/mcpscope/oauth), ~/Library/Application Support/mcpscope/oauth on macOS.
func DefaultDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "mcpscope", "oauth"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no place for the token store: %v (set XDG_CONFIG_HOME)", err)
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "mcpscope", "oauth"), nil
	}
	return filepath.Join(home, ".config", "mcpscope", "oauth"), nil
}

func key(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(h[:12])
}

func (s *Store) tokenPath(issuer, resource string) string {
	return filepath.Join(s.Dir, "tokens", key(issuer, resource)+".json")
}

func (s *Store) clientPath(issuer string) string {
	return filepath.Join(s.Dir, "clients", key(issuer)+".json")
}

func (s *Store) warn(format string, a ...any) {
	if s.Warn != nil {
		s.Warn(fmt.Sprintf(format, a...))
	}
}

// writeJSON writes v to path atomically with mode 0600.
func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Chmod(0o600); err == nil {
		_, err = f.Write(append(data, '\n'))
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp, path)
		}
		if err == nil {
			return nil
		}
	} else {
		f.Close()
	}
	os.Remove(tmp)
	return err
}

// readJSON reads a file of the store. A token or client file holds secrets, so it
// is opened without following a symbolic link (a link planted there could point
// mcpscope at another user's file, or make it trust a file someone else controls):
// a link is refused with a message. It must be a regular file of at most
// readfile.MaxEnvFile (tokens and registrations are small), and a file others can
// read or write is warned about and set to 0600. The directories above it are
// checked by checkDirs.
func (s *Store) readJSON(path string, v any) error {
	s.checkDirs()
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return &LinkError{Path: path}
		}
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &CorruptError{Path: path, Err: fmt.Errorf("not a regular file (%v)", st.Mode().Type())}
	}
	if st.Size() > readfile.MaxEnvFile {
		return &CorruptError{Path: path, Err: fmt.Errorf("larger than %d bytes", readfile.MaxEnvFile)}
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			s.warn("%s has mode %04o: others can read or change this login; setting it to 0600 failed: %v", path, perm, err)
		} else {
			s.warn("%s has mode %04o; set to 0600 (others could read or change this login)", path, perm)
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, readfile.MaxEnvFile))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &CorruptError{Path: path, Err: err}
	}
	return nil
}

// checkDirs warns about, and tightens to 0700, a store directory that others can
// read or write: in a world-writable directory anyone can swap a token or client
// file (the files are written 0600, the directories 0700 by mcpscope itself).
func (s *Store) checkDirs() {
	for _, d := range []string{s.Dir, filepath.Join(s.Dir, "tokens"), filepath.Join(s.Dir, "clients")} {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			continue
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			if err := os.Chmod(d, 0o700); err != nil {
				s.warn("%s has mode %04o: others can read or replace the logins in it; setting it to 0700 failed: %v", d, perm, err)
			} else {
				s.warn("%s has mode %04o; set to 0700 (others could read or replace the logins in it)", d, perm)
			}
		}
	}
}

// LinkError is a store file that is a symbolic link: not read.
type LinkError struct{ Path string }

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link; mcpscope does not read logins through links: it is ignored (remove it; the next login writes a file there)", e.Path)
}

// CorruptError is a store file that is not what mcpscope wrote.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("the token file %s cannot be read (%v); it is ignored: remove it, or log in again to replace it", e.Path, e.Err)
}

// Save stores a login.
func (s *Store) Save(e *Entry) error {
	e.Saved = time.Now().UTC()
	if err := writeJSON(s.tokenPath(e.Issuer, e.Resource), e); err != nil {
		return fmt.Errorf("saving the login in %s: %v", s.Dir, err)
	}
	return nil
}

// Load reads the login for an issuer and resource; nil when there is none (or its
// file is corrupt: then Warn says so).
func (s *Store) Load(issuer, resource string) *Entry {
	var e Entry
	if err := s.readJSON(s.tokenPath(issuer, resource), &e); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.warn("%v", err)
		}
		return nil
	}
	if e.AccessToken == "" {
		s.warn("the token file %s holds no access token; it is ignored", s.tokenPath(issuer, resource))
		return nil
	}
	return &e
}

// All returns every stored login, sorted by server; unreadable files are reported
// to Warn and skipped.
func (s *Store) All() []*Entry {
	files, _ := filepath.Glob(filepath.Join(s.Dir, "tokens", "*.json"))
	var out []*Entry
	for _, f := range files {
		var e Entry
		if err := s.readJSON(f, &e); err != nil {
			s.warn("%v", err)
			continue
		}
		if e.AccessToken == "" || e.Issuer == "" {
			s.warn("the token file %s holds no access token or issuer; it is ignored: remove it, or log in again", f)
			continue
		}
		out = append(out, &e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// ForServer returns the stored logins for an MCP endpoint URL, newest first.
func (s *Store) ForServer(server string) []*Entry {
	var out []*Entry
	for _, e := range s.All() {
		if sameResource(e.Server, server) || sameResource(e.Resource, server) {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Saved.After(out[j].Saved) })
	return out
}

// Delete removes a login.
func (s *Store) Delete(e *Entry) error {
	err := os.Remove(s.tokenPath(e.Issuer, e.Resource))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// SaveRegistration keeps a client registration for an issuer.
func (s *Store) SaveRegistration(r *Registration) error {
	return writeJSON(s.clientPath(r.Issuer), r)
}

// ClientsDir is where registrations are kept, one file per issuer.
func (s *Store) ClientsDir() string { return filepath.Join(s.Dir, "clients") }

// DeleteRegistration forgets the client registered with an issuer (the next login
// there registers again); it reports whether there was one.
func (s *Store) DeleteRegistration(issuer string) (bool, error) {
	err := os.Remove(s.clientPath(issuer))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Registrations returns every kept registration (unreadable files are reported to
// Warn and skipped).
func (s *Store) Registrations() []*Registration {
	files, _ := filepath.Glob(filepath.Join(s.ClientsDir(), "*.json"))
	var out []*Registration
	for _, f := range files {
		var r Registration
		if err := s.readJSON(f, &r); err != nil {
			s.warn("%v", err)
			continue
		}
		if r.Issuer != "" {
			out = append(out, &r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Issuer < out[j].Issuer })
	return out
}

// LoadRegistration returns the registration kept for an issuer, or nil.
func (s *Store) LoadRegistration(issuer string) *Registration {
	var r Registration
	if err := s.readJSON(s.clientPath(issuer), &r); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			s.warn("%v", err)
		}
		return nil
	}
	if r.ClientID == "" {
		return nil
	}
	return &r
}

// Lock takes the store's lock (an flock on a file in Dir), waiting for another
// process that holds it; the returned function releases it.
func (s *Store) Lock() (func(), error) {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking the token store: %v", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// sameResource compares two URLs ignoring one trailing slash and the case of the
// scheme and host.
func sameResource(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return canonical(a) == canonical(b)
}
