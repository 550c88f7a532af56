// The end user's wallet page: one document for every wallet, which names its wallet by the secret in the link's
// fragment (never sent here) and then calls the user operations with it (docs/wallet-page.md).
import { operation } from '../operation.js'
import { Empty } from '../dsl.js'
import { RawBody } from '../messages/host.js'

export const walletPageOperations = [
  operation({
    name: 'WalletPage', area: 'wallet-page', auth: 'guest', dialect: 'detail',
    http: { method: 'GET', path: '/wallet', body: 'none' },
    input: Empty, output: RawBody, produces: 'text/html',
    summary: 'Serves the wallet page (also at `/wallet/`); opened as `/wallet/#<wallet link secret>` (OperatorCreateWalletLink), it shows that wallet.',
  }),
]
