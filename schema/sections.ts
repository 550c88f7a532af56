// The sections of the operations reference: each catalogue entry's `area`, in the order docs/operations.md lists
// them. A section is cut by caller (who may call), while an entry is written in the contract of the room that
// serves it, so one section gathers entries of several rooms; the catalogue (catalogue.ts) puts them back in
// this order. Each extension's operations are a section of their own, named by the extension: they stand where
// the core leaves them room, after the wallet host's, whose keys they take.

/** The core's sections before the extensions', with who calls each. */
export const sectionsBeforeExtensions = [
  // Upstream's Admin caller kind: the node, applications, users, swaps and invite links. The static admin token
  // over HTTP, or the enrolled admin key over the relay transport.
  'admin',
  // Upstream's Metrics caller kind: usage, bundle, error, app, node and forwarding reports, metrics storage and the
  // WebRTC upgrade. The metrics token (falls back to the admin token) or the admin key.
  'metrics',
  // Ours: the Prometheus scrape endpoint and the latest failed calls with their reasons (the admin's only: a reason
  // can name an invoice, a user or an app). Apart from 'metrics' so that the payments sections stay upstream's.
  'monitoring',
  // Upstream's Guest caller kind, no credentials: health, LNURL pay and withdraw, the Lightning address, mock test
  // helpers and admin enrollment. HTTP only, except EnrollAdminToken, which is served under /api/guest and also
  // over the relay transport.
  'guest',
  // Upstream's GuestWithPub caller kind: a relay-network key with no account yet, named by the event's pubkey and
  // the addressed app; refused over HTTP.
  'guest-pub',
  // Upstream's App caller kind: users, invoices, payments and transfers on behalf of users, npub linking, wallet
  // page links and mock test helpers. HTTP only, with the application token from AddApp/AuthApp.
  'app',
  // Upstream's User caller kind: account, invoices, payments, on-chain, swaps, LNURL links, CLINK offers, debits
  // and manage grants, live streams and batching, and the wallet-host operations on the user's own account. The
  // user token over HTTP, or any relay key over the relay transport.
  'user',
  // The LNbits-compatible wallet host API that host-side tools and the extensions' clients use: read wallets, move
  // money, switch extensions on per account. Creating a payment answers 201, creating a wallet 200, as upstream.
  'wallet-host',
] as const

/** The core's sections after the extensions'. */
export const sectionsAfterExtensions = [
  // The transcription model registry under its API root, and our route reporting a download's progress. Any
  // authenticated person; validation failures are 422, as the FastAPI-style service it mirrors answers.
  'models',
  // Nostr Wallet Connect (NIP-47): the user's own connections, and the methods an NWC app calls with kind 23194 on
  // a connection's service key (the caller is the connection).
  'nwc',
  // CLINK requests (docs/pub-protocol.md, "CLINK") a payer, a debit requester or a manager sends to an app key on
  // kinds 21001–21004 (the caller is the event's author). The user's side of CLINK is in 'user'.
  'clink',
  // The operator's views: what the console shows that upstream's admin API has no call for. The admin token (or a
  // console session) only, in the detail dialect.
  'operator',
  // The API describing itself: the HTTP operations as an OpenAPI 3.1 document. Ours.
  'api',
  // The end user's wallet page (docs/wallet-page.md): one document for every wallet.
  'wallet-page',
] as const

/** What every entry of the operator's section shares, whichever room serves it. */
export const operator = { area: 'operator', auth: 'admin', dialect: 'detail' } as const
