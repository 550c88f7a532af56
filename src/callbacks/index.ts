// Outbound connections: HTTP calls and relays at URLs users give us, behind the SSRF guard, and the daemon's own
// credential on its embedded relay.
export {
  checkOutboundUrl, addressAllowed, guardedLookup, guardedWebSocket, relayRefusal, relayUrl, type GuardOptions, type UrlKind,
} from './outbound-guard.js'
export { checkCallbackUrl } from './callback-url.js'
export { sendPaidCallback, expandCallbackUrl, type PaidCallback, type CallbackOutcome } from './paid-callback.js'
export { startPaidCallbacks, type PaidCallbackDeps } from './listener.js'
export { CredentialedWebSocket, isOwnRelay, relaySecretHeader, trustRelay } from './relay-credential.js'
