package record

import "github.com/mcpscope/mcpscope/target"

// TargetOf is how a recording's header describes the server t: over HTTP its URL
// alone (the wire layer redacts headers); over stdio its stored command
// (StoredArgv), the names of its environment (the entry's own, then envNames: those of
// -e and --env-file, never a value), its directory and framing (the word asked for).
// It also returns the secrets t carries for the redactor: the values of its
// environment that look secret (EnvSecrets) and t.Secrets (header values, OAuth
// secrets). One description for every recording, of one server or several, so that
// both headers and both redactions agree.
func TargetOf(t target.Target, framing string, envNames []string) (Target, []string) {
	names, secrets := EnvSecrets(t.Env)
	secrets = append(secrets, t.Secrets...)
	if t.URL != "" {
		return Target{Transport: "http", URL: t.URL}, secrets
	}
	return Target{
		Transport: "stdio",
		Argv:      StoredArgv(t.Argv),
		Env:       append(names, envNames...),
		Dir:       t.Dir,
		Framing:   framing,
	}, secrets
}
