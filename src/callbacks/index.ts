// Outbound HTTP calls to URLs users give us, behind the SSRF guard.
export { checkOutboundUrl, addressAllowed, guardedLookup, guardedWebSocket, relayUrl, type GuardOptions, type UrlKind } from './outbound-guard.js'
export { checkCallbackUrl } from './callback-url.js'
export { sendPaidCallback, expandCallbackUrl, type PaidCallback, type CallbackOutcome } from './paid-callback.js'
export { startPaidCallbacks, type PaidCallbackDeps } from './listener.js'
