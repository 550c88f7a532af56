// The extension host: the contract an extension is written against (its operations, listeners, jobs and the host
// object it receives), the runtime that starts the hosted extensions with that host, and the Nostr publisher they
// use. Extensions import this door; this room imports no extension.
export type {
  Extension, ExtensionHost, ExtensionWallets, NostrPublisher, PaidInvoice, RunningExtension,
} from './extension.js'
export { startExtensions, type RunningExtensions } from './runtime.js'
export { createPublisher } from './publisher.js'
