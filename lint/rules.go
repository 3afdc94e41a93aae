package lint

import "sync"

// Rule is one check, as data: what it finds, who rejects it, and where that is
// written. Severity error means the provider rejects the request (an HTTP 400) or the
// definition hides something from the user; warning, that it degrades, is ignored, or
// breaks a SHOULD. Sources are the providers' documentation where it states the rule,
// or a public report of the rejection where the documentation is silent (said so).
type Rule struct {
	ID       string
	Provider string // the profile it belongs to (Profiles)
	Severity Severity
	Checks   string // what it checks, for `mcpscope lint --rules`
	Suggest  string
	Source   string
}

const (
	srcGeminiDecl    = "https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration"
	srcGeminiSchema  = "https://cloud.google.com/vertex-ai/docs/reference/rest/v1/Schema (\"a select subset of an OpenAPI 3.0 schema object\"; the parameters field)"
	srcGeminiLimit   = "https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/function-calling"
	srcOpenAIStrict  = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"
	srcOpenAIName    = "https://platform.openai.com/docs/api-reference/chat/create (tools[].function.name)"
	srcAnthropicName = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools"
	// Strict tool use (tools[].strict: true) compiles input_schema into a grammar and
	// takes the JSON Schema subset of structured outputs.
	srcAnthropicStrict = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs (JSON Schema limitations; strict tool use: https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use)"
	srcMCPNames        = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names"
	srcMCPTool         = "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool"
	srcClaudeCode      = "https://github.com/anthropics/claude-code/issues/2326 (a report: \"tools.51.custom.name: String should have at most 64 characters\")"
	srcDeprecated      = "https://modelcontextprotocol.io/specification/2026-07-28/deprecated (SEP-2577; HTTP+SSE: https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#backwards-compatibility)"
	srcMcpscope        = "mcpscope's own rule: the patterns are listed in lint/AGENTS.md"
)

