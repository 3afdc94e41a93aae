package tui

import "github.com/mcpscope/mcpscope/internal/termsafe"

// Every string a server sent (names, titles, descriptions, schemas, results, errors,
// frames, logs, stderr, notices) goes through safe or safeText before it is laid out,
// so that its escapes are shown and never drive the terminal (internal/termsafe has
// the rule). The layout functions call them: wrapText, textLines and jsonLines (and
// through them wrapHard), the traffic summary; the rest is the few places that put a
// server string on one line next to our own styles.

// safe is s for one line: newlines show as ↵.
func safe(s string) string { return termsafe.Line(s) }

// safeText is s for a block of lines: \n and \r\n split lines, tabs become spaces.
func safeText(s string) string { return termsafe.TextTabs(s, 4) }
