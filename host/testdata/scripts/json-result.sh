cat <<'JSON'
{"content":[{"type":"text","text":"from a script"},{"type":"resource_link","uri":"file:///tmp/x","name":"x"}],"structuredContent":{"ok":true}}
JSON
