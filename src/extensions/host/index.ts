// The extension host: the contract an extension is written against (its operations, listeners, jobs and the host
// object it receives) and the runtime that starts the hosted extensions with that host. The Nostr publisher they use
// is handed in by the composition root (the relay transport's announcer). Extensions import this door; this room
// imports no extension.
export type {
  Extension, ExtensionHost, ExtensionWallets, NostrPublisher, PaidInvoice, RunningExtension,
} from './extension.js'
export { startExtensions, type RunningExtensions } from './runtime.js'
