// Watching a node's settlements in tests: every one from an index on, or what a new subscription replays.
import type { LightningNode, SettledInvoice } from '../../src/node/index.js'

/** Everything a subscription from `after` gets, until the node closes. */
export function collect(node: LightningNode, after: number | 'now' = 0): SettledInvoice[] {
  const seen: SettledInvoice[] = []
  node.settlementsAfter(after).subscribe(settled => seen.push(settled))
  return seen
}

/**
 * Waits (at most a second or two) until `seen` holds `count` settlements. A remote node reports a settlement on
 * its own stream, which may arrive just after the payment's answer; the embedded node emits before answering.
 */
export async function arrived(seen: readonly unknown[], count: number): Promise<void> {
  for (let tries = 0; tries < 200 && seen.length < count; tries++) await new Promise(resolve => setTimeout(resolve, 10))
}

/** What a new subscription from `after` is given first (a replay): `count` settlements, or fewer after a second or two. */
export async function replayed(node: LightningNode, after: number | 'now', count: number): Promise<SettledInvoice[]> {
  const seen: SettledInvoice[] = []
  const subscription = node.settlementsAfter(after).subscribe(settled => seen.push(settled))
  await arrived(seen, count)
  subscription.unsubscribe()
  return seen
}
