// The rules a user attaches to a debit grant: an expiration (unix seconds) and a
// frequency budget — at most `amount` sats, payments plus their service fees, in a sliding window of N days, weeks
// or months (a month is 30 days). Converted here between the wire's DebitRule list, the stored columns and the
// requests' `frequency: {number, unit}`.
import { OperationError, type InputOf } from '../bus/index.js'

export type Interval = 'DAY' | 'WEEK' | 'MONTH'
export type WireDebitRule = InputOf<'EditDebit'>['rules'][number]
export type FrequencyRule = { number_of_intervals: number; interval: Interval; amount: number }

export interface DebitRules {
  /** Unix seconds. */
  expiresAtUnix: number | null
  frequency: FrequencyRule | null
}

const intervalSeconds: Record<Interval, number> = { DAY: 86_400, WEEK: 7 * 86_400, MONTH: 30 * 86_400 }

/** CLINK requests name the unit in lower case. */
export const intervalOfUnit: Record<string, Interval> = { day: 'DAY', week: 'WEEK', month: 'MONTH' }

/** The window a frequency rule sums over, in ms. */
export function windowMs(rule: FrequencyRule): number {
  return rule.number_of_intervals * intervalSeconds[rule.interval] * 1000
}

/** The wire's rule list as stored rules; a second rule of one type replaces the first (as upstream's map does). */
export function rulesFromWire(rules: WireDebitRule[]): DebitRules {
  const parsed: DebitRules = { expiresAtUnix: null, frequency: null }
  for (const { rule } of rules) {
    if (rule.type === 'expiration_rule') {
      const at = rule.expiration_rule.expires_at_unix
      if (!Number.isSafeInteger(at) || at <= 0) throw new OperationError('invalid_input', 'expires_at_unix must be a positive unix time')
      parsed.expiresAtUnix = at
    } else {
      const f = rule.frequency_rule
      if (!Number.isSafeInteger(f.number_of_intervals) || f.number_of_intervals < 1 || f.number_of_intervals > 1000) {
        throw new OperationError('invalid_input', 'number_of_intervals must be between 1 and 1000')
      }
      if (!Number.isSafeInteger(f.amount) || f.amount < 0 || f.amount > 21e14) {
        throw new OperationError('invalid_input', 'a frequency rule amount must be a non-negative number of sats')
      }
      parsed.frequency = { number_of_intervals: f.number_of_intervals, interval: f.interval, amount: f.amount }
    }
  }
  return parsed
}

/** Stored rules as the wire's list: expiration first, then frequency. */
export function rulesToWire(rules: DebitRules): WireDebitRule[] {
  const list: WireDebitRule[] = []
  if (rules.expiresAtUnix !== null) {
    list.push({ rule: { type: 'expiration_rule', expiration_rule: { expires_at_unix: rules.expiresAtUnix } } })
  }
  if (rules.frequency) list.push({ rule: { type: 'frequency_rule', frequency_rule: { ...rules.frequency } } })
  return list
}

/** Whether an expiration rule has passed at `nowMs`. */
export function expired(rules: DebitRules, nowMs: number): boolean {
  return rules.expiresAtUnix !== null && rules.expiresAtUnix * 1000 <= nowMs
}
