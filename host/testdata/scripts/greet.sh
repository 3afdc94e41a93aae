# Reads the call's arguments twice: from MCPSCOPE_ARGS and from stdin.
name=$(printf '%s' "$MCPSCOPE_ARGS" | sed -n 's/.*"name":"\([^"]*\)".*/\1/p')
stdin=$(cat)
printf 'Hello, %s! (tool %s, stdin %s)' "$name" "$MCPSCOPE_TOOL" "$stdin"
