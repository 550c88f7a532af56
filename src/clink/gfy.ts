// CLINK's failure answers for every kind, in one place: GFY ("general failure to yield") with a code 1–6 and its
// text (the CLINK debits spec; docs/pub-protocol.md, "Debits"), and what a request of each kind hears when it cannot
// be run: taken by a run that stopped before answering it, or refused before the room saw it.
import { clinkDebitKind, clinkEnrollKind, clinkManageKind, clinkOfferKind, type ClinkKind } from './wire.js'

export type GfyCode = 1 | 2 | 3 | 4 | 5 | 6

export const gfyText: Record<GfyCode, string> = {
  1: 'Request Denied',
  2: 'Temporary Failure',
  3: 'Expired Request',
  4: 'Rate Limited',
  5: 'Invalid Amount',
  6: 'Invalid Request',
}

export interface GfyExtra {
  error?: string
  range?: { min: number; max: number }
  /** Code 3: how old the request may be and how old it was, in ms (the CLINK debits spec's `delta`). */
  delta?: { max_delta_ms: number; actual_delta_ms: number }
}

export function gfy(code: GfyCode, extra: GfyExtra = {}): Record<string, unknown> {
  return {
    res: 'GFY',
    code,
    error: extra.error ?? gfyText[code],
    ...(extra.range ? { range: extra.range } : {}),
    ...(extra.delta ? { delta: extra.delta } : {}),
  }
}

/** Enroll's words for a temporary failure (upstream's). */
export const enrollTemporaryText = 'Temporary Failure / Service unavailable'

/** Said to a requester whose request was taken by a daemon run that stopped before answering it (never re-run). */
const interrupted: Record<ClinkKind, Record<string, unknown>> = {
  [clinkOfferKind]: { code: 2, error: gfyText[2] }, // offers answer without `res`
  [clinkDebitKind]: gfy(2),
  [clinkManageKind]: gfy(2),
  [clinkEnrollKind]: gfy(2, { error: enrollTemporaryText }),
}

/**
 * Said to a request the dispatcher refused before the room saw it: one whose input it cannot read (nested deeper than
 * it reads) gets the kind's invalid-request answer, the same the room gives a body that is no object.
 */
const invalid: Record<ClinkKind, Record<string, unknown>> = {
  [clinkOfferKind]: { code: 1, error: 'Invalid Offer' },
  [clinkDebitKind]: gfy(6),
  [clinkManageKind]: gfy(6),
  [clinkEnrollKind]: gfy(6),
}

export const interruptedAnswer = (kind: ClinkKind): Record<string, unknown> => interrupted[kind]
export const invalidAnswer = (kind: ClinkKind): Record<string, unknown> => invalid[kind]
