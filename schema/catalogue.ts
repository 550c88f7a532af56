// The operation catalogue: every operation the daemon serves, Lightning.Pub's and our own, one entry each. HTTP
// routes, Nostr routing, validation, docs/operations.md and `relaypay call` are all derived from this list. The
// extensions' entries come from their own folders, through the one list src/extensions/operations.ts.
import { adminOperations } from './operations/admin.js'
import { metricsOperations } from './operations/metrics.js'
import { guestOperations } from './operations/guest.js'
import { guestPubOperations } from './operations/guest-pub.js'
import { appOperations } from './operations/app.js'
import { userOperations } from './operations/user.js'
import { walletHostOperations } from './operations/wallet-host.js'
import { modelOperations } from './operations/models.js'
import { nwcOperations } from './operations/nwc.js'
import { operatorOperations } from './operations/operator.js'
import { clinkOperations } from './operations/clink.js'
import { apiDocsOperations } from './operations/api-docs.js'
import { walletPageOperations } from './operations/wallet-page.js'
import { extensionOperations } from '../src/extensions/operations.js'

export const catalogue = [
  ...adminOperations,
  ...metricsOperations,
  ...guestOperations,
  ...guestPubOperations,
  ...appOperations,
  ...userOperations,
  ...walletHostOperations,
  // Each extension's, from its folder (src/extensions/<name>/contract/operations.ts).
  ...extensionOperations,
  ...modelOperations,
  ...nwcOperations,
  ...clinkOperations,
  ...operatorOperations,
  ...apiDocsOperations,
  ...walletPageOperations,
]

export type CatalogueEntry = (typeof catalogue)[number]
export type OperationName = CatalogueEntry['name']
export type OperationOf<N extends OperationName> = Extract<CatalogueEntry, { name: N }>
