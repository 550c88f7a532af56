// The LNbits-compatible payments routes of the wallet host (handlers/payments.ts): create an invoice or pay one with
// a wallet key, and read a payment by its hash, through the wallet's normal invoice and payment path.
export { hostPaymentHandlers, type HostWalletDoor } from './handlers/payments.js'
