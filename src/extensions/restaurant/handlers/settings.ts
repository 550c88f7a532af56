// Host-wide settings, for host administrators only (the catalogue's `operator` kind enforces it).
import type { Handler } from '../../../bus/index.js'
import type { RestaurantRoom } from '../room.js'

export function settingsHandlers(room: RestaurantRoom) {
  const SettingsGet: Handler<'SettingsGet'> = async () => room.settings.get()
  const SettingsUpdate: Handler<'SettingsUpdate'> = async input => room.settings.update(input)
  return { SettingsGet, SettingsUpdate }
}
