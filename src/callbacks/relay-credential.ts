// The daemon's own connections to its embedded relay show a per-process secret in a header (the relay's
// `x-relaypay-relay-secret`): the relay then gives them reserved slots beyond its caps and skips the stranger's
// budgets and write policy (src/relay/server.ts). They come from loopback like anyone on this machine, so the
// address cannot tell them apart. The secret travels only to the relay that issued it (matched by host and port), in
// a header rather than the URL, so it is in no relay list, nprofile or log line.
import { WebSocket } from '../vendor/ws.js'

/** The header name, as src/relay/server.ts reads it (kept here so no client of the relay imports the relay room). */
export const relaySecretHeader = 'x-relaypay-relay-secret'

const secrets = new Map<string, string>()

const hostOf = (url: string | URL) => {
  try {
    return new URL(url).host
  } catch {
    return ''
  }
}

/** From now on, connections to `url` from this process carry `secret`; the result forgets it. */
export function trustRelay(url: string, secret: string): () => void {
  const host = hostOf(url)
  secrets.set(host, secret)
  return () => {
    if (secrets.get(host) === secret) secrets.delete(host)
  }
}

/** The headers a connection to `url` carries: the secret, for a relay this process runs; none otherwise. */
export function relayHeaders(url: string | URL): Record<string, string> {
  const secret = secrets.get(hostOf(url))
  return secret ? { [relaySecretHeader]: secret } : {}
}

type WsArgs = ConstructorParameters<typeof WebSocket>

/** `ws` that adds the secret for the relays this process runs (for nostr-tools' websocketImplementation). */
export class CredentialedWebSocket extends WebSocket {
  constructor(address: WsArgs[0], protocols?: WsArgs[1], options?: WsArgs[2]) {
    const headers = relayHeaders(address)
    if (Object.keys(headers).length === 0) super(address, protocols, options)
    else super(address, protocols, { ...(options ?? {}), headers: { ...((options?.headers as Record<string, string>) ?? {}), ...headers } } as WsArgs[2])
  }
}

/**
 * True for a relay this process runs (the embedded relay on its thread): it checked every signature a stranger sent
 * before relaying it, so a receiver may remember such events as verified (EventVerifier.remember) and check only
 * that each id still matches its event, as it did when the relay ran on the same thread.
 */
export function isOwnRelay(url: string): boolean {
  return secrets.has(hostOf(url))
}
