// The payroll extension as the ground floor reads it (schema/extension.ts): its id and its [payroll] config section
// (the scheduler's tick, the test calendar). It has no customer page.
import { z } from '../../../vendor/zod.js'
import { defineExtension } from '../../../../schema/extension.js'

export const payrollDescriptor = defineExtension({
  id: 'payroll',
  config: z
    .strictObject({
      /** The scheduler's first pass, this many seconds after start (about 20 s: docs/payroll.md, "The tick"). */
      first_tick_seconds: z.int().min(1).max(86_400).default(20),
      /** Seconds between the end of one scheduler pass and the next (5 minutes: docs/payroll.md, "The tick"). */
      tick_seconds: z.int().min(1).max(86_400).default(300),
      /**
       * Tests only, refused unless `[node] mock` is on: payroll's calendar starts on this UTC day (YYYY-MM-DD)
       * and runs at the real pace from there.
       */
      today_override: z
        .string()
        .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day YYYY-MM-DD')
        .refine(day => {
          const ms = Date.parse(`${day}T00:00:00Z`)
          return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(day)
        }, 'must be a day that exists')
        .optional(),
    })
    .prefault({}),
  pages: [],
})
