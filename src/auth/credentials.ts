// What a transport hands to authentication: the raw credentials it saw, nothing interpreted yet.

export interface Credentials {
  /** HTTP `authorization` header. */
  authorization?: string
  /** HTTP `X-Api-Key` header or `api-key` query parameter (wallet keys). */
  apiKey?: string
  /** Nostr: the verified author of the request event, and the app its `p` tag addressed. */
  nostr?: { pubkey: string; appId: string }
  /** Nostr kind 23194 (NIP-47): the verified author, and the service key (one per NWC connection) it addressed. */
  nwc?: { pubkey: string; servicePubkey: string }
}

/** The `authorization` value without an optional `Bearer ` prefix (upstream accepts both). */
export function bearerValue(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const value = header.replace(/^Bearer\s+/i, '').trim()
  return value.length > 0 ? value : undefined
}
