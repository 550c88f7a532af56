// The wallet page at /wallet/ (docs/wallet-page.md): an end user's wallet in the browser — balance and history,
// receive, send, connect an app by NWC — opened by a link whose fragment holds a wallet link secret. This room only
// serves the document; the page's script calls the user operations with the secret as its bearer credential, so
// everything the page does is an operation of the catalogue, authenticated and budgeted like any other.
export { walletPageHandlers } from './handlers/wallet-page.js'