// rules, by id. rules_test.go checks that every id a check raises is here, and that
// every rule here has a source.
// It is built on first use, not in an init: every command links this package, and
// only lint, --inspect and the workbench's Lint view read it (issue 23).
var rules = sync.OnceValue(func() map[string]Rule {
	rules := map[string]Rule{}
	for _, r := range []Rule{
		// Gemini function declarations, the `parameters` field (an OpenAPI 3.0 subset;
		// unknown members are a 400 "Cannot find field"). Clients that send MCP schemas
		// as `parametersJsonSchema` (newer google-genai, gemini-cli) are spared most of
		// these; the message says so.
		{"gemini-name-start", "gemini", Error, "the name starts with a letter or an underscore", "start the name with a letter", srcGeminiDecl + " (\"Must start with a letter or an underscore.\")"},
		{"gemini-name-charset", "gemini", Error, "the name uses only a-z, A-Z, 0-9, _ . : -", "replace the other characters with _", srcGeminiDecl},
		{"gemini-name-length", "gemini", Warning, "the name is at most 64 characters (the Vertex reference; newer Gemini API text says 128)", "shorten the name to 64 characters", srcGeminiDecl},
		{"gemini-name-too-long", "gemini", Error, "the name is at most 128 characters", "shorten the name to 64 characters", srcGeminiDecl},
		{"gemini-no-schema-keyword", "gemini", Error, "no $schema in the parameters", "drop $schema (the dialect is implied)", srcGeminiSchema + "; a report: https://github.com/openswarm-ai/openswarm/issues/24"},
		{"gemini-no-additional-properties", "gemini", Error, "no additionalProperties in the parameters", "drop additionalProperties (Gemini treats objects as closed to their properties anyway)", srcGeminiSchema + "; a report: https://github.com/BerriAI/litellm/issues/14330"},
		{"gemini-no-const", "gemini", Error, "no const", "use an enum of one value", srcGeminiSchema + "; a report: https://github.com/zed-industries/zed/issues/44875"},
		{"gemini-no-exclusive-bounds", "gemini", Error, "no exclusiveMinimum or exclusiveMaximum", "use minimum or maximum", srcGeminiSchema},
		{"gemini-no-property-names", "gemini", Error, "no propertyNames", "drop propertyNames and say the rule in the description", srcGeminiSchema},
		{"gemini-no-ref-defs", "gemini", Error, "no $ref, $defs or definitions (not in the subset)", "inline the referenced schema", srcGeminiSchema},
		{"gemini-no-composition", "gemini", Error, "no oneOf, allOf, not, if/then/else, patternProperties, uniqueItems or dependent* (not in the subset)", "use anyOf, or describe the constraint in the description", srcGeminiSchema},
		{"gemini-unknown-keyword", "gemini", Error, "only the subset's members: type, format, title, description, nullable, enum, items, minItems, maxItems, properties, required, minProperties, maxProperties, minLength, maxLength, pattern, example, anyOf, propertyOrdering, default, minimum, maximum", "drop the member", srcGeminiSchema},
		{"gemini-type-array", "gemini", Error, "type is one string, not a list", "use one type and nullable: true for [T, \"null\"]", srcGeminiSchema + "; a report: https://github.com/zed-industries/zed/issues/53919"},
		{"gemini-enum-strings", "gemini", Error, "every enum value is a string", "make the values strings, or drop the enum", srcGeminiSchema + "; a report: https://github.com/microsoft/azure-devops-mcp/issues/139"},
		{"gemini-default-ignored", "gemini", Info, "default is accepted and ignored", "say the default in the description", "https://pub.dev/documentation/google_cloud_ai_generativelanguage_v1beta/latest/generativelanguage/Schema-class.html"},
		{"gemini-param-name", "gemini", Warning, "parameter names start with a letter or _ and use only a-z, A-Z, 0-9, _", "rename the parameter", srcGeminiDecl},
		{"gemini-max-tools", "gemini", Error, "at most 128 function declarations per request", "split the server, or let the host pick tools", srcGeminiLimit},

		// OpenAI function calling with strict: true (Structured Outputs).
		{"openai-name-pattern", "openai", Error, "the name matches ^[a-zA-Z0-9_-]{1,64}$", "use only letters, digits, _ and -, at most 64", srcOpenAIName},
		{"openai-max-tools", "openai", Error, "at most 128 tools per request", "split the server, or let the host pick tools", srcOpenAIName},
		{"openai-strict-root-object", "openai", Error, "the root is an object, not anyOf", "make the root {\"type\":\"object\"}", srcOpenAIStrict},
		{"openai-strict-additional-properties", "openai", Error, "every object sets additionalProperties: false (strict mode)", "add \"additionalProperties\": false", srcOpenAIStrict},
		{"openai-strict-all-required", "openai", Error, "every property is required (strict mode; optional is a [T, \"null\"] type)", "list every property in required, and make optional ones nullable", srcOpenAIStrict},
		{"openai-strict-unsupported", "openai", Error, "no allOf, not, dependentRequired, dependentSchemas, if/then/else (strict mode)", "flatten the schema", srcOpenAIStrict},
		{"openai-strict-unlisted", "openai", Warning, "only the supported keywords (strict mode): oneOf, patternProperties, propertyNames, min/maxProperties, uniqueItems, contains, min/maxLength, default are not listed", "drop the member or move it to the description", srcOpenAIStrict},
		{"openai-strict-depth", "openai", Error, "at most 10 levels of nested objects (strict mode)", "flatten the schema", srcOpenAIStrict},
		{"openai-strict-size", "openai", Error, "at most 5000 properties, 1000 enum values and 120,000 characters of names and values (strict mode)", "split the tool", srcOpenAIStrict},

		// Anthropic tool use.
		{"anthropic-name-charset", "anthropic", Error, "the name uses only a-z, A-Z, 0-9, _ and -", "replace the other characters with _", srcAnthropicName + " (\"^[a-zA-Z0-9_-]{1,64}$\")"},
		{"anthropic-name-length", "anthropic", Warning, "the name is at most 64 characters (the documentation; the API now takes 128)", "shorten the name to 64 characters", srcAnthropicName},
		{"anthropic-name-too-long", "anthropic", Error, "the name is at most 128 characters", "shorten the name to 64 characters", "https://github.com/anthropics/claude-code/issues/5835 (a report)"},
		{"anthropic-input-schema-object", "anthropic", Error, "input_schema is an object schema (type: \"object\")", "wrap the parameters in {\"type\":\"object\",\"properties\":{...}}", srcAnthropicName},

		// Anthropic strict tool use (strict: true on the tool; a host opts in). The
		// schema is compiled into a grammar: what the subset lacks is a 400.
		{"anthropic-strict-additional-properties", "anthropic-strict", Error, "every object sets additionalProperties: false (strict tool use; any other value is not supported)", "add \"additionalProperties\": false", srcAnthropicStrict},
		{"anthropic-strict-constraint", "anthropic-strict", Error, "no numerical constraints (minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf), no string length constraints (minLength, maxLength), no array constraints but minItems 0 or 1 (strict tool use)", "drop the constraint and say it in the description (Anthropic's SDKs do so)", srcAnthropicStrict},
		{"anthropic-strict-enum-primitive", "anthropic-strict", Error, "enum values are strings, numbers, booleans or null, not objects or arrays (strict tool use)", "make the values primitives", srcAnthropicStrict},
		{"anthropic-strict-external-ref", "anthropic-strict", Error, "$ref points inside the schema (#...), not to another document (strict tool use)", "inline the referenced schema, or copy it into $defs", srcAnthropicStrict},
		{"anthropic-strict-recursive", "anthropic-strict", Error, "no recursive schema: a $ref to the schema it is inside (strict tool use; a $ref cycle through several definitions is not detected)", "bound the nesting: unroll the recursion a fixed number of levels", srcAnthropicStrict},
		{"anthropic-strict-max-tools", "anthropic-strict", Error, "at most 20 strict tools per request", "let the host mark only some tools strict, or split the server", srcAnthropicStrict},
		{"anthropic-strict-optional-params", "anthropic-strict", Error, "at most 24 optional parameters across all strict schemas of a request", "make parameters required (optional ones nullable), or fewer tools strict", srcAnthropicStrict},
		{"anthropic-strict-union-params", "anthropic-strict", Error, "at most 16 parameters using anyOf or a list of types across all strict schemas of a request", "use one type where you can", srcAnthropicStrict},

		// Claude Code names a server's tool mcp__SERVER__TOOL and sends that name.
		{"claudecode-combined-name", "claude-code", Error, "mcp__SERVER__TOOL is at most 64 characters", "shorten the tool name (the budget is 64 - 7 - the server's name)", srcClaudeCode},

		// MCP, 2025-11-25 (SEP-986).
		{"mcp-name-length", "mcp", Warning, "the name is 1 to 128 characters", "shorten the name", srcMCPNames},
		{"mcp-name-charset", "mcp", Warning, "the name uses only A-Z, a-z, 0-9, _, - and .", "replace the other characters", srcMCPNames},
		{"mcp-name-unique", "mcp", Warning, "tool names are unique within a server", "rename one of the tools", srcMCPNames},
		{"mcp-name-case", "mcp", Warning, "no two tool names differ only in letter case", "rename one of the tools", srcMCPNames + " (names are case-sensitive; hosts and models are not always)"},
		{"deprecated-feature", "mcp", Info, "the server uses no feature the specification deprecated (roots, sampling, logging: 2026-07-28, SEP-2577; HTTP+SSE: 2025-03-26)", "move off it before the revision that removes it (not before 2027-07-28 for SEP-2577's)", srcDeprecated},
		{"mcp-input-schema-object", "mcp", Error, "inputSchema is a JSON Schema object, not null or missing", "send {\"type\":\"object\"} for a tool without parameters", srcMCPTool},

		// What the definitions cost (--budget).
		{"budget", "cost", Error, "the server's definitions cost at most --budget tokens", "shorten the heaviest definitions (listed first), or split the server", "mcpscope: --budget"},

		// What a definition hides or asks of the model (a documented, deterministic list).
		{"hidden-characters", "security", Error, "no invisible characters (Unicode format characters such as U+200B and U+FEFF, bidi controls, tag characters) in any string", "remove them: they hide text from the person reading the definition, not from the model", srcMcpscope + "; https://invariantlabs.ai/blog/mcp-security-notification-tool-poisoning-attacks"},
		{"instruction-override", "security", Error, "no instruction to ignore or override earlier instructions", "remove the sentence", srcMcpscope},
		{"instruction-tag", "security", Error, "no <IMPORTANT>, <system> or <instructions> blocks", "remove the block; say what the tool does", srcMcpscope + "; https://invariantlabs.ai/blog/mcp-security-notification-tool-poisoning-attacks"},
		{"instruction-conceal", "security", Error, "no instruction to keep something from the user", "remove the sentence", srcMcpscope},
		{"sensitive-path", "security", Warning, "no mention of secrets' paths (~/.ssh, id_rsa, .env, ~/.aws, credentials files, mcp.json)", "remove it unless the tool is about that file", srcMcpscope},
		{"instruction-call", "security", Warning, "no instruction that the model must first call or read something", "describe what the tool does; let the host decide the calls", srcMcpscope},
		{"hint-contradicts-name", "security", Warning, "a tool named delete_*, remove_*, drop_* … is not read-only or non-destructive by its hints", "set readOnlyHint false and destructiveHint true, or rename the tool", srcMcpscope + "; " + srcMCPTool},
		{"shadowed-name", "security", Warning, "no tool has the same name as a tool of another server of the session", "rename one; a model picks by name and may call the wrong server", srcMcpscope},
		{"confusable-name", "security", Warning, "no tool name differs from another server's only in case, separators or look-alike letters", "rename one", srcMcpscope},
		{"pin-changed", "security", Warning, "no definition changed since the server's surface was pinned (its first connection); an error with --strict-pins", "review the change; mcpscope pin accept NAME takes the new surface", srcMcpscope + " (pinning, as mcp-scan's tool pinning does)"},
		{"pin-added", "security", Info, "no definition was added since the surface was pinned", "review it; mcpscope pin accept NAME takes the new surface", srcMcpscope},
		{"pin-removed", "security", Info, "no definition was removed since the surface was pinned", "mcpscope pin accept NAME takes the new surface", srcMcpscope},
		{"cross-server-reference", "security", Warning, "no description names another server's tool", "remove the reference; one server steering calls to another is how shadowing attacks work", srcMcpscope + "; https://invariantlabs.ai/blog/mcp-security-notification-tool-poisoning-attacks"},
	} {
		rules[r.ID] = r
	}
	return rules
})

// Rules lists every rule (for --rules), in a stable order: by profile, then id.
func Rules() []Rule {
	out := make([]Rule, 0, len(rules()))
	for _, p := range append(Profiles[:len(Profiles):len(Profiles)], "cost") {
		var ids []string
		for id, r := range rules() {
			if r.Provider == p {
				ids = append(ids, id)
			}
		}
		sortStrings(ids)
		for _, id := range ids {
			out = append(out, rules()[id])
		}
	}
	return out
}
