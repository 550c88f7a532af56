// The wallet page at /wallet/ (docs/wallet-page.md): an end user's wallet in the browser — balance and history,
// receive, send, connect an app by NWC — opened by a link whose fragment holds a wallet link secret. This room serves
// the document and hands the links out (the operator's and the apps' operations); the page's script calls the user
// operations with the secret as its bearer credential, so everything the page does is an operation of the
// catalogue, authenticated and budgeted like any other.
export { walletPageHandlers } from './handlers/wallet-page.js'
export { walletLinkHandlers, type WalletLinkDeps } from './handlers/wallet-links.js'
