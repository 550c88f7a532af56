// The operations the wallet page room serves: the page itself (one document for every wallet, which names its
// wallet by the secret in the link's fragment, never sent here; docs/wallet-page.md), and the links to it that an
// app or the operator hands out.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { operator } from '../../../schema/sections.js'
import { GetAppUserRequest } from '../../../schema/messages/apps.js'
import { RawBody } from '../../../schema/messages/host.js'
import { OperatorWalletLinkRequest } from '../../../schema/messages/operator.js'
import { WalletLink, WalletLinkRevoked } from './messages/wallet-links.js'

export const walletPageOperations = [
  operation({
    name: 'AppCreateWalletLink', area: 'app', auth: 'app', dialect: 'pub', unknownFields: 'refuse',
    http: { method: 'POST', path: '/api/app/user/wallet-link' },
    input: GetAppUserRequest, output: WalletLink,
    summary: "A wallet page link (`/wallet/#<secret>`, on `[http] public_url`) for the app's own user `user_identifier`, shown only here; the wallet's earlier link, and the NWC connections it made on the page, stop working at once. Relaypay addition.",
  }),
  operation({
    name: 'AppRevokeWalletLink', area: 'app', auth: 'app', dialect: 'pub', unknownFields: 'refuse',
    http: { method: 'POST', path: '/api/app/user/wallet-link/revoke' },
    input: GetAppUserRequest, output: WalletLinkRevoked,
    summary: "Revokes the wallet page link of the app's own user `user_identifier`, and the NWC connections it made on the page (`revoked` false: there was none). Relaypay addition.",
  }),
  operation({
    name: 'OperatorCreateWalletLink', ...operator,
    http: { method: 'POST', path: '/api/operator/users/wallet-link' },
    input: OperatorWalletLinkRequest, output: WalletLink,
    summary: "A wallet page link (`/wallet/#<secret>`) for the app user `identifier`, shown only here; the wallet's earlier link stops working at once, and the NWC connections that link made on the page end.",
  }),
  operation({
    name: 'OperatorRevokeWalletLink', ...operator,
    http: { method: 'POST', path: '/api/operator/users/wallet-link/revoke' },
    input: OperatorWalletLinkRequest, output: WalletLinkRevoked,
    summary: "Revokes the wallet page link of the app user `identifier`: the page refuses it from the next request on, and the NWC connections it made on the page end (`revoked` false: there was none).",
  }),
  operation({
    name: 'WalletPage', area: 'wallet-page', auth: 'guest', dialect: 'detail',
    http: { method: 'GET', path: '/wallet', body: 'none' },
    input: Empty, output: RawBody, produces: 'text/html',
    summary: 'Serves the wallet page (also at `/wallet/`); opened as `/wallet/#<wallet link secret>` (OperatorCreateWalletLink), it shows that wallet.',
  }),
]
