// Field formats shared by the restaurant extension's messages (restaurants.ts, menu.ts,
// orders.ts): currencies, slugs, times of day and zones, names and the handler's ids.
import { text } from '../../../../../schema/dsl.js'

/** `sat` or an ISO-4217 code. */
export const currencyText = () => text().regex(/^(sat|[A-Z]{3})$/, 'must be "sat" or an ISO-4217 code such as "EUR"')
export const slugText = () => text().regex(/^[a-z0-9-]{1,64}$/, 'must be 1-64 characters of a-z, 0-9 and -')
export const timeOfDayText = () => text().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM')
export const nameText = () => text().trim().min(1).max(100)
export const descriptionText = () => text().max(2000)
export const imageText = () => text().max(2048).nullable()
export const idText = () => text().min(1)

function isIanaTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false // RangeError is how Intl says the zone is unknown
  }
}
export const timeZoneText = () => text().refine(isIanaTimeZone, 'must be an IANA time zone such as "Europe/Berlin"')
