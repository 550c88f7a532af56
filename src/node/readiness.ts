// Whether the node can serve now, in upstream's words: Health answers ERROR with the reason, UserHealth reports it
// as `downtime_reason`.
import type { LightningNode } from './lightning-node.js'

/** Undefined when the node answers and is synced to chain and graph; otherwise why not. */
export async function nodeNotReadyReason(node: LightningNode): Promise<string | undefined> {
  try {
    const info = await node.getInfo()
    return info.syncedToChain && info.syncedToGraph ? undefined : 'not synced'
  } catch (err) {
    return err instanceof Error && err.message ? err.message : 'not ready'
  }
}
