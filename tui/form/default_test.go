package form

import "testing"

// Issue 19, item 9g: the first key typed into a field still showing its schema
// default replaces the default (3 then 5 is 5, not 35); after that, and in a field
// the user already edited (a cursor moved, a letter erased), keys insert as usual.
func TestTypingReplacesAPrefilledDefault(t *testing.T) {
	schema := `{"type":"object","properties":{
		"n":{"type":"integer","default":3},
		"s":{"type":"string","default":"abc"},
		"t":{"type":"string","default":"xyz"}}}`
	f := mustNew(t, schema)
	focusOn(t, f, "/n")
	typeText(f, "5")
	typeText(f, "6") // the default is gone: this one appends
	focusOn(t, f, "/s")
	typeText(f, "hello")
	focusOn(t, f, "/t")
	press(f, "backspace") // an edit: the field is the user's now
	typeText(f, "!")
	checkFilled(t, f, []byte(schema), `{"n":56,"s":"hello","t":"xy!"}`)
}
