/** A message for the relay transport to send to one key, unasked (a push). */
export interface KeyPush {
  appId: string
  pubkey: string
  payload: Record<string, unknown>
}
