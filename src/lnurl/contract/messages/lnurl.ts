// LNURL responses, and the query-string inputs of the guest LNURL GET routes. Query parameters arrive as
// strings over HTTP (even `amount`), so these inputs are strings; handlers parse them.
// Fields: upstream's structs.proto; query names: the `query` options of its methods.proto.
import { Empty, bool, enumOf, int, list, message, optional, text } from '../../../../schema/dsl.js'

export const LnurlLinkResponse = message('LnurlLinkResponse', {
  lnurl: text(), // bech32 "lnurl1..." (uppercase not used)
  k1: text(),
})

export const LnurlPayInfoResponse = message('LnurlPayInfoResponse', {
  tag: text(), // "payRequest"
  callback: text(),
  maxSendable: int(), // millisats
  minSendable: int(), // millisats (server uses 10000)
  metadata: text(), // JSON-encoded LUD-06 metadata string
  allowsNostr: bool(),
  nostrPubkey: text(), // hex pubkey of the app (zap receipt signer)
  commentAllowed: optional(int()), // LUD-12: longest comment accepted by the callback (relaypay)
})

export const LnurlWithdrawInfoResponse = message('LnurlWithdrawInfoResponse', {
  tag: text(),
  callback: text(),
  k1: text(),
  defaultDescription: text(),
  minWithdrawable: int(), // millisats
  maxWithdrawable: int(), // millisats
  balanceCheck: text(),
  payLink: text(),
})

export const HandleLnurlPayResponse = message('HandleLnurlPayResponse', {
  pr: text(),
  routes: list(Empty), // always []
})

/** GetLnurlWithdrawInfo `?k1`: the withdraw key from the link. */
export const GetLnurlWithdrawInfoRequest = message('GetLnurlWithdrawInfoRequest', {
  k1: text(),
})

/** HandleLnurlWithdraw `?k1&pr`: the LUD-03 callback with the invoice to pay. */
export const HandleLnurlWithdrawRequest = message('HandleLnurlWithdrawRequest', {
  k1: text(),
  pr: text(),
})

/** GetLnurlPayInfo `?k1`: the pay key from the link. */
export const GetLnurlPayInfoRequest = message('GetLnurlPayInfoRequest', {
  k1: text(),
})

/** HandleLnurlPay `?k1&amount&nostr&lnurl`: the LUD-06 callback; `amount` is millisats, `nostr` a zap request. */
export const HandleLnurlPayRequest = message('HandleLnurlPayRequest', {
  k1: text(),
  amount: text(),
  nostr: optional(text()),
  lnurl: optional(text()),
  comment: optional(text()), // LUD-12 (relaypay)
})

/** HandleLnurlAddress `/.well-known/lnurlp/:address_name`: the name part of the Lightning address. */
export const HandleLnurlAddressRequest = message('HandleLnurlAddressRequest', {
  address_name: text(),
})

/** SetLightningAddress: claims `<name>@<domain>` for the caller's wallet (relaypay). */
export const SetLightningAddressRequest = message('SetLightningAddressRequest', {
  name: text(), // [a-z0-9._-]{1,64}, unique across the service
})

export const LightningAddress = message('LightningAddress', {
  name: text(),
  address: text(), // "<name>@<domain of [http] public_url>"
})

/** LUD-02 channelRequest (relaypay; upstream leaves LNURL-channel unimplemented). */
export const LnurlChannelInfoResponse = message('LnurlChannelInfoResponse', {
  tag: text(), // "channelRequest"
  uri: text(), // node_pubkey@host:port the wallet connects to first
  callback: text(),
  k1: text(),
})

/** GetLnurlChannelInfo `?k1`. */
export const GetLnurlChannelInfoRequest = message('GetLnurlChannelInfoRequest', {
  k1: text(),
})

/** HandleLnurlChannel `?k1&remoteid&private`: the wallet's node id, connected as a peer, and "1" for private. */
export const HandleLnurlChannelRequest = message('HandleLnurlChannelRequest', {
  k1: text(),
  remoteid: text(),
  private: optional(text()),
})

/** Paying out: an LNURL-pay link (`lnurl1…`) or a Lightning address (`name@domain`), as a person pasted it. */
export const LnurlPayTarget = message('LnurlPayTarget', {
  destination: text(),
})

export const LnurlPayOffer = message('LnurlPayOffer', {
  domain: text(), // the host that answers for the destination
  description: text(), // its metadata's text/plain entry
  min_sats: int(),
  max_sats: int(),
  comment_chars: int(), // LUD-12: the longest comment it takes (0: none)
})

export const LnurlPayInvoiceRequest = message('LnurlPayInvoiceRequest', {
  destination: text(),
  amount_sats: int(),
  comment: optional(text()),
})

/**
 * LUD-09: what the payee asks the payer's wallet to show once the invoice is paid, checked (LUD-09, LUD-10); an
 * invalid one is left out. `message`: `message`; `url`: `description` and `url` (http or https, on the callback's
 * host), shown as a link, never opened by itself; `aes`: `description`, and `ciphertext` with `iv` (base64, AES-256-CBC
 * under the payment's preimage) that the payer decrypts once it has paid.
 */
export const LnurlSuccessAction = message('LnurlSuccessAction', {
  tag: enumOf('LnurlSuccessActionTag', ['message', 'url', 'aes']),
  message: optional(text()), // up to 144 characters
  description: optional(text()), // up to 144 characters
  url: optional(text()),
  ciphertext: optional(text()), // base64, up to 4 KiB
  iv: optional(text()), // base64, 24 characters (16 bytes)
})

export const LnurlPayInvoice = message('LnurlPayInvoice', {
  invoice: text(),
  success_action: optional(LnurlSuccessAction), // absent: the payee asked for none, or an invalid one
})
