// The operation catalogue: every operation the daemon serves, Lightning.Pub's and our own, one entry each. HTTP
// routes, Nostr routing, validation, docs/operations.md and `relaypay call` are all derived from this list. Each
// entry is written beside the handler that serves it, in its room's contract/operations.ts (declarations only:
// the contract stands on the ground with this file, beneath the room's own code); the extensions' come from their
// own folders, through the one list src/extensions/operations.ts.
import { walletOperations } from '../src/wallet/contract/operations.js'
import { nodeOperations } from '../src/node/contract/operations.js'
import { swapsOperations } from '../src/swaps/contract/operations.js'
import { lnurlOperations } from '../src/lnurl/contract/operations.js'
import { clinkOperations } from '../src/clink/contract/operations.js'
import { nwcOperations } from '../src/nwc/contract/operations.js'
import { linkingOperations } from '../src/linking/contract/operations.js'
import { metricsOperations } from '../src/metrics/contract/operations.js'
import { webrtcOperations } from '../src/webrtc/contract/operations.js'
import { healthOperations } from '../src/health/contract/operations.js'
import { hostApiOperations } from '../src/host-api/contract/operations.js'
import { walletPageOperations } from '../src/wallet-page/contract/operations.js'
import { modelsOperations } from '../src/models/contract/operations.js'
import { apiDocsOperations } from '../src/api-docs/contract/operations.js'
import { extensionOperations } from '../src/extensions/operations.js'
import { sectionsAfterExtensions, sectionsBeforeExtensions } from './sections.js'

/**
 * Every room's entries, room by room: the payments core first (the wallet, the node, swaps), the protocols on top of
 * it (LNURL, CLINK, NWC), linking and metrics, then the rooms of a few operations each, then the extensions'.
 */
const byRoom = [
  ...walletOperations,
  ...nodeOperations,
  ...swapsOperations,
  ...lnurlOperations,
  ...clinkOperations,
  ...nwcOperations,
  ...linkingOperations,
  ...metricsOperations,
  ...webrtcOperations,
  ...healthOperations,
  ...hostApiOperations,
  ...walletPageOperations,
  ...modelsOperations,
  ...apiDocsOperations,
  // Each extension's, from its folder (src/extensions/<name>/contract/operations.ts).
  ...extensionOperations,
]

/** The reference's sections in order (schema/sections.ts), each extension's where the core leaves them room. */
const sections = [
  ...sectionsBeforeExtensions,
  ...new Set(extensionOperations.map(entry => entry.area)),
  ...sectionsAfterExtensions,
]

/**
 * The entries section by section, and within a section room by room in the order above: readers that list the
 * catalogue (the operations reference, the OpenAPI document, `relaypay call`) list it by caller, as the reference
 * does. An entry whose area is no section fails here, at load, rather than landing at an arbitrary place.
 */
function bySection<E extends { name: string; area: string }>(entries: readonly E[]): E[] {
  const rank = new Map<string, number>(sections.map((section, index) => [section, index]))
  for (const entry of entries) {
    if (!rank.has(entry.area)) {
      throw new Error(`${entry.name}: its area '${entry.area}' is no section of schema/sections.ts`)
    }
  }
  return [...entries].sort((a, b) => rank.get(a.area)! - rank.get(b.area)!)
}

export const catalogue = bySection(byRoom)

export type CatalogueEntry = (typeof catalogue)[number]
export type OperationName = CatalogueEntry['name']
export type OperationOf<N extends OperationName> = Extract<CatalogueEntry, { name: N }>
