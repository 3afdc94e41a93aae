#!/bin/sh
# The conformance suite runs this with the server's URL last. It passes what a
# user would type: the client credentials the scenario hands out (its
# MCP_CONFORMANCE_CONTEXT) as --client-id, --client-secret, --client-key; the
# client-credentials grant for those scenarios; the workload's JWT (valid_jwt) with
# the jwt-bearer grant for workload identity federation; the IdP's ID token,
# token endpoint and client with the id-jag grant for enterprise-managed
# authorization (cross-app access); a tools/call for the step-up one.
# The login itself runs in the ordinary commands (--login: no terminal here), with
# $BROWSER fetching the authorization URL.
url="$1"
get() { node -e 'const c=JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT||"{}");process.stdout.write(String(c[process.argv[1]]||""))' "$1"; }
set -- --redirect-port 0
id=$(get client_id); sec=$(get client_secret); key=$(get private_key_pem); alg=$(get signing_algorithm)
[ -n "$id" ] && set -- "$@" --client-id "$id"
[ -n "$sec" ] && set -- "$@" --client-secret "$sec"
if [ -n "$key" ]; then printf '%s' "$key" > "$XDG_CONFIG_HOME.key"; set -- "$@" --client-key "$XDG_CONFIG_HOME.key"; fi
[ -n "$alg" ] && set -- "$@" --client-key-alg "$alg"
case "$MCP_CONFORMANCE_SCENARIO" in *client-credentials*) set -- "$@" --oauth-grant client-credentials;; esac
jwt=$(get valid_jwt)
if [ -n "$jwt" ]; then printf '%s' "$jwt" > "$XDG_CONFIG_HOME.jwt"; set -- "$@" --oauth-grant jwt-bearer --assertion-file "$XDG_CONFIG_HOME.jwt"; fi
idt=$(get idp_id_token)
if [ -n "$idt" ]; then
	printf '%s' "$idt" > "$XDG_CONFIG_HOME.idtoken"
	set -- "$@" --oauth-grant id-jag --id-token-file "$XDG_CONFIG_HOME.idtoken" --idp-token-endpoint "$(get idp_token_endpoint)" --idp-client-id "$(get idp_client_id)"
fi
[ -n "$CIMD_URL" ] && set -- "$@" --client-metadata-url "$CIMD_URL"
case "$MCP_CONFORMANCE_SCENARIO" in
*step-up*)
	tool=$("$MCPSCOPE" --inspect --login --format json "$@" "$url" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).tools[0].name))') || exit 1
	exec "$MCPSCOPE" call "$tool" --login "$@" "$url" ;;
esac
exec "$MCPSCOPE" --inspect --login "$@" "$url"
