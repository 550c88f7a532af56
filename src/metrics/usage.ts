// Usage metrics: one record per finished call, filed per application and per operation name (docs/pub-protocol.md,
// "Usage metrics").
import type { CallOutcome, Caller } from '../bus/index.js'
import { rootApp } from './bundle.js'
import { encodeUsageRecord } from './records.js'
import { isSafeSeriesName } from './tlv-file-store.js'
import { unixSeconds } from '../units/index.js'

export interface UsageEntry {
  app: string
  /** The operation name as called (an upstream alias stays an alias, as upstream files it). */
  series: string
  record: Uint8Array
}

/**
 * The record for one outcome, or undefined for a name outside the catalogue: such names come from callers, and
 * one directory per invented name would let anyone fill the disk.
 */
export function usageEntry(outcome: CallOutcome, nowMs: number, isOperation: (name: string) => boolean): UsageEntry | undefined {
  if (!isOperation(outcome.op) || !isSafeSeriesName(outcome.op)) return undefined
  const { authUs, validateUs, handleUs } = outcome.timings
  const record = encodeUsageRecord({
    processedAtSeconds: unixSeconds(nowMs),
    // The transports parse before the dispatcher sees the call, so there is no parse step to time here.
    parseUs: 0,
    authUs,
    validateUs,
    handleUs,
    // The outcome of one entry of a batch does not carry the batch's size.
    batchSize: 0,
    batch: outcome.transport === 'batch',
    nostr: outcome.transport === 'nostr',
    success: outcome.ok,
  })
  return { app: appOf(outcome.caller), series: outcome.op, record }
}

/** The caller's application, or `_root` for callers without one (admin, operator, wallet keys, failed auth). */
export function appOf(caller: Caller | null): string {
  const appId = caller && 'appId' in caller ? caller.appId : ''
  return appId && isSafeSeriesName(appId) ? appId : rootApp
}
