// Wallet page links (docs/wallet-page.md) as the operator and an app hand them out: the link is shown once, only a
// hash of its secret is kept.
import { bool, int, message, text } from '../../../../schema/dsl.js'

export const WalletLink = message('WalletLink', {
  secret: text(), // wl_<id>_<verifier>: shown once, only its hash is stored
  path: text(), // /wallet/#<secret>: the page, with the secret in the fragment (never sent to a server)
  url: text(), // the whole link: the path on [http] public_url, or on the address the daemon listens at
  user_id: text(),
  created_at: int(), // unix seconds
})
export const WalletLinkRevoked = message('WalletLinkRevoked', { revoked: bool() }) // false: it had none
